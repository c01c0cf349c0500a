import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { BUNDLED_RELEASE, loadConfig } from '../../src/config/index.js';
import { ManualClock } from '../../src/lib/clock.js';
import { imageFor, openConfiguredDatabase } from '../../src/main/cli-database.js';
import { ensureRelease } from '../../src/releases/index.js';
import { createReleaseService } from '../../src/releases/index.js';
import {
  findDataImage,
  listMigrations,
  migrate,
  openPglite,
  pgliteVersion,
  sha256File,
  writeDataImage,
  type ImageManifest,
} from '../../src/store/index.js';
import { clonePglite } from '../helpers/db.js';
import { writeReleaseVersion } from '../helpers/release-file.js';

const quiet = pino({ level: 'silent' });

describe('the prepared database image', () => {
  const work = mkdtempSync(join(tmpdir(), 'salary-api-image-'));
  const imageDir = join(work, 'image');
  let manifest: ImageManifest;
  before(async () => {
    // The image as the build makes it: a prepared database (the tests' template) dumped.
    const prepared = await clonePglite();
    manifest = {
      pglite: pgliteVersion(),
      migrations: listMigrations().map((m) => m.version),
      release: { version: '2026.11.8', sha256: sha256File(BUNDLED_RELEASE) },
      inputs: 'test',
    };
    mkdirSync(imageDir);
    await writeDataImage(prepared.db, manifest, imageDir);
    await prepared.cleanup();
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  const rewriteManifest = (edit: (m: ImageManifest) => ImageManifest): string => {
    const dir = mkdtempSync(join(work, 'variant-'));
    writeFileSync(join(dir, 'pglite-image.json'), JSON.stringify(edit(manifest)));
    writeFileSync(
      join(dir, 'pglite-image.tar.gz'),
      readFileSync(join(imageDir, 'pglite-image.tar.gz')),
    );
    return dir;
  };

  it('is found only when this PGlite wrote it and every migration in it is known here', () => {
    assert.deepEqual(findDataImage(imageDir)?.manifest, manifest);
    assert.equal(findDataImage(join(work, 'nowhere')), undefined);
    const otherPglite = rewriteManifest((m) => ({ ...m, pglite: '0.0.1' }));
    assert.equal(findDataImage(otherPglite), undefined);
    const unknownMigration = rewriteManifest((m) => ({
      ...m,
      migrations: [...m.migrations, 9999],
    }));
    assert.equal(findDataImage(unknownMigration), undefined);
    // An image older than the code (a migration since) is used; the start applies the rest.
    const older = rewriteManifest((m) => ({ ...m, migrations: m.migrations.slice(0, -1) }));
    assert.ok(findDataImage(older));
  });

  it('seeds a database for its own release or an older one than configured, never a newer', async () => {
    assert.ok(await imageFor(BUNDLED_RELEASE, imageDir));
    const newer = writeReleaseVersion(join(work, 'newer.jsonl.gz'), '2026.12.1');
    assert.ok(await imageFor(newer, imageDir));
    const older = writeReleaseVersion(join(work, 'older.jsonl.gz'), '2026.10.1');
    assert.equal(await imageFor(older, imageDir), undefined);
  });

  it('unpacks into a new data directory once, dated now, and opens it as is afterwards', async () => {
    const dataDir = join(work, 'data');
    const now = Date.parse('2027-01-15T09:30:00Z');
    const config = { ...loadConfig({}), dataDir, databaseUrl: undefined };
    const open = () =>
      openConfiguredDatabase(config, quiet, 'test', { clock: new ManualClock(now), imageDir });
    const db = await open();
    try {
      // Every bundled release is kept, the newest active; all of them dated now.
      const releases_ = await db.query<{ version: string; loaded_at: Date }>(
        'SELECT version, loaded_at FROM data_releases ORDER BY id DESC',
      );
      assert.deepEqual(
        releases_.map((r) => r.version),
        ['2026.11.8', '2026.11.7', '2026.11.6'],
      );
      for (const release of releases_) assert.equal(new Date(release.loaded_at).getTime(), now);
      const events = await db.query<{ created_at: Date; data: { loaded_at: string } }>(
        "SELECT created_at, data FROM events WHERE type = 'data.updated'",
      );
      assert.equal(events.length, 3);
      for (const event of events) {
        assert.equal(new Date(event.created_at).getTime(), now);
        assert.equal(event.data.loaded_at, new Date(now).toISOString());
      }
      const [{ count }] = (await db.query<{ count: number }>(
        'SELECT count(*)::int AS count FROM salary_records',
      )) as [{ count: number }];
      assert.equal(count, 3 * 29_484);
      assert.deepEqual(await migrate(db), []);
      // Later starts see the bundled file is the active release without parsing it.
      const releases = createReleaseService({ db, clock: new ManualClock(now) });
      assert.equal(await releases.isActive(BUNDLED_RELEASE), true);
      const other = writeReleaseVersion(join(work, 'other.jsonl.gz'), '2026.11.9');
      assert.equal(await releases.isActive(other), false);
      assert.equal(await releases.isActive(join(work, 'missing.jsonl.gz')), false);
    } finally {
      await db.close();
    }
    // A second open finds the directory and changes nothing in it.
    const later = await openPglite(join(dataDir, 'pglite'), {
      image: () => Promise.reject(new Error('the image is not read again')),
    });
    try {
      const rows = await later.query<{ loaded_at: Date }>(
        'SELECT loaded_at FROM data_releases ORDER BY id DESC',
      );
      assert.equal(new Date(rows[0]!.loaded_at).getTime(), now);
    } finally {
      await later.close();
    }
  });

  it('leaves a newer configured release to the start, which loads and announces it', async () => {
    const dataDir = join(work, 'data-newer');
    const newer = writeReleaseVersion(join(work, 'newer2.jsonl.gz'), '2026.12.2');
    const now = Date.parse('2027-02-01T08:00:00Z');
    const config = { ...loadConfig({}), dataDir, databaseUrl: undefined, releaseFile: newer };
    const clock = new ManualClock(now);
    const db = await openConfiguredDatabase(config, quiet, 'test', { clock, imageDir });
    try {
      const releases = createReleaseService({ db, clock });
      assert.equal(await releases.activeVersion(), '2026.11.8');
      await ensureRelease(releases, newer, quiet);
      assert.equal(await releases.activeVersion(), '2026.12.2');
      const events = await db.query<{ created_at: Date; data: { release: string } }>(
        "SELECT created_at, data FROM events WHERE type = 'data.updated' ORDER BY data->>'release'",
      );
      assert.deepEqual(
        events.map((e) => e.data.release),
        ['2026.11.6', '2026.11.7', '2026.11.8', '2026.12.2'],
      );
      assert.equal(new Date(events[2]!.created_at).getTime(), now);
    } finally {
      await db.close();
    }
  });
});
