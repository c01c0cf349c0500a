import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { listMigrations, migrate, openPostgres, type Db } from '../../src/store/index.js';
import { UsageRecorder } from '../../src/usage/index.js';
import { usageGrouped, USAGE_COLUMNS, type UsageColumn } from '../../src/usage/repo.js';
import { clonePglite, freshPostgres, postgresAvailable, type TestDb } from '../helpers/db.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** 21:00 UTC: the hours recorded run over midnight into the next UTC day. */
const START = Date.parse('2026-11-21T21:00:00Z');
const ACCOUNTS = ['acct_r1', 'acct_r2'];
const KEYS = ['', 'key_a', 'key_b', 'ocl_c'];
const ENDPOINTS = ['GET /api/v1/salary', 'GET /api/v1/countries', 'POST /api/v1/bulk/salary'];
const STATUSES = [200, 400, 429, 500];

/** A reproducible sequence of numbers in [0, n). */
function sequence(seed: number): (n: number) => number {
  let state = seed;
  return (n) => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state % n;
  };
}

type Row = Record<string, string | number>;
const sorted = (rows: Row[]) =>
  rows.map((r) => JSON.stringify(Object.values(r).map(String))).sort();

/** The rollups as stored, and as summed from usage_hourly: equal when the rollups are exact. */
async function rollupsAndHourlySums(db: Db) {
  const q = (sql: string) => db.query<Row>(sql).then(sorted);
  return {
    daily: await q(
      `SELECT account_id, (extract(epoch FROM day) * 1000)::bigint AS day, key_id, endpoint, status, count
       FROM usage_daily`,
    ),
    dailyFromHourly: await q(
      `SELECT account_id, (extract(epoch FROM date_trunc('day', hour, 'UTC')) * 1000)::bigint AS day,
         key_id, endpoint, status, sum(count) AS count
       FROM usage_hourly GROUP BY 1, 2, 3, 4, 5`,
    ),
    byColumn: await q(
      `SELECT account_id, column_name, (extract(epoch FROM hour) * 1000)::bigint AS hour, value, count
       FROM usage_hourly_by_column`,
    ),
    byColumnFromHourly: await q(
      USAGE_COLUMNS.map(
        (c) =>
          `SELECT account_id, '${c}' AS column_name, (extract(epoch FROM hour) * 1000)::bigint AS hour,
             ${c}::text AS value, sum(count) AS count
           FROM usage_hourly GROUP BY 1, 2, 3, 4`,
      ).join(' UNION ALL '),
    ),
  };
}

async function assertExact(db: Db): Promise<void> {
  const r = await rollupsAndHourlySums(db);
  assert.ok(r.daily.length > 0, 'there are day sums');
  assert.deepEqual(r.daily, r.dailyFromHourly, 'usage_daily holds the sums of usage_hourly');
  assert.deepEqual(
    r.byColumn,
    r.byColumnFromHourly,
    'usage_hourly_by_column holds the sums of usage_hourly',
  );
}

async function total(db: Db): Promise<number> {
  const [row] = await db.query<{ n: number | string | null }>(
    'SELECT sum(count) AS n FROM usage_hourly',
  );
  return Number(row?.n ?? 0);
}

