import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HOUR_MS, type LimitRule } from './limiter.js';
import { MemoryRateLimiter } from './memory-limiter.js';

const hourly: LimitRule = { name: 'hour', limit: 3, windowMs: HOUR_MS };
const at = (iso: string) => Date.parse(iso);

// What every limiter promises is tested for both in test/limits/limiter-contract.test.ts.
describe('MemoryRateLimiter', () => {
  it('forgets counters whose window has ended', () => {
    const limiter = new MemoryRateLimiter();
    for (let i = 0; i < 50; i++) limiter.spendSync(`k${i}`, [hourly], at('2026-11-22T10:00:00Z'));
    assert.equal(limiter.size, 50);
    limiter.spendSync('late', [hourly], at('2026-11-22T11:01:00Z'));
    assert.equal(limiter.size, 1);
  });
});
