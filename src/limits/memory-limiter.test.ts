import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DAY_MS, HOUR_MS, type LimitRule } from './limiter.js';
import { MemoryRateLimiter } from './memory-limiter.js';

const hourly: LimitRule = { name: 'hour', limit: 3, windowMs: HOUR_MS };
const daily: LimitRule = { name: 'day', limit: 5, windowMs: DAY_MS };
const at = (iso: string) => Date.parse(iso);

describe('MemoryRateLimiter', () => {
  it('aligns windows to the UTC calendar: the day ends at midnight UTC', () => {
    const limiter = new MemoryRateLimiter();
    const rule: LimitRule = { name: 'd', limit: 1, windowMs: DAY_MS };
    assert.equal(limiter.consumeSync('a', [rule], at('2026-11-22T23:59:59.000Z')).allowed, true);
    const refused = limiter.consumeSync('a', [rule], at('2026-11-22T23:59:59.999Z'));
    assert.equal(refused.allowed, false);
    assert.equal(refused.retryAfterSeconds, 1);
    assert.equal(refused.states[0]?.resetAt, at('2026-11-23T00:00:00Z'));
    assert.equal(limiter.consumeSync('a', [rule], at('2026-11-23T00:00:00.000Z')).allowed, true);
  });

  it('is all-or-nothing across rules: a refusal by one consumes none', () => {
    const limiter = new MemoryRateLimiter();
    const t0 = at('2026-11-22T10:00:00Z');
    for (let i = 0; i < 3; i++)
      assert.equal(limiter.consumeSync('b', [hourly, daily], t0).allowed, true);
    // The hourly rule refuses; the daily count must stay at 3.
    for (let i = 0; i < 10; i++)
      assert.equal(limiter.consumeSync('b', [hourly, daily], t0).allowed, false);
    const next = limiter.consumeSync('b', [hourly, daily], at('2026-11-22T11:00:00Z'));
    assert.equal(next.allowed, true);
    assert.equal(next.states[1]?.remaining, 1, 'daily: 5 - 4 admitted');
    // Now the daily rule refuses while the hourly one has room: hourly must not be spent.
    limiter.consumeSync('b', [hourly, daily], at('2026-11-22T11:00:00Z'));
    const refused = limiter.consumeSync('b', [hourly, daily], at('2026-11-22T11:30:00Z'));
    assert.equal(refused.allowed, false);
    assert.equal(refused.retryAfterSeconds, 12.5 * 3600);
    assert.equal(refused.states[0]?.remaining, 1, 'hourly untouched by the refusal');
  });

  it('reports Retry-After in whole seconds, rounded up', () => {
    const limiter = new MemoryRateLimiter();
    const rule: LimitRule = { name: 'h', limit: 0, windowMs: HOUR_MS };
    assert.equal(
      limiter.consumeSync('c', [rule], at('2026-11-22T10:59:58.001Z')).retryAfterSeconds,
      2,
    );
    assert.equal(
      limiter.consumeSync('c', [rule], at('2026-11-22T10:00:00.000Z')).retryAfterSeconds,
      3600,
    );
  });

  it('release gives back one admitted request of its window, never below zero', () => {
    const limiter = new MemoryRateLimiter();
    const rule: LimitRule = { name: 'r', limit: 1, windowMs: HOUR_MS };
    const t0 = at('2026-11-22T10:00:00Z');
    assert.equal(limiter.consumeSync('a', [rule], t0).allowed, true);
    assert.equal(limiter.consumeSync('a', [rule], t0).allowed, false);
    limiter.releaseSync('a', [rule], t0);
    limiter.releaseSync('a', [rule], t0);
    assert.equal(limiter.consumeSync('a', [rule], t0).allowed, true);
    assert.equal(limiter.consumeSync('a', [rule], t0).allowed, false);
    limiter.releaseSync('a', [rule], at('2026-11-22T11:00:00Z'));
    assert.equal(limiter.consumeSync('a', [rule], t0).allowed, false, 'another window untouched');
  });

  it('forgets counters whose window has ended', () => {
    const limiter = new MemoryRateLimiter();
    for (let i = 0; i < 50; i++) limiter.consumeSync(`k${i}`, [hourly], at('2026-11-22T10:00:00Z'));
    assert.equal(limiter.size, 50);
    limiter.consumeSync('late', [hourly], at('2026-11-22T11:01:00Z'));
    assert.equal(limiter.size, 1);
  });
});
