export {
  HOUR_MS,
  DAY_MS,
  windowStart,
  secondsUntil,
  type LimitRule,
  type LimitDecision,
  type RuleState,
  type RateLimiter,
  type LimitBaseline,
} from './limiter.js';
export { MemoryRateLimiter, type StartingCount } from './memory-limiter.js';
export { rateLimitHeaders } from './headers.js';
export { isQuotaRule, LIMIT_WINDOWS, planRules, TEST_MODE_RULES } from './rules.js';
export { RedisRateLimiter } from './redis-limiter.js';
