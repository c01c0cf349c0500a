import type { LimitDecision, LimitRule } from './limiter.js';

/**
 * Rate-limit headers of a decision: the IETF httpapi draft's RateLimit-Policy and RateLimit
 * (structured fields; q = quota, w = window seconds, r = remaining, t = seconds to reset) for
 * every rule, and the widespread X-RateLimit-* for the tightest rule (Reset in epoch seconds).
 */
export function rateLimitHeaders(decision: LimitDecision, now: number): Record<string, string> {
  const states = decision.states;
  if (states.length === 0) return {};
  const policy = policyOf(states.map((s) => s.rule));
  const current = states
    .map(
      (s) =>
        `"${s.rule.name}";r=${s.remaining};t=${Math.max(0, Math.ceil((s.resetAt - now) / 1000))}`,
    )
    .join(', ');
  const tightest = states.reduce((a, b) => (b.remaining < a.remaining ? b : a));
  const headers: Record<string, string> = {
    'ratelimit-policy': policy,
    ratelimit: current,
    'x-ratelimit-limit': String(tightest.rule.limit),
    'x-ratelimit-remaining': String(tightest.remaining),
    'x-ratelimit-reset': String(Math.ceil(tightest.resetAt / 1000)),
  };
  if (!decision.allowed) headers['retry-after'] = String(decision.retryAfterSeconds);
  return headers;
}

const policies = new WeakMap<LimitRule, string>();

/** The RateLimit-Policy value of a set of rules; built once per rule. */
function policyOf(rules: readonly LimitRule[]): string {
  return rules
    .map((rule) => {
      let text = policies.get(rule);
      if (text === undefined) {
        text = `"${rule.name}";q=${rule.limit};w=${Math.round(rule.windowMs / 1000)}`;
        policies.set(rule, text);
      }
      return text;
    })
    .join(', ');
}
