import type { Logger } from '../lib/logger.js';
import type { Redis } from '../store/index.js';
import {
  secondsUntil,
  windowStart,
  type LimitDecision,
  type LimitRule,
  type RateLimiter,
  type RuleState,
} from './limiter.js';
import { MemoryRateLimiter } from './memory-limiter.js';

/**
 * One decision for every rule of a request, atomically: read all counters, refuse if any is
 * at its limit (counting nothing), otherwise increment all; a new counter expires at the end
 * of its window. Returns the index (1-based) of the refusing rule or 0, then the counts.
 * KEYS: one counter per rule. ARGV: the limits, then the window ends (epoch ms).
 */
const CONSUME = `
local n = #KEYS
local out = {0}
for i = 1, n do
  local count = tonumber(redis.call('GET', KEYS[i]) or '0')
  out[i + 1] = count
  if out[1] == 0 and count >= tonumber(ARGV[i]) then out[1] = i end
end
if out[1] == 0 then
  for i = 1, n do
    local count = redis.call('INCR', KEYS[i])
    out[i + 1] = count
    if count == 1 then redis.call('PEXPIREAT', KEYS[i], ARGV[n + i]) end
  end
end
return out
`;

interface LimitCommands {
  limitConsume(numKeys: number, ...args: (string | number)[]): Promise<number[]>;
}

/**
 * Limits shared by every instance through Redis: one script call (EVALSHA, auto-pipelined
 * with the other commands of the same tick) per decision, so one round trip per request.
 * Counter key: `<prefix>rl:{<bucket>}:<rule>:<window start ms>`; the hash tag keeps the
 * rules of one bucket on one Redis Cluster slot.
 *
 * When Redis does not answer (down, or slower than the command timeout) the decision is taken
 * by a per-instance in-memory limiter that counts every request this instance admitted, also
 * while Redis was up. It refuses only when this instance alone has admitted the limit in the
 * window, so an outage never causes a false 429; it may over-admit by at most the limit per
 * instance per window. Redis counting resumes by itself when the connection is back.
 */
export class RedisRateLimiter implements RateLimiter {
  readonly #redis: Redis & LimitCommands;
  readonly #local = new MemoryRateLimiter();
  readonly #prefix: string;
  readonly #logger: Logger | undefined;
  #degraded = false;

  constructor(redis: Redis, options: { prefix?: string; logger?: Logger } = {}) {
    if (!('limitConsume' in redis))
      redis.defineCommand('limitConsume', { lua: CONSUME, readOnly: false });
    this.#redis = redis as Redis & LimitCommands;
    this.#prefix = options.prefix ?? '';
    this.#logger = options.logger;
  }

  /** True while decisions are taken locally because Redis did not answer. */
  get degraded(): boolean {
    return this.#degraded;
  }

  /** The Redis key counting `rule` for `bucket` in the window containing `now`. */
  key(bucket: string, rule: LimitRule, now: number): string {
    return `${this.#prefix}rl:{${bucket}}:${rule.name}:${windowStart(now, rule.windowMs)}`;
  }

  async consume(bucket: string, rules: readonly LimitRule[], now: number): Promise<LimitDecision> {
    if (rules.length === 0 || this.#redis.status !== 'ready')
      return this.#fallback(bucket, rules, now, 'not connected');
    const args: (string | number)[] = [];
    for (const rule of rules) args.push(this.key(bucket, rule, now));
    for (const rule of rules) args.push(rule.limit);
    for (const rule of rules) args.push(windowStart(now, rule.windowMs) + rule.windowMs);
    let reply: number[];
    try {
      reply = await this.#redis.limitConsume(rules.length, ...args);
    } catch (error) {
      return this.#fallback(bucket, rules, now, (error as Error).message);
    }
    this.#recovered();
    const refused = reply[0] ?? 0;
    const decision = decisionOf(rules, now, (i) => reply[i + 1] ?? 0, refused - 1);
    // Mirror what Redis admitted, so a fallback later in this window starts from this
    // instance's true share instead of zero.
    if (decision.allowed) this.#local.consumeSync(bucket, rules, now);
    return decision;
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

  #fallback(bucket: string, rules: readonly LimitRule[], now: number, why: string): LimitDecision {
    if (!this.#degraded && rules.length > 0) {
      this.#degraded = true;
      this.#logger?.warn(
        { reason: why },
        'Redis unavailable: limits decided per instance until it answers again',
      );
    }
    return this.#local.consumeSync(bucket, rules, now);
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
