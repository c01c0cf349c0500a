import {
  isQuotaRule,
  LIMIT_WINDOWS,
  windowStart,
  type LimitBaseline,
  type MemoryRateLimiter,
} from '../limits/index.js';
import type { Queryable } from '../store/index.js';
import type { UsageRecorder } from './recorder.js';
import { answeredByAccountHour, answeredByEndpoint } from './repo.js';

const ACCOUNT_BUCKET = 'acct:';

/**
 * What each endpoint, as usage records it (`GET /api/v1/salary`, `GET /api/v1/custom/<slug>`),
 * spends of the quota per request: filled from the routes' own `config.quota` declarations as
 * they are registered (the HTTP layer's `quotaByRoute`), so no second list of the endpoints that
 * spend exists. A route without a declaration is registered with cost 0: its exact path then
 * wins over a parametric route's pattern, as Fastify's router prefers a static route.
 */
export class QuotaEndpoints {
  readonly #exact = new Map<string, number>();
  readonly #patterns: { pattern: RegExp; cost: number }[] = [];

  /** A route: its method, Fastify URL (`:name` parameters) and declared cost (0: none). */
  add(method: string, url: string, cost: number): void {
    const endpoint = `${method} ${url}`;
    if (!url.includes(':') && !url.includes('*')) {
      this.#exact.set(endpoint, cost);
      return;
    }
    if (cost === 0) return;
    const source = endpoint
      .split(/(:[A-Za-z0-9_]+|\*)/)
      .map((part, i) => (i % 2 === 1 ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('');
    this.#patterns.push({ pattern: new RegExp(`^${source}$`), cost });
  }

  /** What one request to `endpoint` (as usage names it) spends; 0 when it spends nothing. */
  costOf(endpoint: string): number {
    const exact = this.#exact.get(endpoint);
    if (exact !== undefined) return exact;
    for (const { pattern, cost } of this.#patterns) if (pattern.test(endpoint)) return cost;
    return 0;
  }
}

/**
 * The limiter's baseline from usage: the units an account's answered (status below 400)
 * requests spent in the window (each endpoint's count times its declared cost), as written by
 * every instance plus this instance's counts not yet written. Refused and failed requests are
 * left out, so the floor never exceeds what the limiter admitted (no false 429). Address
 * buckets (anonymous Free) have no usage rows, and an account's budgets that are not its quota
 * (test sends, redeliveries) count something else: 0.
 */
export function admittedFromUsage(
  db: Queryable,
  recorder: UsageRecorder,
  endpoints: QuotaEndpoints,
): LimitBaseline {
  return async (bucket, rule, windowStart) => {
    if (!bucket.startsWith(ACCOUNT_BUCKET) || !isQuotaRule(rule)) return 0;
    const accountId = bucket.slice(ACCOUNT_BUCKET.length);
    const windowEnd = windowStart + rule.windowMs;
    const rows = await answeredByEndpoint(db, accountId, windowStart, windowEnd);
    let units = 0;
    for (const row of rows) units += row.count * endpoints.costOf(row.endpoint);
    for (const r of recorder.pending(accountId)) {
      if (r.hour >= windowStart && r.hour < windowEnd && r.status < 400)
        units += r.count * endpoints.costOf(r.endpoint);
    }
    return units;
  };
}

/**
 * Raises an in-process limiter's account counters to what the usage tables say the current
 * hour's and day's windows already spent (answered requests, each endpoint's count times its
 * declared cost), so that a restarted process does not hand every account a fresh quota for
 * the rest of the window. One query at start-up; both windows are raised for every account
 * with usage today, whichever its plan counts in (a counter no rule reads costs nothing).
 * Address buckets (anonymous Free callers) are kept apart, by AddressCounts.
 */
export async function seedFromUsage(
  db: Queryable,
  endpoints: QuotaEndpoints,
  limiter: MemoryRateLimiter,
  now: number,
): Promise<number> {
  const day = windowStart(now, LIMIT_WINDOWS.day.windowMs);
  const hour = windowStart(now, LIMIT_WINDOWS.hour.windowMs);
  const rows = await answeredByAccountHour(db, day, day + LIMIT_WINDOWS.day.windowMs);
  const spent = new Map<string, { day: number; hour: number }>();
  for (const row of rows) {
    const units = row.count * endpoints.costOf(row.endpoint);
    if (units === 0) continue;
    let account = spent.get(row.accountId);
    if (account === undefined) spent.set(row.accountId, (account = { day: 0, hour: 0 }));
    account.day += units;
    if (row.hour >= hour) account.hour += units;
  }
  for (const [accountId, { day: dayUnits, hour: hourUnits }] of spent) {
    const bucket = `${ACCOUNT_BUCKET}${accountId}`;
    limiter.raiseSync(bucket, { ...LIMIT_WINDOWS.day, limit: dayUnits }, now, dayUnits);
    if (hourUnits > 0)
      limiter.raiseSync(bucket, { ...LIMIT_WINDOWS.hour, limit: hourUnits }, now, hourUnits);
  }
  return spent.size;
}
