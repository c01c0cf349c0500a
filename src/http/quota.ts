import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Principal } from '../auth/index.js';
import { AppError } from '../errors/index.js';
import type { Clock } from '../lib/clock.js';
import {
  HOUR_MS,
  MemoryRateLimiter,
  planRules,
  rateLimitHeaders,
  type LimitDecision,
  type RateLimiter,
} from '../limits/index.js';

/** Returns a promise only when the limiter is asynchronous (shared limits). */
export type ConsumeQuota = (request: FastifyRequest, reply: FastifyReply) => void | Promise<void>;

/**
 * Spends one request of the caller's quota and sets the rate-limit headers; 429 when the
 * window is used up. Handlers call it after validation and plan checks, so refused requests
 * (400, 401, 403, 404) never use quota.
 */
export function quotaEnforcer(limiter: RateLimiter, clock: Clock): ConsumeQuota {
  const apply = (
    reply: FastifyReply,
    principal: Principal,
    decision: LimitDecision,
    now: number,
  ): void => {
    const headers = rateLimitHeaders(decision, now);
    if (!decision.allowed) {
      const allowance = decision.states
        .map((s) => `${s.rule.limit} requests per ${s.rule.windowMs === HOUR_MS ? 'hour' : 'day'}`)
        .join(' and ');
      throw new AppError(
        'RATE_LIMITED',
        `The ${principal.plan.name} plan allows ${allowance}; the limit resets in ${decision.retryAfterSeconds} s.`,
        {
          headers,
          extensions: { retry_after: decision.retryAfterSeconds, plan: principal.plan.id },
        },
      );
    }
    reply.headers(headers);
  };
  // The in-process limiter decides synchronously: no promise on the hot path.
  const sync = limiter instanceof MemoryRateLimiter ? limiter : undefined;
  return (request, reply) => {
    const principal = request.principal;
    const rules = planRules(principal.plan);
    if (rules.length === 0) return;
    const now = clock.now();
    if (sync !== undefined)
      return apply(reply, principal, sync.consumeSync(principal.limitBucket, rules, now), now);
    return limiter
      .consume(principal.limitBucket, rules, now)
      .then((d) => apply(reply, principal, d, now));
  };
}
