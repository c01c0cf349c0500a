import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DAY_MS, HOUR_MS, RedisRateLimiter, type LimitRule } from '../../src/limits/index.js';
import { openRedis, redisReady, type Redis } from '../../src/store/index.js';
import {
  deleteKeys,
  PrivateRedis,
  redisAvailable,
  TEST_REDIS_URL,
  uniquePrefix,
} from '../helpers/redis.js';

const enabled = await redisAvailable();
const skip = !enabled && 'no Redis reachable';

// Windows in the future: a counter expires at its window's end by Redis's own clock.
const nextMidnight = Math.ceil(Date.now() / DAY_MS) * DAY_MS + 2 * DAY_MS;

describe('RedisRateLimiter on a shared Redis', { skip }, () => {
  const prefix = uniquePrefix();
  const connections: Redis[] = [];
  const limiter = (): RedisRateLimiter => {
    const redis = openRedis(TEST_REDIS_URL, { commandTimeoutMs: 5000 });
    connections.push(redis);
    return new RedisRateLimiter(redis, { prefix });
  };
  let one: RedisRateLimiter;

  before(async () => {
    one = limiter();
    await redisReady(connections[0]!);
  });

  after(async () => {
    await deleteKeys(TEST_REDIS_URL, prefix);
    for (const redis of connections) redis.disconnect();
  });

  it('admits exactly the limit of hundreds of concurrent requests over three instances', async () => {
    const instances = [one, limiter(), limiter()];
    await Promise.all(connections.map((c) => redisReady(c)));
    const rule: LimitRule = { name: 'daily', limit: 100, windowMs: DAY_MS };
    const now = nextMidnight + 3_600_000;
    const decisions = await Promise.all(
      Array.from({ length: 340 }, (_, i) => instances[i % 3]!.spend('acct:exact', [rule], now)),
    );
    assert.equal(decisions.filter((d) => d.allowed).length, 100);
    assert.equal(decisions.filter((d) => !d.allowed).length, 240);
    const counter = await connections[0]!.get(one.key('acct:exact', rule, now));
    assert.equal(counter, '100', 'refusals count nothing');
    assert.ok(instances.every((l) => !l.degraded));
  });

  it('ends the day at 00:00:00.000 UTC: 23:59:59.999 is refused, midnight admitted', async () => {
    const rule: LimitRule = { name: 'daily', limit: 2, windowMs: DAY_MS };
    const last = nextMidnight - 1;
    assert.equal((await one.spend('acct:b', [rule], last - 5000)).allowed, true);
    assert.equal((await one.spend('acct:b', [rule], last)).allowed, true);
    const refused = await one.spend('acct:b', [rule], last);
    assert.equal(refused.allowed, false);
    assert.equal(refused.retryAfterSeconds, 1);
    assert.equal(refused.states[0]?.resetAt, nextMidnight);
    const fresh = await one.spend('acct:b', [rule], nextMidnight);
    assert.equal(fresh.allowed, true);
    assert.equal(fresh.states[0]?.remaining, 1);
  });

  it('stays exact across midnight with concurrent requests on three instances', async () => {
    const instances = [one, limiter(), limiter()];
    await Promise.all(connections.map((c) => redisReady(c)));
    const rule: LimitRule = { name: 'daily', limit: 40, windowMs: DAY_MS };
    // 100 requests stamped 23:59:59.999 and 100 stamped 00:00:00.000, interleaved.
    const decisions = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        instances[i % 3]!.spend(
          'acct:midnight',
          [rule],
          i % 2 === 0 ? nextMidnight - 1 : nextMidnight,
        ).then((d) => ({ d, late: i % 2 === 0 })),
      ),
    );
    const admitted = (late: boolean) =>
      decisions.filter((x) => x.late === late && x.d.allowed).length;
    assert.equal(admitted(true), 40, 'the old day admits its 40');
    assert.equal(admitted(false), 40, 'the new day starts from zero and admits its 40');
    const refusedLate = decisions.find((x) => x.late && !x.d.allowed)!.d;
    assert.equal(refusedLate.retryAfterSeconds, 1);
    const refusedNew = decisions.find((x) => !x.late && !x.d.allowed)!.d;
    assert.equal(refusedNew.retryAfterSeconds, 86_400);
  });

  it('sets each counter to expire at its window end', async () => {
    const rule: LimitRule = { name: 'hourly', limit: 5, windowMs: HOUR_MS };
    const now = nextMidnight + 90 * 60_000;
    await one.spend('ip:1.2.3.4', [rule], now);
    const expireAt = await connections[0]!.pexpiretime(one.key('ip:1.2.3.4', rule, now));
    assert.equal(expireAt, nextMidnight + 2 * HOUR_MS);
  });

  it('is all-or-nothing: a refusal by one rule spends none of the other', async () => {
    const burst: LimitRule = { name: 'burst', limit: 2, windowMs: HOUR_MS };
    const daily: LimitRule = { name: 'daily', limit: 3, windowMs: DAY_MS };
    const t = nextMidnight + 10 * HOUR_MS;
    assert.equal((await one.spend('acct:c', [burst, daily], t)).allowed, true);
    assert.equal((await one.spend('acct:c', [burst, daily], t)).allowed, true);
    for (let i = 0; i < 5; i++) {
      const d = await one.spend('acct:c', [burst, daily], t);
      assert.equal(d.allowed, false);
      assert.equal(d.states[1]?.remaining, 1, 'daily untouched by the burst refusal');
    }
    const nextHour = await one.spend('acct:c', [burst, daily], t + HOUR_MS);
    assert.equal(nextHour.allowed, true);
    const dayRefuses = await one.spend('acct:c', [burst, daily], t + HOUR_MS);
    assert.equal(dayRefuses.allowed, false);
    assert.equal(dayRefuses.states[0]?.remaining, 1, 'burst untouched by the daily refusal');
    const peeked = await one.peek('acct:c', [burst, daily], t + HOUR_MS);
    assert.deepEqual(
      peeked.states.map((s) => s.remaining),
      [1, 0],
    );
  });
});

describe('RedisRateLimiter when Redis goes away', { skip }, () => {
  it('decides locally at once, never refuses falsely, and resumes when Redis is back', async () => {
    const server = await PrivateRedis.start();
    const redis = openRedis(server.url, { commandTimeoutMs: 500 });
    try {
      await redisReady(redis);
      const limiter = new RedisRateLimiter(redis);
      const rule: LimitRule = { name: 'daily', limit: 5, windowMs: DAY_MS };
      const t = nextMidnight + HOUR_MS;
      for (let i = 0; i < 2; i++) assert.equal((await limiter.spend('a', [rule], t)).allowed, true);

      await server.stop();
      const started = Date.now();
      const during = await Promise.all(
        Array.from({ length: 3 }, () => limiter.spend('a', [rule], t)),
      );
      assert.ok(Date.now() - started < 600, 'no hang while Redis is down');
      assert.ok(limiter.degraded);
      assert.ok(
        during.every((d) => d.allowed),
        'no false 429: 2 + 3 is within the limit',
      );
      // The instance alone has now admitted 5: the local fallback refuses the sixth (a true 429).
      assert.equal((await limiter.spend('a', [rule], t)).allowed, false);

      await server.start(); // empty: the counts of the outage are not in Redis
      await redisReady(redis, 10_000);
      const back = await limiter.spend('b', [rule], t);
      assert.equal(back.allowed, true);
      assert.equal(limiter.degraded, false);
      assert.equal(await redis.get(limiter.key('b', rule, t)), '1', 'counted in Redis again');
    } finally {
      redis.disconnect();
      await server.stop();
    }
  });
});
