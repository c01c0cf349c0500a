import assert from 'node:assert/strict';
import { DAY_MS, MemoryRateLimiter } from '../../src/limits/index.js';
import { prefixedRedisLimiter, redisAvailable } from '../helpers/redis.js';
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
    const { limiter, close } = await prefixedRedisLimiter();
    return {
      limiter,
      check: () => assert.equal(limiter.degraded, false, 'decided by Redis, not the fallback'),
      close,
    };
  },
  BASE,
  { skip: !enabled && 'no Redis reachable' },
);
