import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors/index.js';
import type { Clock } from '../lib/clock.js';
import { planRules, rateLimitHeaders, type RateLimiter } from '../limits/index.js';

export type ConsumeQuota = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

/**
 * Spends one request of the caller's quota and sets the rate-limit headers; 429 when the
 * window is used up. Handlers call it after validation and plan checks, so refused requests
 * (400, 401, 403, 404) never use quota.
 */
export function quotaEnforcer(limiter: RateLimiter, clock: Clock): ConsumeQuota {
  return async (request, reply) => {
    const principal = request.principal;
    const rules = planRules(principal.plan);
    if (rules.length === 0) return;
    const now = clock.now();
    const decision = await limiter.consume(principal.limitBucket, rules, now);
    const headers = rateLimitHeaders(decision, now);
    if (!decision.allowed) {
      throw new AppError(
        'RATE_LIMITED',
        `The ${principal.plan.name} plan allows ${rules.map((r) => `${r.limit} requests per ${r.windowMs === 3_600_000 ? 'hour' : 'day'}`).join(' and ')}; the limit resets in ${decision.retryAfterSeconds} s.`,
        {
          headers,
          extensions: { retry_after: decision.retryAfterSeconds, plan: principal.plan.id },
        },
      );
    }
    reply.headers(headers);
  };
}
