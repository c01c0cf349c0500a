import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { LOOKUP_AUTH } from '../../src/salary/routes.js';
import { admittedFromUsage } from '../../src/usage/index.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';

const DAY_MS = 86_400_000;

/**
 * The Redis limiter's reconciliation floor weighs the usage rows by the costs the routes
 * declare (`config.quota`), read from the routes as the app registers them: no second list of
 * the endpoints that spend quota.
 */
describe('the limiter floor from usage, weighted by the routes’ declared costs', () => {
  let t: TestApp;

  before(async () => {
    t = await buildTestApp({
      routes: (app) =>
        app.get(
          '/api/v1/test/costly',
          { config: { auth: LOOKUP_AUTH, quota: { cost: 3 } } },
          async () => ({ ok: true }),
        ),
    });
  });
  after(() => t?.close());

  it('knows every route’s cost from its declaration, parametric routes by their pattern', () => {
    const cost = (endpoint: string) => t.quotaEndpoints.costOf(endpoint);
    assert.equal(cost('GET /api/v1/salary'), 1);
    assert.equal(cost('GET /api/v1/bulk/archive'), 1);
    assert.equal(cost('GET /api/v1/countries'), 1);
    assert.equal(cost('GET /api/v1/test/costly'), 3);
    // A custom endpoint is recorded under its slug; its OpenAPI document is a static route
    // that spends nothing, and wins over the pattern as it does in the router.
    assert.equal(cost('GET /api/v1/custom/gross-by-country'), 1);
    assert.equal(cost('GET /api/v1/custom/openapi.json'), 0);
    assert.equal(cost('GET /api/v1/custom/a/b'), 0);
    assert.equal(cost('GET /api/v1/usage'), 0);
    assert.equal(cost('POST /api/v1/keys'), 0);
    assert.equal(cost('GET (unmatched)'), 0);
  });

  it('sums the answered requests’ units, written and pending, and leaves out the rest', async () => {
    const account = 'acct_floor_test';
    const now = t.clock.now();
    const record = (endpoint: string, status: number, times: number) => {
      for (let i = 0; i < times; i++) t.recorder.record(account, 'key_x', endpoint, status, now);
    };
    record('GET /api/v1/salary', 200, 5);
    record('GET /api/v1/custom/gross-by-country', 200, 2);
    record('GET /api/v1/test/costly', 200, 2);
    record('GET /api/v1/custom/openapi.json', 200, 4);
    record('GET /api/v1/usage', 200, 7);
    record('GET /api/v1/salary', 429, 9);
    record('GET /api/v1/salary', 404, 3);
    await t.recorder.flush();
    // Counted on this instance, not written yet.
    record('GET /api/v1/salary', 200, 1);
    record('GET /api/v1/test/costly', 200, 1);

    const floor = admittedFromUsage(t.db, t.recorder, t.quotaEndpoints);
    const day = { name: 'daily', limit: 1000, windowMs: DAY_MS };
    const windowStart = Math.floor(now / DAY_MS) * DAY_MS;
    // 5 + 2 + 2 × 3 written, 1 + 3 pending; the others spend nothing or were refused.
    assert.equal(await floor(`acct:${account}`, day, windowStart), 17);
    assert.equal(await floor(`acct:${account}`, day, windowStart - DAY_MS), 0);
    assert.equal(await floor('addr:127.0.0.1', day, windowStart), 0);
  });
});