function suite(name: string, open: () => Promise<TestDb & { second: () => Promise<Db> }>) {
  describe(`usage rollups on ${name}`, () => {
    let t: TestDb & { second: () => Promise<Db> };
    before(async () => {
      t = await open();
    });
    after(() => t?.cleanup());

    it('stay the exact sums of the hourly rows when two instances flush the same hours at once', async () => {
      const other = await t.second();
      const recorders = [new UsageRecorder(t.db), new UsageRecorder(other)];
      const next = sequence(7);
      let recorded = await total(t.db);
      try {
        for (let round = 0; round < 6; round++) {
          for (const recorder of recorders) {
            for (let i = 0; i < 400; i++) {
              const key = KEYS[next(KEYS.length)] as string;
              recorder.record(
                ACCOUNTS[next(ACCOUNTS.length)] as string,
                key === '' ? null : key,
                ENDPOINTS[next(ENDPOINTS.length)] as string,
                STATUSES[next(STATUSES.length)] as number,
                START + next(5) * HOUR + next(HOUR),
              );
              recorded++;
            }
          }
          await Promise.all(recorders.map((r) => r.flush()));
        }
      } finally {
        if (other !== t.db) await other.close();
      }
      assert.equal(await total(t.db), recorded, 'nothing lost or doubled');
      await assertExact(t.db);
    });

    it('reads every bucket and column shape as summed from the hourly rows', async () => {
      const hourly = await t.db.query<{
        account_id: string;
        key_id: string;
        endpoint: string;
        status: number;
        hour: Date | string;
        count: number | string;
      }>(`SELECT * FROM usage_hourly WHERE account_id = $1`, [ACCOUNTS[0]]);
      const from = Date.parse('2026-11-21T00:00:00Z');
      const to = from + 2 * DAY;
      const shapes: UsageColumn[][] = [[], ['status'], ['endpoint'], ['key_id']];
      shapes.push(['endpoint', 'status'], ['key_id', 'endpoint', 'status']);
      for (const step of ['hour', 'day'] as const) {
        for (const columns of shapes) {
          const expected = new Map<string, number>();
          for (const r of hourly) {
            const at = new Date(r.hour).getTime();
            const bucket = step === 'day' ? Math.floor(at / DAY) * DAY : at;
            const key = [
              bucket,
              columns.includes('key_id') ? r.key_id : '',
              columns.includes('endpoint') ? r.endpoint : '',
              columns.includes('status') ? r.status : 0,
            ].join('|');
            expected.set(key, (expected.get(key) ?? 0) + Number(r.count));
          }
          const rows = await usageGrouped(t.db, ACCOUNTS[0] as string, from, to, step, columns);
          const got = new Map(
            rows.map((r) => [[r.hour, r.keyId, r.endpoint, r.status].join('|'), r.count]),
          );
          assert.equal(got.size, rows.length, `${step} ${columns.join(',')}: one row per bucket`);
          assert.deepEqual(got, expected, `${step} by ${columns.join(',') || 'nothing'}`);
        }
      }
    });

    it('are filled from the hourly rows already written when migration 0016 runs', async () => {
      // The schema as before 0016, with hourly rows written by a version without rollups.
      await t.db.exec(`DROP TABLE usage_daily; DROP TABLE usage_hourly_by_column;
        DELETE FROM schema_migrations WHERE version = 16`);
      await t.db.query(
        `INSERT INTO usage_hourly (account_id, key_id, endpoint, status, hour, count)
         VALUES ('acct_old', 'key_old', 'GET /api/v1/salary', 200, '2026-10-01T23:00:00Z', 5),
                ('acct_old', 'key_old', 'GET /api/v1/salary', 200, '2026-10-02T00:00:00Z', 7),
                ('acct_old', '', 'GET /api/v1/salary', 404, '2026-10-02T00:00:00Z', 2)`,
      );
      const applied = await migrate(
        t.db,
        listMigrations().filter((m) => m.version <= 16),
      );
      assert.deepEqual(applied, ['0016_usage_rollups']);
      await assertExact(t.db);
      const days = await usageGrouped(
        t.db,
        'acct_old',
        Date.parse('2026-10-01T00:00:00Z'),
        Date.parse('2026-10-03T00:00:00Z'),
        'day',
        ['status'],
      );
      assert.deepEqual(
        days.map((r) => [new Date(r.hour).toISOString(), r.status, r.count]).sort(),
        [
          ['2026-10-01T00:00:00.000Z', 200, 5],
          ['2026-10-02T00:00:00.000Z', 200, 7],
          ['2026-10-02T00:00:00.000Z', 404, 2],
        ],
      );
    });
  });
}

suite('PGlite', async () => {
  const db = await clonePglite();
  // One embedded database per process: the second instance is a second recorder on it.
  return { ...db, second: async () => db.db };
});

if (await postgresAvailable()) {
  suite('PostgreSQL', async () => {
    const db = await freshPostgres();
    return { ...db, second: async () => openPostgres(db.url) };
  });
}
