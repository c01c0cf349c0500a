import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { accountOnPlan } from '../helpers/accounts.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { freshPostgres, postgresAvailable, type TestDb } from '../helpers/db.js';

const HALF_HOUR = 30 * 60_000;
const skip = (await postgresAvailable()) ? false : 'PostgreSQL is not available';

/**
 * Two instances on one fresh PostgreSQL database, each with its own clock set to the same
 * time, both running the export worker at every step.
 */
describe('export schedules: DST, catch-up, two instances', { skip }, () => {
  let pg: TestDb;
  let a: TestApp;
  let b: TestApp;
  let key: string;
  let exportId: string;
  const env = { OUTBOUND_ALLOW_PRIVATE_TARGETS: 'true' };

  before(async () => {
    pg = await freshPostgres();
    a = await buildTestApp({ db: pg.db, env, now: '2026-03-27T00:00:00Z' });
    b = await buildTestApp({ db: pg.db, env, now: '2026-03-27T00:00:00Z' });
    key = (await accountOnPlan(a, 'enterprise')).apiKey!;
    const res = await a.app.inject({
      method: 'POST',
      url: '/api/v1/exports',
      headers: { authorization: `Bearer ${key}` },
      payload: {
        name: 'weekly',
        // Sundays 02:30 in Berlin: a time that is skipped in March and repeated in October.
        schedule: '30 2 * * 0',
        timezone: 'Europe/Berlin',
        query: { kind: 'country', country: 'DE', years: 'current' },
        format: 'csv',
        // Nothing listens there: every attempt fails fast; the schedule is what is tested.
        destination: {
          type: 'sftp',
          host: '127.0.0.1',
          port: 1,
          username: 'nobody',
          password: 'secret',
          host_key_sha256: `SHA256:${'A'.repeat(43)}`,
          path: '/upload',
        },
      },
    });
    assert.equal(res.statusCode, 201, res.body);
    exportId = res.json<{ id: string; next_run_at: string }>().id;
    assert.equal(res.json<{ next_run_at: string }>().next_run_at, '2026-03-29T01:00:00.000Z');
  });
  after(async () => {
    await a?.close();
    await b?.close();
    await pg?.cleanup();
  });

  async function walk(from: string, to: string): Promise<void> {
    for (let t = Date.parse(from); t <= Date.parse(to); t += HALF_HOUR) {
      a.clock.set(t);
      b.clock.set(t);
      await Promise.all([a.exportWorker.runOnce(), b.exportWorker.runOnce()]);
    }
  }

  async function scheduled(): Promise<string[]> {
    const res = await a.app.inject({
      method: 'GET',
      url: `/api/v1/exports/${exportId}/runs`,
      headers: { authorization: `Bearer ${key}` },
    });
    return res
      .json<{ data: { scheduled_at: string; trigger: string }[] }>()
      .data.filter((r) => r.trigger === 'schedule')
      .map((r) => r.scheduled_at)
      .sort();
  }

  it('runs once on the spring-forward Sunday (02:30 does not exist: at 03:00 CEST)', async () => {
    await walk('2026-03-28T00:00:00Z', '2026-03-30T00:00:00Z');
    assert.deepEqual(await scheduled(), ['2026-03-29T01:00:00.000Z']);
  });

  it('after downtime over many occurrences, queues one catch-up run (the latest)', async () => {
    await walk('2026-10-24T00:00:00Z', '2026-10-24T00:00:00Z');
    assert.deepEqual(await scheduled(), ['2026-03-29T01:00:00.000Z', '2026-10-18T00:30:00.000Z']);
  });

  it('runs once on the fall-back Sunday (02:30 happens twice: the first)', async () => {
    await walk('2026-10-24T00:30:00Z', '2026-10-26T00:00:00Z');
    assert.deepEqual(await scheduled(), [
      '2026-03-29T01:00:00.000Z',
      '2026-10-18T00:30:00.000Z',
      '2026-10-25T00:30:00.000Z',
    ]);
  });

  it('each attempt was made by one instance: attempts never exceed the retry budget', async () => {
    const rows = await pg.db.query<{ attempts: number; status: string }>(
      'SELECT attempts, status FROM export_runs WHERE export_id = $1',
      [exportId],
    );
    assert.equal(rows.length, 3);
    for (const r of rows) assert.ok(r.attempts >= 1 && r.attempts <= 5, JSON.stringify(r));
  });
});
