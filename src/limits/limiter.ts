/**
 * Request limits. A rule is a number of units per calendar-aligned window (UTC hour or UTC
 * day: a window starts at a multiple of its length since the Unix epoch). A request spends
 * its cost in units (1 unless its route declares more, see http/quota.ts); one decision covers
 * every rule of a request all-or-nothing: a request refused by one rule (its cost no longer
 * fits) spends none of any.
 */
export interface LimitRule {
  /** Stable name, used in the RateLimit-Policy header and the bucket key. */
  readonly name: string;
  readonly limit: number;
  readonly windowMs: number;
}

export interface RuleState {
  readonly rule: LimitRule;
  readonly remaining: number;
  /** Epoch ms when this rule's window ends. */
  readonly resetAt: number;
}

export interface LimitDecision {
  readonly allowed: boolean;
  readonly states: readonly RuleState[];
  /** When refused: whole seconds until the refusing rule's window ends. */
  readonly retryAfterSeconds: number;
}

export interface RateLimiter {
  /**
   * Admits a request of `cost` units (a positive integer, 1 when omitted) if it fits under
   * every rule, counting it under all of them; otherwise refuses and counts nothing.
   */
  spend(
    bucket: string,
    rules: readonly LimitRule[],
    now: number,
    cost?: number,
  ): Promise<LimitDecision>;
  /**
   * Gives back `cost` units (1 when omitted) that `spend` admitted in the window containing
   * `now` (an attempt reserved up front that turned out not to count); never below zero.
   */
  release(bucket: string, rules: readonly LimitRule[], now: number, cost?: number): Promise<void>;
  /** The state `spend` would see, counting nothing (usage reports). */
  peek(bucket: string, rules: readonly LimitRule[], now: number): Promise<LimitDecision>;
  close(): Promise<void>;
  /** True while a shared limiter decides in-process because its store did not answer. */
  readonly degraded?: boolean;
}

/**
 * What is known outside the shared counters about the requests `bucket` was admitted in the
 * window of `rule` starting at `windowStart` (usage written by every instance, and this
 * instance's not yet written): the floor a counter is raised to after Redis lost it.
 */
export type LimitBaseline = (
  bucket: string,
  rule: LimitRule,
  windowStart: number,
) => Promise<number>;

export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;

export function windowStart(now: number, windowMs: number): number {
  return now - (now % windowMs);
}

export function secondsUntil(now: number, at: number): number {
  return Math.max(1, Math.ceil((at - now) / 1000));
}
