import assert from 'node:assert/strict';
import {
  cpSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import {
  backupOnce,
  BackupFormatError,
  decodeBackup,
  pgliteDirOf,
  restoreBackup,
  RestoreRefused,
  writeBackup,
} from '../../src/backup/index.js';
import { encodeBackup } from '../../src/backup/format.js';
import { verifyAuditChain } from '../../src/audit/index.js';
import { ManualClock } from '../../src/lib/clock.js';
import { Metrics } from '../../src/metrics/index.js';
import { openDatabase, type Db } from '../../src/store/index.js';
import { accountOnPlan } from '../helpers/accounts.js';
import { buildTestApp } from '../helpers/app.js';
import { templateDir } from '../helpers/db.js';

const LOOKUP = '/api/v1/salary?country=DE&job=software-engineer&level=senior';

async function counts(db: Db) {
  const [row] = await db.query<{ accounts: number; keys: number; invoices: number; audit: number }>(
    `SELECT (SELECT count(*)::int FROM accounts) AS accounts,
            (SELECT count(*)::int FROM api_keys) AS keys,
            (SELECT count(*)::int FROM invoices) AS invoices,
            (SELECT count(*)::int FROM audit_log) AS audit`,
  );
  return row!;
}

describe('backup and restore of the embedded database', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'salary-api-backup-'));
  const backups = mkdtempSync(join(tmpdir(), 'salary-api-backups-'));
  const file = join(backups, 'snapshot.backup');
  const open = () => openDatabase({ databaseUrl: undefined, dataDir });
  let apiKey: string;
  let before_: Awaited<ReturnType<typeof counts>>;

  before(async () => {
    cpSync(await templateDir(), pgliteDirOf(dataDir), { recursive: true });
    const db = await open();
    const t = await buildTestApp({ db });
    apiKey = (await accountOnPlan(t, 'developer')).apiKey!;
    await accountOnPlan(t, 'business');
    before_ = await counts(db);
    assert.ok(before_.accounts >= 2 && before_.keys >= 2 && before_.invoices >= 2);
    assert.ok(before_.audit >= 1);
    await writeBackup(db, file, { release: '2026.11.1', now: new Date('2026-11-23T03:00:00Z') });
    await t.close();
    await db.close();
  });
  after(() => {
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(backups, { recursive: true, force: true });
  });

  it('writes the backup readable by its owner only, with a manifest', () => {
    assert.equal(statSync(file).mode & 0o777, 0o600);
    const { manifest } = decodeBackup(file, readFileSync(file));
    assert.equal(manifest.release, '2026.11.1');
    assert.ok(manifest.migration >= 6);
    assert.match(manifest.sha256, /^[0-9a-f]{64}$/);
    assert.deepEqual(
      readdirSync(backups).filter((n) => n.endsWith('.partial')),
      [],
      'no temporary file left',
    );
  });

  it('refuses a truncated or altered backup and a newer migration level, changing nothing', async () => {
    const bytes = readFileSync(file);
    const truncated = join(backups, 'truncated.backup');
    writeFileSync(truncated, bytes.subarray(0, bytes.length - 1000));
    const altered = join(backups, 'altered.backup');
    const flipped = Buffer.from(bytes);
    flipped[flipped.length - 10] = flipped[flipped.length - 10]! ^ 0xff;
    writeFileSync(altered, flipped);
    const newer = join(backups, 'newer.backup');
    const { payload, manifest } = decodeBackup(file, bytes);
    writeFileSync(newer, encodeBackup(payload, { ...manifest, migration: 9999 }).bytes);
    const pglite = pgliteDirOf(dataDir);
    const stamp = statSync(join(pglite, 'PG_VERSION')).ino;

    await assert.rejects(restoreBackup(truncated, pglite), (e: Error) => {
      assert.ok(e instanceof BackupFormatError);
      assert.match(e.message, /truncated or altered.*Nothing was changed/s);
      return true;
    });
    await assert.rejects(
      restoreBackup(altered, pglite),
      /SHA-256 does not match.*Nothing was changed/s,
    );
    await assert.rejects(restoreBackup(newer, pglite), (e: Error) => {
      assert.ok(e instanceof RestoreRefused);
      assert.match(
        e.message,
        /migration 9999; this version of salary-api knows migrations up to \d+/,
      );
      return true;
    });
    assert.equal(
      statSync(join(pglite, 'PG_VERSION')).ino,
      stamp,
      'the database folder is the same',
    );
    assert.deepEqual(
      readdirSync(dataDir).filter((n) => n.startsWith('pglite.')),
      [],
      'no folder left beside the database',
    );
    const db = await open();
    try {
      assert.deepEqual(await counts(db), before_);
    } finally {
      await db.close();
    }
  });

  it('brings accounts, keys, invoices and the audit chain back after a wipe', async () => {
    rmSync(pgliteDirOf(dataDir), { recursive: true, force: true });
    await restoreBackup(file, pgliteDirOf(dataDir));
    assert.deepEqual(
      readdirSync(dataDir).filter((n) => n.includes('.replaced-') || n.includes('.restoring-')),
      [],
    );
    assert.equal(statSync(pgliteDirOf(dataDir)).mode & 0o777, 0o700);
    const db = await open();
    const t = await buildTestApp({ db });
    try {
      assert.deepEqual(await counts(db), before_);
      assert.equal(await verifyAuditChain(db), null);
      const res = await t.app.inject({
        url: LOOKUP,
        headers: { authorization: `Bearer ${apiKey}` },
      });
      assert.equal(res.statusCode, 200, res.body);
    } finally {
      await t.close();
      await db.close();
    }
  });

  it('replaces an existing database, the old folder removed once the restored one opened', async () => {
    const db = await open();
    await db.query("UPDATE accounts SET email = 'changed-' || email");
    await db.close();
    await restoreBackup(file, pgliteDirOf(dataDir));
    const again = await open();
    try {
      const [row] = await again.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM accounts WHERE email LIKE 'changed-%'",
      );
      assert.equal(row!.n, 0);
    } finally {
      await again.close();
    }
    assert.deepEqual(
      readdirSync(dataDir).filter((n) => n.startsWith('pglite.')),
      [],
    );
  });

  it('keeps the last N scheduled backups and never replaces one with a failed snapshot', async () => {
    const dir = join(backups, 'scheduled');
    const clock = new ManualClock('2026-11-20T03:00:00Z');
    const metrics = new Metrics({ defaultMetrics: false });
    const logger = pino({ level: 'silent' });
    const db = await open();
    try {
      const deps = { db, clock, logger, dir, keep: 2, release: () => '2026.11.1', metrics };
      for (let day = 0; day < 3; day++) {
        assert.equal(await backupOnce(deps), true);
        clock.advance(86_400_000);
      }
      const kept = readdirSync(dir).sort();
      assert.deepEqual(kept, [
        'salary-api-20261121T030000Z.backup',
        'salary-api-20261122T030000Z.backup',
      ]);
      const failing = { ...db, snapshot: () => Promise.reject(new Error('disk full')) };
      assert.equal(await backupOnce({ ...deps, db: failing }), false);
      assert.deepEqual(readdirSync(dir).sort(), kept);
      const text = await metrics.scrape();
      assert.match(text, /salary_api_backups_total\{result="ok"\} 3/);
      assert.match(text, /salary_api_backups_total\{result="failed"\} 1/);
    } finally {
      await db.close();
    }
  });
});
