import { addressBucket, type Principal } from '../auth/index.js';
import { AppError } from '../errors/index.js';
import type { Clock } from '../lib/clock.js';
import { DAY_MS, HOUR_MS, planRules, windowStart, type RateLimiter } from '../limits/index.js';
import { assertPlanHas, type Plan, type PlanId } from '../plans/index.js';
import type { Db } from '../store/index.js';
import type { UsageRecorder } from './recorder.js';
import { sumRows, usageGrouped, type UsageColumn, type UsageRow } from './repo.js';

export interface UsageQuery {
  from?: string;
  to?: string;
  granularity?: 'hour' | 'day';
}

const MAX_RANGE_DAYS = 93;

/** Usage reports: the hourly counts (written and still in memory) and today's quota. */
export function createUsageService(deps: {
  db: Db;
  clock: Clock;
  limiter: RateLimiter;
  recorder: UsageRecorder;
  plans: Readonly<Record<PlanId, Plan>>;
}) {
  const { db, clock, limiter, recorder, plans } = deps;
  return {
    async report(principal: Principal, query: UsageQuery) {
      assertPlanHas(plans, principal.plan, (p) => p.usageAnalytics, 'Usage analytics');
      const accountId = principal.accountId as string;
      const now = clock.now();
      const today = windowStart(now, DAY_MS);
      const from = query.from === undefined ? today - 6 * DAY_MS : parseDay('from', query.from);
      const to = query.to === undefined ? today + DAY_MS : parseDay('to', query.to) + DAY_MS;
      if (to <= from)
        throw AppError.invalidParams([{ name: 'to', reason: 'must not be before from' }]);
      if (to - from > MAX_RANGE_DAYS * DAY_MS) {
        throw AppError.invalidParams([
          { name: 'from', reason: `the range may span at most ${MAX_RANGE_DAYS} days` },
        ]);
      }
      const granularity = query.granularity ?? 'day';
      const range = { from, to };
      // The totals from the day sums; the hourly series from the hourly sums per status.
      const all = await grouped(accountId, range, 'day', ['key_id', 'endpoint', 'status']);
      const rows =
        granularity === 'day' ? all : await grouped(accountId, range, 'hour', ['status']);

      const step = granularity === 'hour' ? HOUR_MS : DAY_MS;
      const buckets = new Map<number, { requests: number; errors: number }>();
      for (let t = from; t < to; t += step) buckets.set(t, { requests: 0, errors: 0 });
      for (const r of rows) {
        const bucket = buckets.get(r.hour);
        if (bucket === undefined) continue;
        bucket.requests += r.count;
        if (r.status >= 400) bucket.errors += r.count;
      }
      const byEndpoint: Record<string, number> = {};
      const byStatus: Record<string, number> = {};
      const byKey: Record<string, number> = {};
      for (const r of all) {
        byEndpoint[r.endpoint] = (byEndpoint[r.endpoint] ?? 0) + r.count;
        byStatus[String(r.status)] = (byStatus[String(r.status)] ?? 0) + r.count;
        const key = r.keyId === '' ? 'session' : r.keyId;
        byKey[key] = (byKey[key] ?? 0) + r.count;
      }

      return {
        from: new Date(from).toISOString(),
        to: new Date(to).toISOString(),
        granularity,
        total: all.reduce((sum, r) => sum + r.count, 0),
        series: [...buckets].map(([start, b]) => ({ start: new Date(start).toISOString(), ...b })),
        by_endpoint: byEndpoint,
        by_status: byStatus,
        by_key: byKey,
        quota: await quota(principal, now),
      };
    },

    /**
     * Usage summed per UTC hour or day and the given columns over [from, to) (epoch ms on hour
     * boundaries), counts still in memory included: what the dashboard's view models read.
     */
    grouped(
      principal: Principal,
      range: { from: number; to: number },
      step: 'hour' | 'day',
      columns: readonly UsageColumn[],
    ): Promise<UsageRow[]> {
      assertPlanHas(plans, principal.plan, (p) => p.usageAnalytics, 'Usage analytics');
      return grouped(principal.accountId as string, range, step, columns);
    },

    /** Today's (or this hour's) quota of the account, as the usage report states it. */
    quota(principal: Principal): Promise<UsageQuota> {
      return quota(principal, clock.now());
    },

    /**
     * The quota as the API enforces it for requests of `principal` from `address`: a Free
     * account's requests, with or without a key, spend both its own bucket and its client
     * address's (one per IPv4 address or IPv6 /64, shared with anonymous requests from there),
     * and the tighter of the two decides; other plans count by account only.
     */
    async quotaAt(principal: Principal, address: string): Promise<UsageQuota> {
      const now = clock.now();
      const own = await quota(principal, now);
      if (principal.plan.id !== 'free') return own;
      const byAddress = await quotaOf(addressBucket(address), principal.plan, now);
      return own.remaining === null ||
        (byAddress.remaining !== null && byAddress.remaining < own.remaining)
        ? byAddress
        : own;
    },
  };

  /** The written sums and the counts still in memory, per bucket and the given columns. */
  async function grouped(
    accountId: string,
    range: { from: number; to: number },
    step: 'hour' | 'day',
    columns: readonly UsageColumn[],
  ): Promise<UsageRow[]> {
    const size = step === 'hour' ? HOUR_MS : DAY_MS;
    const pending = recorder
      .pending(accountId)
      .filter((r) => r.hour >= range.from && r.hour < range.to)
      .map((r) => ({
        ...r,
        hour: windowStart(r.hour, size),
        keyId: columns.includes('key_id') ? r.keyId : '',
        endpoint: columns.includes('endpoint') ? r.endpoint : '',
        status: columns.includes('status') ? r.status : 0,
      }));
    const written = await usageGrouped(db, accountId, range.from, range.to, step, columns);
    return pending.length === 0 ? written : sumRows([...written, ...pending]);
  }

  function quota(principal: Principal, now: number): Promise<UsageQuota> {
    return quotaOf(principal.limitBucket, principal.plan, now);
  }

  async function quotaOf(bucket: string, plan: Plan, now: number): Promise<UsageQuota> {
    const rules = planRules(plan);
    const state =
      rules.length === 0 ? undefined : (await limiter.peek(bucket, rules, now)).states[0];
    return state === undefined
      ? { limit: null, used: null, remaining: null, window: null, resets_at: null }
      : {
          limit: state.rule.limit,
          used: state.rule.limit - state.remaining,
          remaining: state.remaining,
          window: state.rule.windowMs === DAY_MS ? 'day' : 'hour',
          resets_at: new Date(state.resetAt).toISOString(),
        };
  }
}

/** Today's (or this hour's) quota of the account; all null when the plan has no limit. */
export type UsageQuota =
  | { limit: null; used: null; remaining: null; window: null; resets_at: null }
  | { limit: number; used: number; remaining: number; window: 'day' | 'hour'; resets_at: string };
export type UsageService = ReturnType<typeof createUsageService>;

const FIRST_DAY = '1970-01-01';
// The day after `to` must still be a four-digit year the database can hold.
const LAST_DAY = '9999-12-30';

function parseDay(name: string, value: string): number {
  const at = Date.parse(`${value}T00:00:00Z`);
  // Date.parse rolls 2026-02-30 over to March; a real calendar day reads back unchanged.
  if (
    !/^\d{4}-\d{2}-\d{2}$/.test(value) ||
    Number.isNaN(at) ||
    new Date(at).toISOString().slice(0, 10) !== value
  ) {
    throw AppError.invalidParams([{ name, reason: `'${value}' is not a date (YYYY-MM-DD)` }]);
  }
  if (value < FIRST_DAY || value > LAST_DAY) {
    throw AppError.invalidParams([
      { name, reason: `'${value}' is not between ${FIRST_DAY} and ${LAST_DAY}` },
    ]);
  }
  return at;
}
