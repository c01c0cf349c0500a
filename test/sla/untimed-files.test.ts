// Files built on demand whose size the caller chooses are judged by their status alone: a bulk
// answer that took the server 30 s or more is served, a lookup that took as long failed
// (docs/sla.md, rule 2). Real HTTP; the server's time is made long on its injected clock by a
// limiter whose every decision moves the clock.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MemoryRateLimiter, type LimitRule, type RateLimiter } from '../../src/limits/index.js';
import type { ManualClock } from '../../src/lib/clock.js';
import { FAILED_AFTER_MS } from '../../src/sla/measure.js';
import { accountOnPlan } from '../helpers/accounts.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { listenHttp, type HttpCall } from '../helpers/http.js';

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

describe('SLA: files built on demand are judged by their status alone', () => {
  let t: TestApp;
  let call: HttpCall;
  let account: { accountId: string; apiKey: string | null };
  const limiter = new SlowLimiter(() => t.clock);

  before(async () => {
    // Counts stay in memory (pending) for the whole test: no flush.
    t = await buildTestApp({
      now: '2026-11-22T10:01:00Z',
      env: { USAGE_FLUSH_SECONDS: '3600' },
      limiter,
    });
    // Business: a plan with a request limit, so every request passes the (slow) limiter.
    account = await accountOnPlan(t, 'business');
    ({ call } = await listenHttp(t));
  });
  after(() => t.close());

  const total = () =>
    [...t.sla.counter.pending(account.accountId).values()].reduce(
      (sum, c) => ({
        served: sum.served + c.served,
        failed: sum.failed + c.failed,
        refused: sum.refused + c.refused,
      }),
      { served: 0, failed: 0, refused: 0 },
    );

  async function slowly(path: string): Promise<number> {
    limiter.delayMs = FAILED_AFTER_MS + 1_000;
    try {
      const res = await call('GET', path, { token: account.apiKey! });
      return res.status;
    } finally {
      limiter.delayMs = 0;
    }
  }

  it('a bulk file the server took over 30 s to answer is served, not failed', async () => {
    const before = total();
    const status = await slowly('/api/v1/bulk/archive?format=xlsx&year=2025');
    assert.equal(status, 200);
    const now = total();
    assert.deepEqual(
      { served: now.served - before.served, failed: now.failed - before.failed },
      { served: 1, failed: 0 },
    );
  });

  it('a lookup the server took over 30 s to answer still counts as failed', async () => {
    const before = total();
    const status = await slowly('/api/v1/salary?country=DE&job=nurse&level=mid');
    assert.equal(status, 200);
    const now = total();
    assert.deepEqual(
      { served: now.served - before.served, failed: now.failed - before.failed },
      { served: 0, failed: 1 },
    );
  });
});
