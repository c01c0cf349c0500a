import type { Logger } from '../lib/logger.js';
import type { Redis } from '../store/index.js';
import {
  secondsUntil,
  windowStart,
  type LimitBaseline,
  type LimitDecision,
  type LimitRule,
  type RateLimiter,
  type RuleState,
} from './limiter.js';
import { MemoryRateLimiter } from './memory-limiter.js';

/**
 * Decisions for a batch of requests, one after another inside one atomic script. Each decision
 * covers every rule of its request: read all counters, refuse if the request's cost does not
 * fit under any one of them (counting nothing), otherwise add the cost to all; a new counter
 * expires at the end of its window.
 * KEYS: the counters of every decision in order. ARGV: the number of decisions, then per
 * decision its number of rules n, its cost, n limits and n window ends (epoch ms).
 * Returns per decision the (1-based) index of the refusing rule or 0, then its n counts.
 */
const CONSUME = `
local out = {}
local k = 0
local a = 2
for d = 1, tonumber(ARGV[1]) do
  local n = tonumber(ARGV[a])
  local cost = tonumber(ARGV[a + 1])
  local refused = 0
  local counts = {}
  for i = 1, n do
    local count = tonumber(redis.call('GET', KEYS[k + i]) or '0')
    counts[i] = count
    if refused == 0 and count + cost > tonumber(ARGV[a + 1 + i]) then refused = i end
  end
  if refused == 0 then
    for i = 1, n do
      local count = redis.call('INCRBY', KEYS[k + i], cost)
      counts[i] = count
      if count == cost then redis.call('PEXPIREAT', KEYS[k + i], ARGV[a + 1 + n + i]) end
    end
  end
  out[#out + 1] = refused
  for i = 1, n do out[#out + 1] = counts[i] end
  k = k + n
  a = a + 2 + 2 * n
end
return out
`;

/** Gives back ARGV[1] counts of each existing counter (KEYS), never below zero. */
const RELEASE = `
local cost = tonumber(ARGV[1])
for i = 1, #KEYS do
  local count = tonumber(redis.call('GET', KEYS[i]) or '0')
  if count > 0 then redis.call('DECRBY', KEYS[i], math.min(count, cost)) end
end
return 0
`;

/**
 * Raises each counter to at least its floor, never lowering it; a counter it creates expires
 * at the end of its window. KEYS: the counters. ARGV: per counter its floor, then its window end.
 */
const RAISE = `
for i = 1, #KEYS do
  local floor = tonumber(ARGV[2 * i - 1])
  if tonumber(redis.call('GET', KEYS[i]) or '0') < floor then
    redis.call('SET', KEYS[i], floor)
    redis.call('PEXPIREAT', KEYS[i], ARGV[2 * i])
  end
end
return 0
`;

/** How often the records of reconciled counters whose window has ended are dropped. */
const SWEEP_EVERY_MS = 60_000;

/** Decisions sent in one script call at most; more in one tick go in several calls. */
const MAX_BATCH = 256;

interface Pending {
  bucket: string;
  rules: readonly LimitRule[];
  now: number;
  cost: number;
  resolve(decision: LimitDecision): void;
}

interface LimitCommands {
  limitConsume(numKeys: number, ...args: (string | number)[]): Promise<number[]>;
  limitRelease(numKeys: number, ...args: (string | number)[]): Promise<number>;
  limitRaise(numKeys: number, ...args: (string | number)[]): Promise<number>;
}

/**
 * Limits shared by every instance through Redis. The decisions asked for within one turn of
 * the event loop go to Redis together in one script call (EVALSHA): one round trip per request
 * at most, exact because every decision runs atomically in the script, in order.
 * Counter key: `<prefix>rl:{<bucket>}:<rule>:<window start ms>`; the hash tag keeps the
 * rules of one bucket on one Redis Cluster slot.
 *
 * When Redis does not answer (down, or slower than the command timeout) the decision is taken
 * by a per-instance in-memory limiter that counts every request this instance admitted, also
 * while Redis was up. It refuses only when this instance alone has admitted the limit in the
 * window, so an outage never causes a false 429; it may over-admit by at most the limit per
 * instance per window. Redis counting resumes by itself when the connection is back.
 *
 * Redis may come back empty (restarted without persistence) or not have seen what instances
 * admitted while it was away. With a baseline (`reconcileWith`), every counter is reconciled
 * once per Redis connection before a decision is taken from it: raised to what is known
 * elsewhere (this instance's own count, and the usage every instance wrote to the database), so
 * a Redis restart does not hand out the window's limit again. Likewise a fallback counter is
 * raised to the baseline before its first local decision, so an instance restarted during an
 * outage does not start from zero. See docs/scaling.md for the bounds.
 */
