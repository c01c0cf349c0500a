import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { BUNDLED_RELEASE } from '../../src/config/index.js';
import { ManualClock } from '../../src/lib/clock.js';
import { ensureRelease } from '../../src/releases/index.js';
import {
  compareReleaseVersions,
  createReleaseService,
  type ReleaseService,
} from '../../src/releases/index.js';
import { openPostgres } from '../../src/store/index.js';
import { clonePglite, freshPostgres, postgresAvailable, type TestDb } from '../helpers/db.js';
import { writeReleaseVersion } from '../helpers/release-file.js';

describe('bundled release at start-up', { concurrency: 1 }, () => {
  let test: TestDb;
  let releases: ReleaseService;
  const dir = mkdtempSync(join(tmpdir(), 'salary-api-ensure-'));
  const logger = pino({ level: 'silent' });
  const events = async () =>
    (
      await test.db.query<{ type: string; data: unknown }>(
        "SELECT type, data FROM events WHERE type = 'data.updated' ORDER BY created_at, id",
      )
    ).map(
      (r) =>
        (typeof r.data === 'string' ? JSON.parse(r.data) : r.data) as {
          release: string;
          previous_release: string | null;
        },
    );
  before(async () => {
    test = await clonePglite();
    releases = createReleaseService({
      db: test.db,
      clock: new ManualClock('2026-11-23T09:00:00Z'),
    });
  });
  after(async () => {
    await test?.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  it('leaves the active release alone when the bundled one is the same version', async () => {
    const before = await events();
    await ensureRelease(releases, BUNDLED_RELEASE, logger);
    assert.deepEqual(await events(), before);
  });

  it('loads a newer bundled release and records its data.updated event', async () => {
    const active = await releases.activeVersion();
    assert.ok(active);
    await ensureRelease(
      releases,
      writeReleaseVersion(join(dir, 'next.jsonl.gz'), '2027.01.1'),
      logger,
    );
    assert.equal(await releases.activeVersion(), '2027.01.1');
    const last = (await events()).find((e) => e.release === '2027.01.1');
    assert.equal(last?.release, '2027.01.1');
    assert.equal(last?.previous_release, active);
  });

  it('ignores an older bundled release and an unreadable file', async () => {
    const count = (await events()).length;
    await ensureRelease(
      releases,
      writeReleaseVersion(join(dir, 'old.jsonl.gz'), '2026.12.9'),
      logger,
    );
    await ensureRelease(releases, join(dir, 'missing.jsonl.gz'), logger);
    assert.equal(await releases.activeVersion(), '2027.01.1');
    assert.equal((await events()).length, count);
  });

  it('orders versions by year, month and number', () => {
    assert.ok(compareReleaseVersions('2026.11.2', '2026.11.1') > 0);
    assert.ok(compareReleaseVersions('2026.2.1', '2026.11.1') < 0);
    assert.ok(compareReleaseVersions('2027.01.1', '2026.12.9') > 0);
    assert.equal(compareReleaseVersions('2026.11.2-webhook-test', '2026.11.2'), 0);
    assert.equal(compareReleaseVersions('next', '2026.11.2'), 0);
  });
});

describe('bundled release on an empty PostgreSQL database, two instances starting at once', () => {
  it('loads it once; the instance that lost the race serves the winner’s', async (t) => {
    if (!(await postgresAvailable())) return t.skip('PostgreSQL not reachable');
    const test = await freshPostgres();
    const second = openPostgres(test.url);
    try {
      const clock = new ManualClock('2026-11-23T09:00:00Z');
      const logger = pino({ level: 'silent' });
      const a = createReleaseService({ db: test.db, clock });
      const b = createReleaseService({ db: second, clock });
      assert.equal(await a.activeVersion(), undefined);
      await Promise.all([
        ensureRelease(a, BUNDLED_RELEASE, logger),
        ensureRelease(b, BUNDLED_RELEASE, logger),
      ]);
      const rows = await test.db.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM data_releases',
      );
      assert.equal(rows[0]?.n, 1);
      assert.equal(await b.activeVersion(), await a.activeVersion());
    } finally {
      await second.close();
      await test.cleanup();
    }
  });
});
