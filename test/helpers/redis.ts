import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { Redis } from 'ioredis';
import { RedisRateLimiter } from '../../src/limits/index.js';
import { openRedis, redisReady } from '../../src/store/index.js';

export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Whether Redis tests run: always in CI (where a failure to connect fails the test). */
export async function redisAvailable(): Promise<boolean> {
  if (process.env.CI === 'true') return true;
  const redis = new Redis(TEST_REDIS_URL, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectTimeout: 1000,
  });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    await redis.ping();
    return true;
  } catch {
    return false;
  } finally {
    redis.disconnect();
  }
}

/** A key prefix no other test uses, so tests share one Redis without touching each other. */
export function uniquePrefix(): string {
  return `salary-test:${randomBytes(6).toString('hex')}:`;
}

/**
 * A Redis limiter under a key prefix of its own. `close` fails when any decision was the
 * limiter's local fallback rather than Redis's, then ends it and deletes its keys.
 */
export async function prefixedRedisLimiter(): Promise<{
  limiter: RedisRateLimiter;
  close: () => Promise<void>;
}> {
  const prefix = uniquePrefix();
  const redis = openRedis(TEST_REDIS_URL, { commandTimeoutMs: 5000 });
  await redisReady(redis);
  const limiter = new RedisRateLimiter(redis, { prefix });
  return {
    limiter,
    async close() {
      assert.equal(limiter.degraded, false, 'decided by Redis, not the fallback');
      await limiter.close();
      await deleteKeys(TEST_REDIS_URL, prefix);
      redis.disconnect();
    },
  };
}

/** Deletes this test's keys (and only those). */
export async function deleteKeys(url: string, prefix: string): Promise<void> {
  const redis = new Redis(url, { maxRetriesPerRequest: 1 });
  redis.on('error', () => undefined);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      if (keys.length > 0) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** A private redis-server on its own port, which a test may stop and start again. */
export class PrivateRedis {
  #child: ChildProcess | undefined;
  private constructor(readonly port: number) {}

  static async start(): Promise<PrivateRedis> {
    const redis = new PrivateRedis(await freePort());
    await redis.start();
    return redis;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const child = spawn(
      process.env.REDIS_SERVER ?? '/usr/bin/redis-server',
      ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    this.#child = child;
    await new Promise<void>((resolve, reject) => {
      let out = '';
      const timer = setTimeout(
        () => reject(new Error(`redis-server did not start: ${out}`)),
        10_000,
      );
      child.stdout?.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('Ready to accept connections')) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`redis-server exited with ${code}: ${out}`));
      });
    });
  }

  /** Kills the server (SIGKILL: nothing saved) and waits until it is gone. */
  async stop(): Promise<void> {
    const child = this.#child;
    this.#child = undefined;
    if (child === undefined || child.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGKILL');
    });
  }
}
