import type { LimitDecision, LimitRule, RuleState } from './limiter.js';

/**
 * Rate-limit headers of a decision: the IETF httpapi draft's RateLimit-Policy and RateLimit
 * (structured fields; q = quota, w = window seconds, r = remaining, t = seconds to reset) for
 * every rule, and the widespread X-RateLimit-* for the tightest rule (Reset in epoch seconds).
 * On the hot path: one rule (every plan has one) is written without intermediate arrays.
 */
export function rateLimitHeaders(decision: LimitDecision, now: number): Record<string, string> {
  const states = decision.states;
  const first = states[0];
  if (first === undefined) return {};
  const single = states.length === 1;
  const tightest = single ? first : states.reduce((a, b) => (b.remaining < a.remaining ? b : a));
  const headers: Record<string, string> = {
    'ratelimit-policy': single
      ? policyOf(first.rule)
      : states.map((s) => policyOf(s.rule)).join(', '),
    ratelimit: single ? stateOf(first, now) : states.map((s) => stateOf(s, now)).join(', '),
    'x-ratelimit-limit': String(tightest.rule.limit),
    'x-ratelimit-remaining': String(tightest.remaining),
    'x-ratelimit-reset': String(Math.ceil(tightest.resetAt / 1000)),
  };
  if (!decision.allowed) headers['retry-after'] = String(decision.retryAfterSeconds);
  return headers;
}

function stateOf(state: RuleState, now: number): string {
  const reset = Math.max(0, Math.ceil((state.resetAt - now) / 1000));
  return `"${state.rule.name}";r=${state.remaining};t=${reset}`;
}

const policies = new WeakMap<LimitRule, string>();

/** A rule's RateLimit-Policy item; built once per rule. */
function policyOf(rule: LimitRule): string {
  let text = policies.get(rule);
  if (text === undefined) {
    text = `"${rule.name}";q=${rule.limit};w=${Math.round(rule.windowMs / 1000)}`;
    policies.set(rule, text);
  }
  return text;
}
