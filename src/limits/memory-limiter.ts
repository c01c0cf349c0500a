import {
  secondsUntil,
  windowStart,
  type LimitDecision,
  type LimitRule,
  type RateLimiter,
  type RuleState,
} from './limiter.js';

interface Counter {
  windowStart: number;
  windowEnd: number;
  count: number;
}

const SWEEP_EVERY_MS = 60_000;

/**
 * The count a counter starts a window from, when a previous process already admitted requests
 * of that bucket in it (0: none). Asked once per counter and window, synchronously.
 */
export type StartingCount = (bucket: string, rule: LimitRule, windowStart: number) => number;

/**
 * The in-process limiter: exact for one instance. Counters live until their window ends and
 * are swept once a minute, so memory follows the number of active buckets.
 */
export class MemoryRateLimiter implements RateLimiter {
  /**
   * Counters by bucket, then by rule name. Two levels rather than one `bucket|rule` key: the
   * bucket is a string the caller keeps (a principal's), whose hash is computed once, where a
   * joined key would be a new string to hash on every request.
   */
  readonly #buckets = new Map<string, Map<string, Counter>>();
  #nextSweep = 0;
  #startingCount: StartingCount | undefined;

  /** From now on, a new counter starts from `count` (see StartingCount). */
  startFrom(count: StartingCount): void {
    this.#startingCount = count;
  }

  /** A window's new counter: from what a previous process counted, or from zero. */
  #fresh(bucket: string, rule: LimitRule, start: number): Counter {
    const count = this.#startingCount?.(bucket, rule, start) ?? 0;
    return { windowStart: start, windowEnd: start + rule.windowMs, count };
  }

  /** The live counters of the buckets whose name starts with `prefix`. */
  *counters(prefix: string): Generator<{ bucket: string; rule: string } & Readonly<Counter>> {
    for (const [bucket, rules] of this.#buckets) {
      if (!bucket.startsWith(prefix)) continue;
      for (const [rule, counter] of rules) yield { bucket, rule, ...counter };
    }
  }

  #counter(bucket: string, rule: string): Counter | undefined {
    return this.#buckets.get(bucket)?.get(rule);
  }

  #set(bucket: string, rule: string, counter: Counter): void {
    let rules = this.#buckets.get(bucket);
    if (rules === undefined) this.#buckets.set(bucket, (rules = new Map<string, Counter>()));
    rules.set(rule, counter);
  }

  spend(
    bucket: string,
    rules: readonly LimitRule[],
    now: number,
    cost = 1,
  ): Promise<LimitDecision> {
    return Promise.resolve(this.spendSync(bucket, rules, now, cost));
  }

  peek(bucket: string, rules: readonly LimitRule[], now: number): Promise<LimitDecision> {
    return Promise.resolve(this.peekSync(bucket, rules, now));
  }

  spendSync(bucket: string, rules: readonly LimitRule[], now: number, cost = 1): LimitDecision {
    if (now >= this.#nextSweep) this.#sweep(now);
    const counters: Counter[] = [];
    let refusedBy: Counter | undefined;
    for (const rule of rules) {
      const start = windowStart(now, rule.windowMs);
      let counter = this.#counter(bucket, rule.name);
      if (counter === undefined || counter.windowStart !== start) {
        counter = this.#fresh(bucket, rule, start);
        this.#set(bucket, rule.name, counter);
      }
      counters.push(counter);
      if (counter.count + cost > rule.limit && refusedBy === undefined) refusedBy = counter;
    }
    if (refusedBy === undefined) for (const counter of counters) counter.count += cost;
    const states: RuleState[] = rules.map((rule, i) => {
      const counter = counters[i] as Counter;
      return {
        rule,
        remaining: Math.max(0, rule.limit - counter.count),
        resetAt: counter.windowEnd,
      };
    });
    return {
      allowed: refusedBy === undefined,
      states,
      retryAfterSeconds: refusedBy === undefined ? 0 : secondsUntil(now, refusedBy.windowEnd),
    };
  }

  release(bucket: string, rules: readonly LimitRule[], now: number, cost = 1): Promise<void> {
    this.releaseSync(bucket, rules, now, cost);
    return Promise.resolve();
  }

  releaseSync(bucket: string, rules: readonly LimitRule[], now: number, cost = 1): void {
    for (const rule of rules) {
      const counter = this.#counter(bucket, rule.name);
      if (counter !== undefined && counter.windowStart === windowStart(now, rule.windowMs))
        counter.count = Math.max(0, counter.count - cost);
    }
  }

  /** The decision `spend` would take on a request of one unit, without counting anything. */
  peekSync(bucket: string, rules: readonly LimitRule[], now: number): LimitDecision {
    const states: RuleState[] = [];
    let refusedEnd: number | undefined;
    for (const rule of rules) {
      const start = windowStart(now, rule.windowMs);
      let counter = this.#counter(bucket, rule.name);
      if (counter === undefined || counter.windowStart !== start) {
        counter = this.#fresh(bucket, rule, start);
        if (counter.count > 0) this.#set(bucket, rule.name, counter);
      }
      const count = counter.count;
      const end = start + rule.windowMs;
      if (count >= rule.limit && refusedEnd === undefined) refusedEnd = end;
      states.push({ rule, remaining: Math.max(0, rule.limit - count), resetAt: end });
    }
    return {
      allowed: refusedEnd === undefined,
      states,
      retryAfterSeconds: refusedEnd === undefined ? 0 : secondsUntil(now, refusedEnd),
    };
  }

  /** Raises the count of `rule` in the window containing `now` to at least `count`. */
  raiseSync(bucket: string, rule: LimitRule, now: number, count: number): void {
    const start = windowStart(now, rule.windowMs);
    let counter = this.#counter(bucket, rule.name);
    if (counter === undefined || counter.windowStart !== start) {
      counter = this.#fresh(bucket, rule, start);
      this.#set(bucket, rule.name, counter);
    }
    counter.count = Math.max(counter.count, count);
  }

  /** Number of live counters (for metrics and tests of the sweep). */
  get size(): number {
    let size = 0;
    for (const rules of this.#buckets.values()) size += rules.size;
    return size;
  }

  #sweep(now: number): void {
    for (const [bucket, rules] of this.#buckets) {
      for (const [rule, counter] of rules) if (counter.windowEnd <= now) rules.delete(rule);
      if (rules.size === 0) this.#buckets.delete(bucket);
    }
    this.#nextSweep = now + SWEEP_EVERY_MS;
  }

  close(): Promise<void> {
    this.#buckets.clear();
    return Promise.resolve();
  }
}
