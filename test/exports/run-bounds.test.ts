import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ENTERPRISE_CONTRACT, accountOnPlan } from '../helpers/accounts.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { listenHttp, type HttpCall } from '../helpers/http.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const LIMIT = 3;
const LOOKUP = '/api/v1/salary?country=DE&job=software-engineer';

describe('export runs spend the quota and are bounded', () => {
  let t: TestApp;
  let call: HttpCall;
  let receiver: Receiver;

  before(async () => {
    t = await buildTestApp({
      env: { OUTBOUND_ALLOW_PRIVATE_TARGETS: 'true' },
      now: '2026-11-22T10:15:00Z',
    });
    ({ call } = await listenHttp(t));
    receiver = await startReceiver();
  });
  after(async () => {
    await receiver.close();
    await t.close();
  });

  /** An Enterprise account whose contract allows LIMIT requests a day. */
  const limitedKey = async () =>
    (await accountOnPlan(t, 'enterprise', { ...ENTERPRISE_CONTRACT, request_limit: LIMIT }))
      .apiKey!;

  const createExport = async (key: string, over: Record<string, unknown> = {}) => {
    const res = await call('POST', '/api/v1/exports', {
      token: key,
      body: {
        name: 'bounded',
        schedule: '0 6 * * 1',
        query: { kind: 'country', country: 'DE', years: 'current' },
        format: 'csv',
        destination: { type: 'webhook', url: receiver.url },
        ...over,
      },
    });
    assert.equal(res.status, 201, res.body);
    return res.json().id as string;
  };

  const spend = async (key: string, n: number) => {
    for (let i = 0; i < n; i++)
      assert.equal((await call('GET', LOOKUP, { token: key })).status, 200, `lookup ${i + 1}`);
  };

  it('run-now with the quota spent is 429 with Retry-After, and nothing is queued or delivered', async () => {
    const key = await limitedKey();
    const id = await createExport(key);
    await spend(key, LIMIT);
    assert.equal((await call('GET', LOOKUP, { token: key })).status, 429);
    const before = receiver.received.length;
    const res = await call('POST', `/api/v1/exports/${id}/run`, { token: key });
    assert.equal(res.status, 429, res.body);
    assert.equal(res.json().code, 'RATE_LIMITED');
    assert.ok(Number(res.headers.get('retry-after')) > 0);
    assert.match(res.headers.get('content-type') ?? '', /problem\+json/);
    await t.exportWorker.runOnce();
    const runs = (await call('GET', `/api/v1/exports/${id}/runs`, { token: key })).json();
    assert.deepEqual(runs.data, []);
    assert.equal(receiver.received.length, before);
  });

  it('a manual run counts as one bulk request: the lookup after it is refused', async () => {
    const key = await limitedKey();
    const id = await createExport(key);
    await spend(key, LIMIT - 1);
    const res = await call('POST', `/api/v1/exports/${id}/run`, { token: key });
    assert.equal(res.status, 202, res.body);
    assert.equal((await call('GET', LOOKUP, { token: key })).status, 429);
    await t.exportWorker.runOnce();
    const run = (await call('GET', `/api/v1/exports/runs/${res.json().id}`, { token: key })).json();
    assert.equal(run.status, 'succeeded', run.error);
  });

  it('a second run-now while one is queued is 409 naming the queued run', async () => {
    const key = (await accountOnPlan(t, 'enterprise')).apiKey!;
    const id = await createExport(key);
    const first = await call('POST', `/api/v1/exports/${id}/run`, { token: key });
    assert.equal(first.status, 202, first.body);
    const second = await call('POST', `/api/v1/exports/${id}/run`, { token: key });
    assert.equal(second.status, 409, second.body);
    assert.equal(second.json().run_id, first.json().id);
    // Both at once: one is queued, the other refused.
    await t.exportWorker.runOnce();
    const both = await Promise.all([
      call('POST', `/api/v1/exports/${id}/run`, { token: key }),
      call('POST', `/api/v1/exports/${id}/run`, { token: key }),
    ]);
    assert.deepEqual(both.map((r) => r.status).sort(), [202, 409]);
    await t.exportWorker.runOnce();
    assert.equal((await call('POST', `/api/v1/exports/${id}/run`, { token: key })).status, 202);
  });

  it('a run-now refused 409 spends nothing: the quota it left is still there', async () => {
    const key = await limitedKey();
    const id = await createExport(key);
    await spend(key, LIMIT - 2);
    const first = await call('POST', `/api/v1/exports/${id}/run`, { token: key });
    assert.equal(first.status, 202, first.body);
    for (let i = 0; i < 3; i++) {
      const refused = await call('POST', `/api/v1/exports/${id}/run`, { token: key });
      assert.equal(refused.status, 409, refused.body);
    }
    // LIMIT - 2 lookups and one run spent: one request of the day is left.
    assert.equal((await call('GET', LOOKUP, { token: key })).status, 200);
    assert.equal((await call('GET', LOOKUP, { token: key })).status, 429);
    await t.exportWorker.runOnce();
  });

  it('a schedule more often than hourly is 400 naming the minimum, on creation and change', async () => {
    const key = (await accountOnPlan(t, 'enterprise')).apiKey!;
    for (const schedule of ['* * * * *', '*/30 * * * *', '0,30 6 * * *']) {
      const res = await call('POST', '/api/v1/exports', {
        token: key,
        body: {
          name: 'too often',
          schedule,
          query: { kind: 'archive', years: 'all' },
          format: 'csv',
          destination: { type: 'webhook', url: receiver.url },
        },
      });
      assert.equal(res.status, 400, `${schedule}: ${res.body}`);
      const problem = res.json();
      assert.equal(problem.invalid_params[0].name, 'schedule');
      assert.match(problem.invalid_params[0].reason, /minimum interval is 1 hour/);
    }
    const id = await createExport(key, { schedule: '0 * * * *' });
    const res = await call('PATCH', `/api/v1/exports/${id}`, {
      token: key,
      body: { schedule: '* * * * *' },
    });
    assert.equal(res.status, 400, res.body);
  });

  it('a scheduled run with the quota spent fails with quota_exceeded, sends export.failed, and the next occurrence runs', async () => {
    const key = await limitedKey();
    const id = await createExport(key, { schedule: '0 * * * *' });
    await spend(key, LIMIT);
    const before = receiver.received.length;
    t.clock.advance(HOUR);
    await t.exportWorker.runOnce();
    const [failed] = (await call('GET', `/api/v1/exports/${id}/runs`, { token: key })).json().data;
    assert.equal(failed.status, 'failed');
    assert.equal(failed.trigger, 'schedule');
    assert.match(failed.error, /^quota_exceeded: /);
    const sent = receiver.received
      .slice(before)
      .map((r) => JSON.parse(r.body))
      .filter((e) => e.data.export_id === id);
    assert.deepEqual(
      sent.map((e) => e.type),
      ['export.failed'],
    );
    assert.match(sent[0].data.error, /^quota_exceeded/);
    // The next day's occurrence finds the quota reset and delivers.
    t.clock.advance(DAY);
    await t.exportWorker.runOnce();
    const [next] = (await call('GET', `/api/v1/exports/${id}/runs`, { token: key })).json().data;
    assert.equal(next.status, 'succeeded', next.error);
    assert.notEqual(next.id, failed.id);
  });
});
