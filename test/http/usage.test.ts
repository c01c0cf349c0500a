import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { accountOnPlan } from '../helpers/accounts.js';

describe('usage counting', () => {
  let t: TestApp;
  let key: string;
  let session: string;
  before(async () => {
    t = await buildTestApp({ now: '2026-11-22T10:00:00Z' });
    const account = await accountOnPlan(t, 'developer');
    key = account.apiKey as string;
    session = account.session;
  });
  after(() => t.close());

  const get = (url: string, token = key) =>
    t.app.inject({ url, headers: { authorization: `Bearer ${token}` } });

  it('counts exactly the requests served, per endpoint, status and hour, across a flush', async () => {
    const served = { ok: 0, bad: 0, forbidden: 0 };
    for (let i = 0; i < 37; i++) {
      if (i === 20) await t.recorder.flush(); // half written, half still in memory
      if (i === 30) t.clock.set('2026-11-22T11:05:00Z');
      const res = await get('/api/v1/salary?country=FR&job=chef');
      assert.equal(res.statusCode, 200);
      served.ok++;
    }
    for (let i = 0; i < 5; i++) {
      assert.equal((await get('/api/v1/salary?country=ZZ&job=chef')).statusCode, 400);
      served.bad++;
    }
    for (let i = 0; i < 3; i++) {
      assert.equal((await get('/api/v1/salary?country=FR&job=chef&year=2020')).statusCode, 403);
      served.forbidden++;
    }
    await t.app.inject('/api/v1/countries'); // anonymous: not this account's

    const report = (await get('/api/v1/usage?granularity=hour', session)).json();
    assert.equal(
      report.by_endpoint['GET /api/v1/salary'],
      served.ok + served.bad + served.forbidden,
    );
    assert.equal(report.by_status['200'], served.ok);
    assert.equal(report.by_status['400'], served.bad);
    assert.equal(report.by_status['403'], served.forbidden);
    const hours = report.series.filter((s: { requests: number }) => s.requests > 0);
    assert.deepEqual(
      hours.map((s: { start: string; requests: number }) => [s.start, s.requests]),
      [
        ['2026-11-22T10:00:00.000Z', 30],
        ['2026-11-22T11:00:00.000Z', 7 + 5 + 3],
      ],
    );
    // Quota: refused requests (400, 403) used none; the earlier usage call did not count either.
    assert.equal(report.quota.limit, 10_000);
    assert.equal(report.quota.used, served.ok);
    assert.equal(report.quota.resets_at, '2026-11-23T00:00:00.000Z');

    await t.recorder.flush();
    const rows = await t.db.query<{ total: string | number }>(
      "SELECT sum(count) AS total FROM usage_hourly WHERE endpoint = 'GET /api/v1/salary'",
    );
    assert.equal(
      Number(rows[0]?.total),
      served.ok + served.bad + served.forbidden,
      'nothing lost or doubled by flushing',
    );
    const keyRow = await t.db.query<{ last_used_at: Date | null }>(
      'SELECT last_used_at FROM api_keys',
    );
    assert.ok(
      keyRow.some((r) => r.last_used_at !== null),
      'last use is recorded with the flush',
    );
  });

  it('refuses bad ranges with 400', async () => {
    assert.equal((await get('/api/v1/usage?from=2026-13-01', session)).statusCode, 400);
    assert.equal(
      (await get('/api/v1/usage?from=2026-11-10&to=2026-11-01', session)).statusCode,
      400,
    );
    assert.equal(
      (await get('/api/v1/usage?from=2025-01-01&to=2026-11-01', session)).statusCode,
      400,
    );
  });

  // Found by test/fuzz: days the database cannot hold were a 500, and an impossible day
  // (February 30) was read as March 2.
  for (const [query, reason] of [
    ['from=0000-01-01&to=0000-01-02', "'0000-01-01' is not between 1970-01-01 and 9999-12-30"],
    ['from=9999-12-30&to=9999-12-31', "'9999-12-31' is not between 1970-01-01 and 9999-12-30"],
    ['from=1969-12-31', "'1969-12-31' is not between 1970-01-01 and 9999-12-30"],
    ['from=2026-02-30', "'2026-02-30' is not a date (YYYY-MM-DD)"],
    ['to=2026-11-31', "'2026-11-31' is not a date (YYYY-MM-DD)"],
  ] as const) {
    it(`refuses ${query} with 400 naming the day`, async () => {
      const res = await get(`/api/v1/usage?${query}`, session);
      assert.equal(res.statusCode, 400, res.body);
      const body = res.json<{ code: string; invalid_params: { reason: string }[] }>();
      assert.equal(body.code, 'INVALID_PARAMETER');
      assert.equal(body.invalid_params[0]?.reason, reason);
    });
  }

  it('serves the earliest and latest days it accepts', async () => {
    for (const query of ['from=1970-01-01&to=1970-01-02', 'from=9999-12-29&to=9999-12-30']) {
      const res = await get(`/api/v1/usage?${query}`, session);
      assert.equal(res.statusCode, 200, `${query}: ${res.body}`);
    }
  });
});
