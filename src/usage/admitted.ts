import type { LimitBaseline } from '../limits/index.js';
import type { Queryable } from '../store/index.js';
import type { UsageRecorder } from './recorder.js';

/** The endpoints that spend quota, as usage records them. */
const QUOTA_ENDPOINTS = [
  'GET /api/v1/salary',
  'GET /api/v1/salary/history',
  'GET /api/v1/countries',
  'GET /api/v1/jobs',
  'GET /api/v1/bulk/countries',
  'GET /api/v1/bulk/jobs',
  'GET /api/v1/bulk/archive',
];

const ACCOUNT_BUCKET = 'acct:';

/**
 * The limiter's baseline from usage: an account's answered (status below 400) requests to the
 * quota endpoints in the window, as written by every instance plus this instance's counts not
 * yet written. Refused and failed requests are left out, so the floor never exceeds what the
 * limiter admitted (no false 429). Address buckets (anonymous Free) have no usage rows: 0.
 */
export function admittedFromUsage(db: Queryable, recorder: UsageRecorder): LimitBaseline {
  return async (bucket, rule, windowStart) => {
    if (!bucket.startsWith(ACCOUNT_BUCKET)) return 0;
    const accountId = bucket.slice(ACCOUNT_BUCKET.length);
    const windowEnd = windowStart + rule.windowMs;
    const [row] = await db.query<{ n: number | string | null }>(
      `SELECT sum(count) AS n FROM usage_hourly
       WHERE account_id = $1 AND hour >= $2 AND hour < $3 AND status < 400 AND endpoint = ANY($4)`,
      [
        accountId,
        new Date(windowStart).toISOString(),
        new Date(windowEnd).toISOString(),
        QUOTA_ENDPOINTS,
      ],
    );
    const pending = recorder
      .pending(accountId)
      .filter(
        (r) =>
          r.hour >= windowStart &&
          r.hour < windowEnd &&
          r.status < 400 &&
          QUOTA_ENDPOINTS.includes(r.endpoint),
      )
      .reduce((sum, r) => sum + r.count, 0);
    return Number(row?.n ?? 0) + pending;
  };
}
