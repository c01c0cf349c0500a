import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { MemoryRateLimiter, type LimitRule, type RateLimiter } from '../../src/limits/index.js';
import type { ManualClock } from '../../src/lib/clock.js';
import { accountOnPlan } from '../helpers/accounts.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';

const LOOKUP = '/api/v1/salary?country=DE&job=nurse&level=mid';

/** An in-process limiter whose every decision takes `delayMs` on the app's clock. */
class SlowLimiter implements RateLimiter {
  readonly #inner = new MemoryRateLimiter();
  delayMs = 0;
  constructor(private readonly clock: () => ManualClock) {}
  async spend(bucket: string, rules: readonly LimitRule[], now: number, cost?: number) {
    const clock = this.clock();
    clock.set(clock.now() + this.delayMs);
    return this.#inner.spend(bucket, rules, now, cost);
  }
  release(bucket: string, rules: readonly LimitRule[], now: number, cost?: number) {
    return this.#inner.release(bucket, rules, now, cost);
  }
  peek(bucket: string, rules: readonly LimitRule[], now: number) {
    return this.#inner.peek(bucket, rules, now);
  }
  close() {
    return this.#inner.close();
  }
}

describe('one request path: every request is answered by Fastify on node’s own server', () => {
  let t: TestApp;
  const limiter = new SlowLimiter(() => t.clock);
  before(async () => {
    t = await buildTestApp({ limiter });
  });
  after(() => t.close());

  it('the listening server has exactly node’s own connection listener', async () => {
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const listeners = t.app.server.listeners('connection');
    assert.equal(listeners.length, 1);
    assert.equal((listeners[0] as { name: string }).name, 'connectionListener');
    const { port } = t.app.server.address() as AddressInfo;
    const res = await fetch(`http://127.0.0.1:${port}${LOOKUP}`);
    assert.equal(res.status, 200);
    await res.arrayBuffer();
  });

  it('a served lookup that took 30 s or more counts as failed for the SLA, a quick one as served', async () => {
    const { accountId, apiKey } = await accountOnPlan(t, 'business');
    const authorization = `Bearer ${apiKey}`;
    const at = t.clock.now();
    limiter.delayMs = 0;
    const quick = await t.app.inject({ url: LOOKUP, headers: { authorization } });
    assert.equal(quick.statusCode, 200);
    limiter.delayMs = 31_000;
    const slow = await t.app.inject({ url: LOOKUP, headers: { authorization } });
    limiter.delayMs = 0;
    assert.equal(slow.statusCode, 200, 'the answer itself is served');
    const counts = [...t.sla.counter.pending(accountId).entries()];
    const total = counts.reduce(
      (sum, [, c]) => ({ served: sum.served + c.served, failed: sum.failed + c.failed }),
      { served: 0, failed: 0 },
    );
    assert.deepEqual(total, { served: 1, failed: 1 }, `counts since ${new Date(at).toISOString()}`);
  });

  it('a request arriving while the server stops gets a 503 problem with its request id', async () => {
    t.app.shutdown.refuse(t.app);
    const res = await t.app.inject({ url: LOOKUP });
    assert.equal(res.statusCode, 503);
    assert.equal(res.headers['retry-after'], '1');
    assert.equal(res.headers.connection, 'close');
    assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
    const body = res.json<{ code: string; request_id: string; retry_after: number }>();
    assert.equal(body.code, 'SHUTTING_DOWN');
    assert.equal(body.retry_after, 1);
    assert.equal(body.request_id, res.headers['x-request-id']);
    assert.match(body.request_id, /^req_/);
  });
});
