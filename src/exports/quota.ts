import { AppError } from '../errors/index.js';
import type { Clock } from '../lib/clock.js';
import {
  HOUR_MS,
  planRules,
  rateLimitHeaders,
  type LimitDecision,
  type RateLimiter,
} from '../limits/index.js';
import type { Plan } from '../plans/index.js';
import { SALARY_QUOTA } from '../salary/index.js';

export type RunSpend =
  | { allowed: true; release(): Promise<void> }
  | { allowed: false; error: AppError; decision: LimitDecision };

/**
 * A run spends the account's request quota as the bulk request it equals: the same limiter,
 * the plan's own rules (src/limits) and the cost the salary routes declare (`SALARY_QUOTA`, read
 * in every process, serving routes or not), so a run refused here is refused as that request
 * would be.
 */
export function runQuota(deps: { limiter: RateLimiter; clock: Clock }) {
  const { limiter, clock } = deps;
  return {
    async spend(bucket: string, plan: Plan): Promise<RunSpend> {
      const rules = planRules(plan);
      if (rules.length === 0) return { allowed: true, release: () => Promise.resolve() };
      const cost = SALARY_QUOTA.cost;
      const now = clock.now();
      const decision = await limiter.spend(bucket, rules, now, cost);
      if (decision.allowed)
        return { allowed: true, release: () => limiter.release(bucket, rules, now, cost) };
      const allowance = decision.states
        .map((s) => `${s.rule.limit} requests per ${s.rule.windowMs === HOUR_MS ? 'hour' : 'day'}`)
        .join(' and ');
      const error = new AppError(
        'RATE_LIMITED',
        `The ${plan.name} plan allows ${allowance}; an export run counts as the bulk request it equals (${cost}), and the limit resets in ${decision.retryAfterSeconds} s.`,
        {
          headers: rateLimitHeaders(decision, now),
          extensions: { retry_after: decision.retryAfterSeconds, plan: plan.id },
        },
      );
      return { allowed: false, error, decision };
    },
  };
}

export type RunQuota = ReturnType<typeof runQuota>;
