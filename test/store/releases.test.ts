import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { BUNDLED_RELEASE } from '../../src/config/index.js';
import { ManualClock } from '../../src/lib/clock.js';
import {
  createReleaseService,
  parseRelease,
  ReleaseConflictError,
  ReleaseValidationError,
  type ReleaseService,
} from '../../src/releases/index.js';
import { SalaryDataStore } from '../../src/salary/index.js';
import { migrate, type Db } from '../../src/store/index.js';
import { clonePglite, freshPostgres, postgresAvailable, type TestDb } from '../helpers/db.js';

const bundledText = gunzipSync(readFileSync(BUNDLED_RELEASE)).toString('utf8');

/** A variant of the bundled release: new version, DE nurse figures raised by 1 %. */
function nextRelease(version = '2026.12.1'): string {
  const lines = bundledText.trimEnd().split('\n');
  const header = JSON.parse(lines[0]!);
  header.version = version;
  const out = [JSON.stringify(header)];
  for (const line of lines.slice(1)) {
    const r = JSON.parse(line);
    if (r.country === 'DE' && r.job === 'nurse') {
      for (const k of ['p10', 'p25', 'median', 'p75', 'p90', 'mean'])
        r[k] = Math.round(r[k] * 1.01);
    }
    out.push(JSON.stringify(r));
  }
  return out.join('\n') + '\n';
}

function withLine(lineNo: number, edit: (record: Record<string, unknown>) => void): string {
  const lines = bundledText.trimEnd().split('\n');
  const record = JSON.parse(lines[lineNo - 1]!);
  edit(record);
  lines[lineNo - 1] = JSON.stringify(record);
  return lines.join('\n') + '\n';
}

const backends: { name: string; open: () => Promise<TestDb>; enabled: () => Promise<boolean> }[] = [
  { name: 'PGlite', open: clonePglite, enabled: async () => true },
  { name: 'PostgreSQL', open: freshPostgres, enabled: postgresAvailable },
];

for (const backend of backends) {
  describe(`data releases on ${backend.name}`, async () => {
    const enabled = await backend.enabled();
    let test: TestDb;
    let db: Db;
    let releases: ReleaseService;
    const clock = new ManualClock('2026-11-22T09:00:00Z');
    before(async () => {
      if (!enabled) return;
      test = await backend.open();
      db = test.db;
      releases = createReleaseService({ db, clock });
      if ((await releases.activeId()) === undefined) await releases.load(parseRelease(bundledText));
    });
    after(() => test?.cleanup());

    it('migrations are idempotent', { skip: !enabled && 'no PostgreSQL reachable' }, async () => {
      assert.deepEqual(await migrate(db), []);
      const rows = await db.query<{ version: number }>('SELECT version FROM schema_migrations');
      assert.ok(rows.length >= 1);
    });

    it(
      'holds the bundled release completely',
      { skip: !enabled && 'no PostgreSQL reachable' },
      async () => {
        const active = await releases.active();
        assert.equal(active?.release.version, '2026.11.8');
        assert.equal(active?.records.length, 29_484);
        const original = JSON.parse(bundledText.split('\n')[1]!);
        const stored = active?.records.find(
          (r) =>
            r.country === original.country &&
            r.job === original.job &&
            r.level === original.level &&
            r.year === original.year,
        );
        assert.deepEqual(stored, original);
      },
    );

    it(
      'loads a new release with one data.updated event naming what changed',
      { skip: !enabled && 'no PostgreSQL reachable' },
      async () => {
        const countEvents = async () =>
          (
            await db.query<{ n: number | string }>(
              "SELECT count(*) AS n FROM events WHERE type = 'data.updated'",
            )
          )[0]?.n;
        const before = Number(await countEvents());
        const result = await releases.load(parseRelease(nextRelease()));
        assert.equal(Number(await countEvents()), before + 1);
        assert.equal(result.release.version, '2026.12.1');
        assert.equal(result.event.previous_release, '2026.11.8');
        assert.deepEqual(result.event.countries, ['DE']);
        assert.deepEqual(result.event.jobs, ['nurse']);
        assert.equal(result.event.records.changed, 4 * 13);
        assert.equal(result.event.records.added, 0);
        assert.equal(result.event.years.length, 13);
        // By id: the events' times come from two clocks here (the shared template was loaded
        // with the system clock, this test's with a manual one), so "latest" proves nothing.
        const events = await db.query<{ id: string; type: string; data: unknown }>(
          'SELECT id, type, data FROM events WHERE id = $1',
          [result.eventId],
        );
        assert.equal(events[0]?.type, 'data.updated');
        const data =
          typeof events[0]?.data === 'string' ? JSON.parse(events[0].data) : events[0]?.data;
        assert.equal(data.release, '2026.12.1');
        assert.equal(await releases.activeId(), result.release.id);
      },
    );

    it(
      'refuses a version that is already loaded, writing nothing',
      { skip: !enabled && 'no PostgreSQL reachable' },
      async () => {
        const before = await db.query('SELECT id FROM events');
        await assert.rejects(releases.load(parseRelease(nextRelease())), ReleaseConflictError);
        assert.equal((await db.query('SELECT id FROM events')).length, before.length);
      },
    );

    it(
      'rolls back everything when a write fails midway',
      { skip: !enabled && 'no PostgreSQL reachable' },
      async () => {
        const activeBefore = await releases.activeId();
        const parsed = parseRelease(nextRelease('2026.12.2'));
        // Sabotage after validation: a record the database's constraints reject (duplicate key).
        parsed.records.push({ ...parsed.records[0]! });
        await assert.rejects(releases.load(parsed));
        assert.equal(await releases.activeId(), activeBefore);
        const rows = await db.query("SELECT 1 FROM data_releases WHERE version = '2026.12.2'");
        assert.equal(rows.length, 0);
      },
    );

    it(
      'the in-memory index picks up a release loaded elsewhere on refresh',
      { skip: !enabled && 'no PostgreSQL reachable' },
      async () => {
        const store = new SalaryDataStore(releases, pino({ level: 'silent' }));
        await store.refresh();
        const before = store.index!.cell('DE', 'nurse', 2024)[0]!.median;
        // Another process (the CLI, another instance) loads a release.
        const other = createReleaseService({ db, clock });
        await other.load(parseRelease(nextRelease('2026.12.3')));
        assert.equal(await store.refresh(), true);
        assert.equal(store.index!.release.version, '2026.12.3');
        assert.equal(store.index!.cell('DE', 'nurse', 2024)[0]!.median, before);
        assert.equal(await store.refresh(), false, 'no rebuild when nothing changed');
      },
    );

    it(
      'older releases are held in memory once read, the least recently asked one let go',
      { skip: !enabled && 'no PostgreSQL reachable' },
      async () => {
        for (let n = 20; (await releases.list()).length < 4; n++)
          await releases.load(parseRelease(nextRelease(`2026.12.${n}`)));
        const store = new SalaryDataStore(releases, pino({ level: 'silent' }));
        await store.refresh();
        const [active, a, b, c] = store.kept;
        assert.equal(store.held(active!), store.index, 'the active release is always held');
        assert.equal(store.held(a!), undefined, 'an older release is not held before it is read');
        const readA = await store.vintage(a!);
        assert.equal(readA.release.id, a!.id);
        assert.equal(store.held(a!), readA);
        const readB = await store.vintage(b!);
        assert.equal(store.held(b!), readB);
        // Asking for a again makes it the most recently used: reading a third lets b go.
        assert.equal(store.held(a!), readA);
        await store.vintage(c!);
        assert.equal(store.held(b!), undefined);
        assert.equal(store.held(a!), readA);
        assert.equal(await store.vintage(a!), readA, 'held: not read again');
      },
    );
  });
}

