import type { Queryable } from '../store/index.js';

export interface UsageRow {
  accountId: string;
  keyId: string;
  endpoint: string;
  status: number;
  /** Start of the UTC hour, epoch ms. */
  hour: number;
  count: number;
}

/** Adds counts to the hourly rows, one statement for the whole batch. */
export async function addUsage(db: Queryable, rows: readonly UsageRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db.query(
    `INSERT INTO usage_hourly (account_id, key_id, endpoint, status, hour, count)
     SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::int[], $5::timestamptz[], $6::bigint[])
     ON CONFLICT (account_id, hour, key_id, endpoint, status)
     DO UPDATE SET count = usage_hourly.count + EXCLUDED.count`,
    [
      rows.map((r) => r.accountId),
      rows.map((r) => r.keyId),
      rows.map((r) => r.endpoint),
      rows.map((r) => r.status),
      rows.map((r) => new Date(r.hour).toISOString()),
      rows.map((r) => r.count),
    ],
  );
}

export async function usageBetween(
  db: Queryable,
  accountId: string,
  from: number,
  to: number,
): Promise<UsageRow[]> {
  const rows = await db.query<{
    key_id: string;
    endpoint: string;
    status: number;
    hour: Date | string;
    count: number | string;
  }>(
    `SELECT key_id, endpoint, status, hour, count FROM usage_hourly
     WHERE account_id = $1 AND hour >= $2 AND hour < $3 ORDER BY hour, endpoint, status, key_id`,
    [accountId, new Date(from).toISOString(), new Date(to).toISOString()],
  );
  return rows.map((r) => ({
    accountId,
    keyId: r.key_id,
    endpoint: r.endpoint,
    status: r.status,
    hour: new Date(r.hour).getTime(),
    count: Number(r.count),
  }));
}

/** The columns usage can be grouped by besides the time bucket (a closed list: SQL names). */
export const USAGE_COLUMNS = ['key_id', 'endpoint', 'status'] as const;
export type UsageColumn = (typeof USAGE_COLUMNS)[number];

/**
 * Usage summed per time bucket (UTC hour or day, its start in `hour`) and the given columns, in
 * the database: a page over 30 days reads hundreds of rows, not every hourly row. Columns not
 * grouped by come back as '' (key, endpoint) or 0 (status).
 */
export async function usageGrouped(
  db: Queryable,
  accountId: string,
  from: number,
  to: number,
  step: 'hour' | 'day',
  columns: readonly UsageColumn[],
): Promise<UsageRow[]> {
  const grouped = USAGE_COLUMNS.filter((c) => columns.includes(c));
  const bucket = step === 'hour' ? 'hour' : `date_trunc('day', hour, 'UTC')`;
  const rows = await db.query<{
    bucket: Date | string;
    key_id?: string;
    endpoint?: string;
    status?: number;
    count: number | string;
  }>(
    `SELECT ${bucket} AS bucket, ${grouped.map((c) => `${c}, `).join('')}sum(count) AS count
     FROM usage_hourly WHERE account_id = $1 AND hour >= $2 AND hour < $3
     GROUP BY 1${grouped.map((_, i) => `, ${i + 2}`).join('')}`,
    [accountId, new Date(from).toISOString(), new Date(to).toISOString()],
  );
  return rows.map((r) => ({
    accountId,
    keyId: r.key_id ?? '',
    endpoint: r.endpoint ?? '',
    status: r.status ?? 0,
    hour: new Date(r.bucket).getTime(),
    count: Number(r.count),
  }));
}
