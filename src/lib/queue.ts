import type { Clock } from './clock.js';
import { holderId } from './ids.js';
import type { Logger } from './logger.js';
import { createPoller } from './poller.js';

/** What a queue hands its handler: a claimed item, its attempt counted. */
export interface QueueItem {
  readonly id: string;
  /** Attempts so far, this one included. */
  readonly attempts: number;
}

export interface QueueOptions<T extends QueueItem> {
  /** `feature.verb`, as logs name it. */
  readonly name: string;
  /** How many items this process works on at once. */
  readonly concurrency: number;
  /** How long a claim holds; a claim whose lease lapsed (its worker died) is claimed again. */
  readonly leaseMs: number;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Claims up to `limit` due items for `holder` until `leaseUntil`. */
  claim(holder: string, now: Date, leaseUntil: Date, limit: number): Promise<T[]>;
  /**
   * Works on one item and records its end (settled only while `holder` holds it); a throw
   * leaves the item to be claimed again once the lease lapses.
   */
  handle(item: T, holder: string): Promise<void>;
  /** Renews the lease of an item in work every `everyMs`, so a long attempt keeps it. */
  readonly heartbeat?: {
    readonly everyMs: number;
    extend(item: T, holder: string, leaseUntil: Date): Promise<boolean>;
  };
  /** Work of the pass before claiming (queueing what became due) and after (side outboxes). */
  before?(): Promise<void>;
  after?(): Promise<void>;
  /** Makes every claimed item due again at once; returns how many (see `resumeClaims`). */
  releaseClaims?(): Promise<number>;
}

export interface Queue {
  readonly name: string;
  /** Holder of this process's claims. */
  readonly id: string;
  readonly stopping: boolean;
  /** Claims and handles due items until none is due; returns how many were attempted. */
  readonly runOnce: () => Promise<number>;
  /** Runs `runOnce` every `intervalMs` until `stop`. */
  readonly start: (intervalMs: number) => void;
  /** Stops polling and waits (up to `graceMs`) for the items in work. */
  readonly stop: (graceMs?: number) => Promise<void>;
  /**
   * At the start of the only process on its database (the embedded one): items a stopped
   * process left claimed are due again now, not once their lease lapses.
   */
  readonly resumeClaims: () => Promise<number>;
}

/**
 * The delay before the next attempt after `attempts` failed ones, from a schedule of delays,
 * each moved by up to ±`jitter` (a fraction); null when the schedule is spent: give up.
 */
export function backoffDelay(
  delays: readonly number[],
  attempts: number,
  jitter = 0,
  random: () => number = Math.random,
): number | null {
  const base = delays[attempts - 1];
  if (base === undefined) return null;
  return jitter === 0 ? base : Math.round(base * (1 - jitter + 2 * jitter * random()));
}

/**
 * A named job queue over an outbox table: each pass claims due items (each claimed by one
 * worker, however many processes share the database) and works on up to `concurrency` of them
 * at once, each lane claiming the next as it finishes one.
 */
export function createQueue<T extends QueueItem>(options: QueueOptions<T>): Queue {
  const { name, clock, logger } = options;
  const id = holderId();

  function claim(limit: number): Promise<T[]> {
    const now = clock.now();
    return options.claim(id, new Date(now), new Date(now + options.leaseMs), limit);
  }

  async function withHeartbeat(item: T, work: () => Promise<void>): Promise<void> {
    const beat = options.heartbeat;
    if (beat === undefined) return work();
    const timer = setInterval(() => {
      beat
        .extend(item, id, new Date(clock.now() + options.leaseMs))
        .then((held) => {
          if (!held) logger.warn({ queue: name, item: item.id }, 'lease lost during the attempt');
        })
        .catch((error: unknown) =>
          logger.warn({ err: error, queue: name, item: item.id }, 'lease not renewed; retried'),
        );
    }, beat.everyMs);
    timer.unref();
    try {
      await work();
    } finally {
      clearInterval(timer);
    }
  }

  function attempt(item: T): Promise<void> {
    return withHeartbeat(item, () => options.handle(item, id)).catch((error: unknown) =>
      logger.error(
        { err: error, queue: name, item: item.id },
        `${name}: outcome not recorded; retried after the lease`,
      ),
    );
  }

  async function lane(first: T): Promise<number> {
    let done = 0;
    let next: T | undefined = first;
    while (next !== undefined) {
      done++;
      await attempt(next);
      if (poller.stopping) break;
      [next] = await claim(1);
    }
    return done;
  }

  /** One claim of up to `concurrency` items opens as many lanes: an idle queue costs one query. */
  async function runOnce(): Promise<number> {
    if (poller.stopping) return 0;
    await options.before?.();
    const first = await claim(options.concurrency);
    const counts = await Promise.all(first.map(lane));
    if (!poller.stopping) await options.after?.();
    return counts.reduce((a, b) => a + b, 0);
  }

  const poller = createPoller(runOnce, (error: unknown) =>
    logger.warn({ err: error, queue: name }, `${name} pass failed`),
  );
  return {
    name,
    id,
    get stopping() {
      return poller.stopping;
    },
    runOnce: poller.runOnce,
    start: poller.start,
    stop: poller.stop,
    async resumeClaims() {
      const released = (await options.releaseClaims?.()) ?? 0;
      if (released > 0) logger.info({ queue: name, items: released }, `${name}: claims resumed`);
      return released;
    },
  };
}
