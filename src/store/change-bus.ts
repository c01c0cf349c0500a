import type { Logger } from '../lib/logger.js';
import { openRedis, redisReady, type Redis } from './redis.js';

/**
 * What changed: `credentials` (a key, an account's plan, contract or allowlist) or `release`
 * (a data release became active). Receivers re-read from the database, which stays the
 * source of truth; a message only says "look now" instead of at the next poll.
 */
export type ChangeTopic = 'credentials' | 'release' | 'enterprise';
// `enterprise`: an account's custom endpoints, data licence or host names.
const TOPICS: readonly string[] = ['credentials', 'release', 'enterprise'];

export interface ChangeBus {
  /** Tells every instance (this one included); never throws, never waits for long. */
  publish(topic: ChangeTopic): Promise<void>;
  /** Calls `handler` for every change published by any instance. */
  subscribe(handler: (topic: ChangeTopic) => void): Promise<void>;
  close(): Promise<void>;
}

/** One process: nothing to tell anyone else. */
export class LocalChangeBus implements ChangeBus {
  readonly #handlers: ((topic: ChangeTopic) => void)[] = [];
  publish(topic: ChangeTopic): Promise<void> {
    for (const handler of this.#handlers) handler(topic);
    return Promise.resolve();
  }
  subscribe(handler: (topic: ChangeTopic) => void): Promise<void> {
    this.#handlers.push(handler);
    return Promise.resolve();
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

/**
 * Redis pub/sub on `<prefix>changes`. Messages sent while a subscriber was disconnected are
 * lost, so on every reconnection the handler is called for every topic (catch up); the
 * periodic database polls remain the backstop.
 */
export class RedisChangeBus implements ChangeBus {
  readonly #channel: string;
  #subscriber: Redis | undefined;

  constructor(
    private readonly redis: Redis,
    private readonly url: string,
    prefix: string,
    private readonly logger?: Logger,
  ) {
    this.#channel = `${prefix}changes`;
  }

  readonly #pending = new Set<Promise<void>>();

  publish(topic: ChangeTopic): Promise<void> {
    const sent = this.redis.publish(this.#channel, topic).then(
      () => undefined,
      (error: unknown) =>
        this.logger?.warn(
          { err: error, topic },
          'change not published; other instances pick it up with their next poll',
        ),
    );
    this.#pending.add(sent);
    void sent.finally(() => this.#pending.delete(sent));
    return sent;
  }

  async subscribe(handler: (topic: ChangeTopic) => void): Promise<void> {
    const subscriber = openRedis(this.url, { name: 'salary-api:changes' });
    this.#subscriber = subscriber;
    subscriber.on('message', (channel: string, message: string) => {
      if (channel === this.#channel && TOPICS.includes(message)) handler(message as ChangeTopic);
    });
    let connectedBefore = false;
    let subscribed: Promise<unknown> | undefined;
    subscriber.on('ready', () => {
      subscribed = subscriber.subscribe(this.#channel).catch((error: unknown) => {
        this.logger?.warn({ err: error }, 'change subscription failed; retried on reconnection');
      });
      if (connectedBefore) for (const topic of TOPICS) handler(topic as ChangeTopic);
      connectedBefore = true;
    });
    await redisReady(subscriber).catch((error: unknown) =>
      this.logger?.warn(
        { err: error },
        'Redis not reachable at start; changes from other instances arrive with the polls until it is',
      ),
    );
    await subscribed;
  }

  /** Waits for announcements under way (published a tick after the change), then stops. */
  async close(): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    await Promise.all(this.#pending);
    this.#subscriber?.disconnect();
    this.#subscriber = undefined;
  }
}

/** A Redis connection shared by a process and the change bus on it. */
export interface SharedRedis {
  readonly redis: Redis;
  readonly bus: RedisChangeBus;
  close(): Promise<void>;
}

/**
 * Connects to Redis at `url` and opens the change bus on it. The process goes on when Redis
 * does not answer yet (`unreachable` says what that means for it); the connection keeps trying.
 */
export async function openSharedRedis(
  url: string,
  options: { name: string; prefix: string; commandTimeoutMs?: number; unreachable: string },
  logger?: Logger,
): Promise<SharedRedis> {
  const redis = openRedis(url, {
    name: options.name,
    ...(options.commandTimeoutMs === undefined
      ? {}
      : { commandTimeoutMs: options.commandTimeoutMs }),
  });
  await redisReady(redis).catch((error: unknown) =>
    logger?.warn({ err: error }, options.unreachable),
  );
  const bus = new RedisChangeBus(redis, url, options.prefix, logger);
  return {
    redis,
    bus,
    async close() {
      await bus.close();
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}

/** Opens the bus a one-shot command (CLI) publishes on; local without REDIS_URL. */
export async function openPublishingBus(
  redisUrl: string | undefined,
  prefix: string,
  logger?: Logger,
): Promise<{ bus: ChangeBus; close(): Promise<void> }> {
  if (redisUrl === undefined) return { bus: new LocalChangeBus(), close: () => Promise.resolve() };
  return openSharedRedis(
    redisUrl,
    {
      name: 'salary-api:cli',
      prefix,
      unreachable: 'Redis not reachable; running instances see the change at their next poll',
    },
    logger,
  );
}

/**
 * What this process does when a topic is announced: each part that keeps something in memory
 * adds its re-read (`on`), and `dispatch` (the bus's subscriber) runs every re-read of the topic;
 * a failed one is logged, and the periodic poll is the backstop.
 */
export class ChangeHandlers {
  readonly #handlers = new Map<ChangeTopic, (() => Promise<unknown> | void)[]>();

  constructor(private readonly logger: Logger) {}

  on(topic: ChangeTopic, handler: () => Promise<unknown> | void): void {
    this.#handlers.set(topic, [...(this.#handlers.get(topic) ?? []), handler]);
  }

  readonly dispatch = (topic: ChangeTopic): void => {
    for (const handler of this.#handlers.get(topic) ?? []) {
      Promise.resolve()
        .then(handler)
        .catch((error: unknown) =>
          this.logger.warn(
            { err: error, topic },
            'refresh after a change failed; the poll retries',
          ),
        );
    }
  };
}

/**
 * Announces `topic` on `bus` once per tick, however many changes one operation made (a plan
 * change touches an account and several keys); `flush` waits for the announcement under way.
 */
export function coalescedAnnouncer(
  bus: ChangeBus,
  topic: ChangeTopic,
): { announce: () => void; flush: () => Promise<void> } {
  let announcing: Promise<void> | undefined;
  return {
    announce: () => {
      announcing ??= Promise.resolve().then(() => {
        announcing = undefined;
        return bus.publish(topic);
      });
    },
    flush: async () => {
      await announcing;
    },
  };
}