describe('release validation', () => {
  it('accepts the bundled release', () => {
    assert.equal(parseRelease(bundledText).records.length, 29_484);
  });

  const cases: { name: string; text: () => string; expect: RegExp }[] = [
    {
      name: 'wrong type',
      text: () => withLine(5, (r) => (r.median = 'high')),
      expect: /line 5: field "median"/,
    },
    {
      name: 'unknown country',
      text: () => withLine(7, (r) => (r.country = 'XX')),
      expect: /line 7: field "country": unknown country XX/,
    },
    {
      name: 'unknown job',
      text: () => withLine(8, (r) => (r.job = 'astronaut')),
      expect: /line 8: field "job": unknown job/,
    },
    {
      name: 'unordered percentiles',
      text: () => withLine(9, (r) => (r.p25 = 10_000_000)),
      expect: /line 9: fields p10…p90/,
    },
    {
      name: 'extra field',
      text: () => withLine(10, (r) => (r.bonus = 1)),
      expect: /line 10: field/,
    },
    {
      name: 'wrong currency for the year',
      text: () => withLine(11, (r) => (r.local_currency = 'USD')),
      expect: /line 11: field "local_currency"/,
    },
    {
      name: 'broken JSON',
      text: () => bundledText.replace(/\n\{"type":"salary"/, '\n{"type":"salary",,'),
      expect: /line 2: not valid JSON/,
    },
    {
      name: 'missing record',
      text: () =>
        bundledText
          .split('\n')
          .filter((_, i) => i !== 3)
          .join('\n'),
      expect: /record_count/,
    },
    {
      name: 'bad header',
      text: () => bundledText.replace('"format":"salary-release/1"', '"format":"csv"'),
      expect: /line 1: header "format"/,
    },
    { name: 'empty file', text: () => '', expect: /line 1/ },
  ];
  for (const c of cases) {
    it(`rejects ${c.name}, saying where`, () => {
      assert.throws(
        () => parseRelease(c.text()),
        (error: unknown) => error instanceof ReleaseValidationError && c.expect.test(error.message),
      );
    });
  }
});
