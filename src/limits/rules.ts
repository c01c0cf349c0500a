import type { Plan } from '../plans/index.js';
import { DAY_MS, HOUR_MS, type LimitRule } from './limiter.js';

const cache = new WeakMap<Plan, readonly LimitRule[]>();

/** The limit rules of a plan, built once per plan: none for unlimited plans. */
export function planRules(plan: Plan): readonly LimitRule[] {
  let rules = cache.get(plan);
  if (rules === undefined) cache.set(plan, (rules = Object.freeze(rulesOf(plan))));
  return rules;
}

/**
 * The windows a plan's limit counts in. Rules are named by window, not plan: an upgrade keeps
 * the count of the current window.
 */
export const LIMIT_WINDOWS = {
  hour: { name: 'hourly', windowMs: HOUR_MS },
  day: { name: 'daily', windowMs: DAY_MS },
} as const;

/**
 * Whether `rule` counts a plan's request quota (the windows above), as opposed to a budget of
 * its own (test sends, redeliveries, sign-ups) that other things spend.
 */
export function isQuotaRule(rule: LimitRule): boolean {
  return rule.name === LIMIT_WINDOWS.hour.name || rule.name === LIMIT_WINDOWS.day.name;
}

function rulesOf(plan: Plan): LimitRule[] {
  if (plan.limit === null) return [];
  return [{ ...LIMIT_WINDOWS[plan.limit.window], limit: plan.limit.requests }];
}

/**
 * The limit of an account's test-mode keys together, whatever the plan: 30 requests a minute and
 * 1,000 a day, counted apart from the account's quota (docs/test-mode.md). Test answers are real
 * figures, so the day's allowance stays a tenth of the smallest paid plan's.
 */
export const TEST_MODE_RULES: readonly LimitRule[] = Object.freeze([
  Object.freeze({ name: 'test-minute', windowMs: 60_000, limit: 30 }),
  Object.freeze({ ...LIMIT_WINDOWS.day, name: 'test-day', limit: 1_000 }),
]);
