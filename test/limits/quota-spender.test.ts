import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { addressBucket, type Principal } from '../../src/auth/index.js';
import { AppError } from '../../src/errors/index.js';
import { quotaSpender, type SpendQuota, type Spent } from '../../src/http/quota.js';
import { ManualClock } from '../../src/lib/clock.js';
import { DAY_MS, MemoryRateLimiter, planRules, type RateLimiter } from '../../src/limits/index.js';
import { DEFAULT_PLANS, type Plan } from '../../src/plans/index.js';
import { prefixedRedisLimiter, redisAvailable } from '../helpers/redis.js';

/**
 * The spender every route handler and the MCP tools share (http/quota.ts), with the cost a
 * route declares: on the in-process limiter (decided synchronously) and on the shared Redis
 * limiter (a promise, through the batched script).
 */

// A UTC midnight two days ahead, plus ten hours: Redis expires each counter at its window's end.
const NOW = Math.ceil(Date.now() / DAY_MS) * DAY_MS + 2 * DAY_MS + 10 * 3_600_000;
const FREE: Plan = { ...DEFAULT_PLANS.free, limit: { requests: 5, window: 'hour' } };

function freeAccount(id: string): Principal {
  return {
    kind: 'key',
    plan: FREE,
    accountId: id,
    keyId: `key-${id}`,
    sessionId: null,
    scopes: null,
    allowlists: [],
    responseSchema: null,
    limitBucket: `acct:${id}`,
  };
}

/** X-RateLimit-Remaining of an admitted request's headers or of the 429's. */
const remainingOf = (spent: Spent): string | undefined => {
  const headers = spent instanceof AppError ? spent.headers : spent;
  const value = headers?.['x-ratelimit-remaining'];
  return value === undefined ? undefined : String(value);
};

function spenderCases(
  name: string,
  make: () => Promise<{ limiter: RateLimiter; close: () => Promise<void> }>,
) {
  describe(`the quota spender with a declared cost: ${name}`, () => {
    let limiter: RateLimiter;
    let close: () => Promise<void>;
    let spend: SpendQuota;
    before(async () => {
      ({ limiter, close } = await make());
      spend = quotaSpender(limiter, new ManualClock(NOW));
    });
    after(() => close());

    const left = async (bucket: string) =>
      (await limiter.peek(bucket, planRules(FREE), NOW)).states[0]!.remaining;

    it('a cost of 2 spends 2; with 1 left the request is a 429 and spends nothing', async () => {
      const account = freeAccount(`cost-${name}`);
      const seen: (string | undefined)[] = [];
      const refusals: boolean[] = [];
      for (let i = 0; i < 3; i++) {
        const spent = await spend(account, '192.0.2.10', 2);
        seen.push(remainingOf(spent));
        refusals.push(spent instanceof AppError);
      }
      assert.deepEqual(seen, ['3', '1', '1']);
      assert.deepEqual(refusals, [false, false, true]);
      const refused = (await spend(account, '192.0.2.10', 2)) as AppError;
      assert.equal(refused.code, 'RATE_LIMITED');
      assert.match(refused.detail, /this request counts as 2/);
      assert.equal(await left(`acct:cost-${name}`), 1);
      // The address bucket a Free account also spends moved with it, 2 at a time.
      assert.equal(await left(addressBucket('192.0.2.10')), 1);
      assert.equal(remainingOf(await spend(account, '192.0.2.10', 1)), '0');
    });

    it("a Free account's cost spends its address and its account bucket, or neither", async () => {
      const address = '192.0.2.20';
      const first = freeAccount(`first-${name}`);
      const second = freeAccount(`second-${name}`);
      assert.equal(remainingOf(await spend(first, address, 2)), '3');
      assert.equal(remainingOf(await spend(first, address, 2)), '1');
      // The second account has room, but the shared address has 1 left: refused, nothing spent.
      const refused = await spend(second, address, 2);
      assert.ok(refused instanceof AppError);
      assert.equal(await left(`acct:second-${name}`), 5);
      assert.equal(await left(addressBucket(address)), 1);
      // An account with 1 left refuses; the address's 2 are given back.
      const third = freeAccount(`third-${name}`);
      const other = '192.0.2.21';
      for (let i = 0; i < 4; i++) await spend(third, `192.0.2.${30 + i}`, 1);
      assert.ok((await spend(third, other, 2)) instanceof AppError);
      assert.equal(await left(addressBucket(other)), 5, 'the address spent nothing');
    });
  });
}

spenderCases('in memory', async () => {
  const limiter = new MemoryRateLimiter();
  return { limiter, close: () => limiter.close() };
});

const enabled = await redisAvailable();
describe('on Redis', { skip: !enabled && 'no Redis reachable' }, () => {
  spenderCases('Redis', prefixedRedisLimiter);
});
