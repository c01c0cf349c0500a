import type { Plan } from '../plans/index.js';
import { DAY_MS, HOUR_MS, type LimitRule } from './limiter.js';

const cache = new WeakMap<Plan, readonly LimitRule[]>();

/** The limit rules of a plan, built once per plan: none for unlimited plans. */
export function planRules(plan: Plan): readonly LimitRule[] {
  let rules = cache.get(plan);
  if (rules === undefined) cache.set(plan, (rules = Object.freeze(rulesOf(plan))));
  return rules;
}

function rulesOf(plan: Plan): LimitRule[] {
  if (plan.limit === null) return [];
  const windowMs = plan.limit.window === 'hour' ? HOUR_MS : DAY_MS;
  // Named by window, not plan: an upgrade keeps the count of the current window.
  return [
    {
      name: plan.limit.window === 'hour' ? 'hourly' : 'daily',
      limit: plan.limit.requests,
      windowMs,
    },
  ];
}