export class RedisRateLimiter implements RateLimiter {
  readonly #redis: Redis & LimitCommands;
  readonly #local = new MemoryRateLimiter();
  readonly #prefix: string;
  readonly #logger: Logger | undefined;
  #degraded = false;
  #baseline: LimitBaseline | undefined;
  /** Redis counters reconciled (or being) since the connection was last made, to window end. */
  readonly #reconciled = new Map<string, { done: Promise<void>; windowEnd: number }>();
  /** Local counters raised to the baseline, to window end. */
  readonly #seeded = new Map<string, { done: Promise<void>; windowEnd: number }>();
  #nextSweep = 0;

  constructor(redis: Redis, options: { prefix?: string; logger?: Logger } = {}) {
    if (!('limitConsume' in redis))
      redis.defineCommand('limitConsume', { lua: CONSUME, readOnly: false });
    if (!('limitRelease' in redis))
      redis.defineCommand('limitRelease', { lua: RELEASE, readOnly: false });
    if (!('limitRaise' in redis))
      redis.defineCommand('limitRaise', { lua: RAISE, readOnly: false });
    this.#redis = redis as Redis & LimitCommands;
    this.#prefix = options.prefix ?? '';
    this.#logger = options.logger;
    // A new connection may be to a Redis that lost its data: reconcile every counter again.
    redis.on('ready', () => this.#reconciled.clear());
  }

  /** From now on, counters are reconciled with `baseline` (see the class comment). */
  reconcileWith(baseline: LimitBaseline): void {
    this.#baseline = baseline;
  }

  /** True while decisions are taken locally because Redis did not answer. */
  get degraded(): boolean {
    return this.#degraded;
  }

  /** The Redis key counting `rule` for `bucket` in the window containing `now`. */
  key(bucket: string, rule: LimitRule, now: number): string {
    return `${this.#prefix}rl:{${bucket}}:${rule.name}:${windowStart(now, rule.windowMs)}`;
  }

  spend(
    bucket: string,
    rules: readonly LimitRule[],
    now: number,
    cost = 1,
  ): Promise<LimitDecision> {
    if (rules.length === 0 || this.#redis.status !== 'ready') {
      const seeding = this.#seedLocal(bucket, rules, now);
      const decide = () => this.#fallback(bucket, rules, now, cost, 'not connected');
      return seeding === undefined ? Promise.resolve(decide()) : seeding.then(decide);
    }
    return new Promise((resolve) => {
      this.#queue.push({ bucket, rules, now, cost, resolve });
      if (this.#queue.length === 1) setImmediate(this.#flush);
    });
  }

  #queue: Pending[] = [];

  readonly #flush = (): void => {
    const queue = this.#queue;
    this.#queue = [];
    for (let i = 0; i < queue.length; i += MAX_BATCH)
      void this.#send(queue.slice(i, i + MAX_BATCH));
  };

  async #send(batch: Pending[]): Promise<void> {
    const keys: string[] = [];
    const argv: (string | number)[] = [batch.length];
    for (const { bucket, rules, now, cost } of batch) {
      argv.push(rules.length, cost);
      for (const rule of rules) {
        keys.push(this.key(bucket, rule, now));
        argv.push(rule.limit);
      }
      for (const rule of rules) argv.push(windowStart(now, rule.windowMs) + rule.windowMs);
    }
    let reply: number[];
    try {
      await this.#reconcile(batch);
      reply = await this.#redis.limitConsume(keys.length, ...keys, ...argv);
    } catch (error) {
      for (const p of batch)
        p.resolve(this.#fallback(p.bucket, p.rules, p.now, p.cost, (error as Error).message));
      return;
    }
    this.#recovered();
    let at = 0;
    for (const pending of batch) {
      const { bucket, rules, now, cost } = pending;
      const offset = at;
      const decision = decisionOf(
        rules,
        now,
        (i) => reply[offset + 1 + i] ?? 0,
        (reply[offset] ?? 0) - 1,
      );
      at += 1 + rules.length;
      // Mirror what Redis admitted, so a fallback later in this window starts from this
      // instance's true share instead of zero.
      if (decision.allowed) this.#local.spendSync(bucket, rules, now, cost);
      pending.resolve(decision);
    }
  }

  async release(bucket: string, rules: readonly LimitRule[], now: number, cost = 1): Promise<void> {
    this.#local.releaseSync(bucket, rules, now, cost);
    if (rules.length === 0 || this.#redis.status !== 'ready') return;
    const keys = rules.map((rule) => this.key(bucket, rule, now));
    // A release that does not reach Redis leaves the attempt counted: the safe side.
    await this.#redis.limitRelease(keys.length, ...keys, cost).catch(() => undefined);
  }

  /** What this instance admitted in the window (as its local mirror counts), at most the limit. */
  #localCount(bucket: string, rule: LimitRule, now: number): number {
    return rule.limit - (this.#local.peekSync(bucket, [rule], now).states[0]?.remaining ?? 0);
  }

  async #floor(bucket: string, rule: LimitRule, now: number): Promise<number> {
    const own = this.#localCount(bucket, rule, now);
    if (this.#baseline === undefined) return own;
    try {
      return Math.max(own, await this.#baseline(bucket, rule, windowStart(now, rule.windowMs)));
    } catch (error) {
      this.#logger?.warn({ err: error }, 'limit baseline unavailable; counting from what is known');
      return own;
    }
  }

  /** Once per counter and connection: raises the Redis counters of `batch` to their floors. */
  async #reconcile(batch: readonly Pending[]): Promise<void> {
    if (this.#baseline === undefined) return;
    const waits: Promise<void>[] = [];
    for (const { bucket, rules, now } of batch) {
      this.#sweep(now);
      for (const rule of rules) {
        const key = this.key(bucket, rule, now);
        let entry = this.#reconciled.get(key);
        if (entry === undefined) {
          const windowEnd = windowStart(now, rule.windowMs) + rule.windowMs;
          const done = this.#floor(bucket, rule, now).then(async (floor) => {
            if (floor > 0) await this.#redis.limitRaise(1, key, floor, windowEnd);
          });
          // A failed raise (Redis went away) is tried again with the next decision.
          done.catch(() => this.#reconciled.delete(key));
          this.#reconciled.set(key, (entry = { done, windowEnd }));
        }
        waits.push(entry.done);
      }
    }
    await Promise.all(waits);
  }

  /** Before the first local decision on a counter: raises it to the baseline. */
  #seedLocal(bucket: string, rules: readonly LimitRule[], now: number): Promise<void> | undefined {
    if (this.#baseline === undefined || rules.length === 0) return undefined;
    this.#sweep(now);
    const waits: Promise<void>[] = [];
    for (const rule of rules) {
      const key = this.key(bucket, rule, now);
      let entry = this.#seeded.get(key);
      if (entry === undefined) {
        const done = this.#floor(bucket, rule, now).then((floor) =>
          this.#local.raiseSync(bucket, rule, now, floor),
        );
        entry = { done, windowEnd: windowStart(now, rule.windowMs) + rule.windowMs };
        this.#seeded.set(key, entry);
      }
      waits.push(entry.done);
    }
    return Promise.all(waits).then(() => undefined);
  }

  #sweep(now: number): void {
    if (now < this.#nextSweep) return;
    this.#nextSweep = now + SWEEP_EVERY_MS;
    for (const records of [this.#reconciled, this.#seeded])
      for (const [key, { windowEnd }] of records) if (windowEnd <= now) records.delete(key);
  }

  async peek(bucket: string, rules: readonly LimitRule[], now: number): Promise<LimitDecision> {
    if (rules.length === 0 || this.#redis.status !== 'ready')
      return this.#local.peekSync(bucket, rules, now);
    try {
      const counts = await this.#redis.mget(rules.map((rule) => this.key(bucket, rule, now)));
      const at = (i: number) => Number(counts[i] ?? 0);
      const refused = rules.findIndex((rule, i) => at(i) >= rule.limit);
      return decisionOf(rules, now, at, refused);
    } catch {
      return this.#local.peekSync(bucket, rules, now);
    }
  }

  #fallback(
    bucket: string,
    rules: readonly LimitRule[],
    now: number,
    cost: number,
    why: string,
  ): LimitDecision {
    if (!this.#degraded && rules.length > 0) {
      this.#degraded = true;
      this.#logger?.warn(
        { reason: why },
        'Redis unavailable: limits decided per instance until it answers again',
      );
    }
    return this.#local.spendSync(bucket, rules, now, cost);
  }

  #recovered(): void {
    if (!this.#degraded) return;
    this.#degraded = false;
    this.#logger?.info({}, 'Redis answers again: shared limits resumed');
  }

  close(): Promise<void> {
    return this.#local.close();
  }
}

function decisionOf(
  rules: readonly LimitRule[],
  now: number,
  countAt: (i: number) => number,
  refusedIndex: number,
): LimitDecision {
  const states: RuleState[] = rules.map((rule, i) => ({
    rule,
    remaining: Math.max(0, rule.limit - countAt(i)),
    resetAt: windowStart(now, rule.windowMs) + rule.windowMs,
  }));
  const refusing = refusedIndex >= 0 ? states[refusedIndex] : undefined;
  return {
    allowed: refusing === undefined,
    states,
    retryAfterSeconds: refusing === undefined ? 0 : secondsUntil(now, refusing.resetAt),
  };
}
