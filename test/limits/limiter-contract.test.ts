import assert from 'node:assert/strict';
import { DAY_MS, MemoryRateLimiter, RedisRateLimiter } from '../../src/limits/index.js';
import { openRedis, redisReady } from '../../src/store/index.js';
import { deleteKeys, redisAvailable, TEST_REDIS_URL, uniquePrefix } from '../helpers/redis.js';
import { limiterContract } from './limiter-contract.js';

// A UTC midnight two days ahead: Redis expires each counter at its window's end.
const BASE = Math.ceil(Date.now() / DAY_MS) * DAY_MS + 2 * DAY_MS;

limiterContract(
  'in memory',
  async () => {
    const limiter = new MemoryRateLimiter();
    return { limiter, close: () => limiter.close() };
  },
  BASE,
);

// Skipped locally without Redis; in CI (CI=true) it always runs, and fails if Redis is absent.
const enabled = await redisAvailable();
limiterContract(
  'Redis',
  async () => {
    const prefix = uniquePrefix();
    const redis = openRedis(TEST_REDIS_URL, { commandTimeoutMs: 5000 });
    await redisReady(redis);
    const limiter = new RedisRateLimiter(redis, { prefix });
    return {
      limiter,
      check: () => assert.equal(limiter.degraded, false, 'decided by Redis, not the fallback'),
      async close() {
        await limiter.close();
        await deleteKeys(TEST_REDIS_URL, prefix);
        redis.disconnect();
      },
    };
  },
  BASE,
  { skip: !enabled && 'no Redis reachable' },
);
