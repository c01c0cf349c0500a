import { Redis } from 'ioredis';

export type { Redis } from 'ioredis';

export interface RedisOptions {
  /** Longest wait for one command; past it the caller takes its fallback. */
  commandTimeoutMs?: number;
  /** Connection name shown by CLIENT LIST, for operators. */
  name?: string;
  /** Park commands while disconnected (only for connections off the request path). */
  offlineQueue?: boolean;
}

/**
 * A Redis connection that fails fast: no offline queue (a command while disconnected is
 * rejected at once, never parked), a short command and connect timeout, one attempt per
 * command, and reconnection in the background (100 ms growing to 1 s) for ever, so service
 * resumes by itself when Redis returns. No auto-pipelining: the limiter already sends the
 * decisions of one event-loop turn as one script call, and the other commands are rare.
 */
export function openRedis(url: string, options: RedisOptions = {}): Redis {
  const redis = new Redis(url, {
    enableOfflineQueue: options.offlineQueue ?? false,
    enableAutoPipelining: false,
    maxRetriesPerRequest: 0,
    commandTimeout: options.commandTimeoutMs ?? 1000,
    connectTimeout: 1000,
    lazyConnect: false,
    connectionName: options.name,
    retryStrategy: (times) => Math.min(times * 100, 1000),
    // A failover or READONLY replica: reconnect rather than keep failing.
    reconnectOnError: (error) => error.message.startsWith('READONLY'),
  });
  // Connection errors surface through the commands that fail; an unhandled 'error' event
  // would crash the process.
  redis.on('error', () => undefined);
  return redis;
}

/** Waits until the connection is ready (or fails after `timeoutMs`). */
export function redisReady(redis: Redis, timeoutMs = 3000): Promise<void> {
  if (redis.status === 'ready') return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      redis.off('ready', onReady);
      reject(new Error(`Redis not ready within ${timeoutMs} ms`));
    }, timeoutMs);
    const onReady = (): void => {
      clearTimeout(timer);
      resolve();
    };
    redis.once('ready', onReady);
  });
}
