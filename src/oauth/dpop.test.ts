import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppError } from '../errors/index.js';
import { openRedis } from '../store/index.js';
import { memoryReplayGuard, redisReplayGuard } from './dpop.js';

describe('DPoP replay guards', () => {
  it('in memory: a proof key is fresh once within its window, then fresh again after it', () => {
    const guard = memoryReplayGuard();
    assert.equal(guard.claim('k', 0), true);
    assert.equal(guard.claim('k', 60_000), false);
    assert.equal(guard.claim('k', 10 * 60_000), true);
  });

  it('Redis unreachable: 503 with Retry-After, never a silent acceptance', async () => {
    // Port 1 on loopback: nothing listens; without an offline queue the command fails at once.
    const redis = openRedis('redis://127.0.0.1:1', { commandTimeoutMs: 200 });
    try {
      const guard = redisReplayGuard(redis, 'test:');
      await assert.rejects(
        async () => guard.claim('k', Date.now()),
        (error: unknown) =>
          error instanceof AppError && error.status === 503 && error.headers['retry-after'] === 1,
      );
    } finally {
      redis.disconnect();
    }
  });
});
