import { jsonColumn, type Queryable } from '../store/index.js';

export interface UsageRow {
  accountId: string;
  keyId: string;
  endpoint: string;
  status: number;
  /** Start of the UTC hour (or, summed per day, of the UTC day), epoch ms. */
  hour: number;
  count: number;
}

const DAY_MS = 86_400_000;

/**
 * Adds counts to the hourly rows and to their sums per day (usage_daily) and per hour and column
 * (usage_hourly_by_column), in one statement for the whole batch: the sums change with the rows
 * or not at all, and two instances adding to the same rows each add their own counts. Every
 * insert takes its rows in key order, so concurrent flushes lock rows in the same order.
 */
export async function addUsage(db: Queryable, rows: readonly UsageRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db.query(
    `WITH batch AS (
       SELECT account_id, key_id, endpoint, status, hour, sum(count) AS count
       FROM unnest($1::text[], $2::text[], $3::text[], $4::int[], $5::timestamptz[], $6::bigint[])
         AS u (account_id, key_id, endpoint, status, hour, count)
       GROUP BY 1, 2, 3, 4, 5
     ), hourly AS (
       INSERT INTO usage_hourly (account_id, key_id, endpoint, status, hour, count)
       SELECT account_id, key_id, endpoint, status, hour, count FROM batch
       ORDER BY account_id, hour, key_id, endpoint, status
       ON CONFLICT (account_id, hour, key_id, endpoint, status)
       DO UPDATE SET count = usage_hourly.count + EXCLUDED.count
     ), daily AS (
       INSERT INTO usage_daily (account_id, day, key_id, endpoint, status, count)
       SELECT account_id, date_trunc('day', hour, 'UTC'), key_id, endpoint, status, sum(count)
       FROM batch GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5
       ON CONFLICT (account_id, day, key_id, endpoint, status)
       DO UPDATE SET count = usage_daily.count + EXCLUDED.count
     )
     INSERT INTO usage_hourly_by_column (account_id, column_name, hour, value, count)
     SELECT account_id, column_name, hour, value, sum(count) FROM (
       SELECT account_id, 'key_id' AS column_name, hour, key_id AS value, count FROM batch
       UNION ALL SELECT account_id, 'endpoint', hour, endpoint, count FROM batch
       UNION ALL SELECT account_id, 'status', hour, status::text, count FROM batch
     ) AS c
     GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
     ON CONFLICT (account_id, column_name, hour, value)
     DO UPDATE SET count = usage_hourly_by_column.count + EXCLUDED.count`,
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

/** The columns usage can be grouped by besides the time bucket (a closed list: SQL names). */
export const USAGE_COLUMNS = ['key_id', 'endpoint', 'status'] as const;
export type UsageColumn = (typeof USAGE_COLUMNS)[number];

/**
 * Usage summed per time bucket (UTC hour or day, its start in `hour`) and the given columns over
 * [from, to), one row per bucket and values. Columns not grouped by come back as '' (key,
 * endpoint) or 0 (status). Read from the narrowest table that holds the answer: per day from
 * usage_daily (so `from` and `to` must be UTC midnights), per hour and one column (or none)
 * from usage_hourly_by_column, per hour and more columns from usage_hourly. The rows come back
 * as one JSON array: thousands of result rows cost PGlite far more than their sums do.
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
  let source: string;
  if (step === 'day') {
    if (from % DAY_MS !== 0 || to % DAY_MS !== 0)
      throw new Error('usage per day is read for whole UTC days');
    source = `SELECT day AS bucket, ${grouped.map((c) => `${c}, `).join('')}sum(count) AS count
      FROM usage_daily WHERE account_id = $1 AND day >= $2 AND day < $3
      GROUP BY 1${grouped.map((_, i) => `, ${i + 2}`).join('')}`;
  } else if (grouped.length === 0) {
    source = `SELECT hour AS bucket, sum(count) AS count FROM usage_hourly_by_column
      WHERE account_id = $1 AND column_name = 'status' AND hour >= $2 AND hour < $3
      GROUP BY 1`;
  } else if (grouped.length === 1) {
    const column = grouped[0] as UsageColumn;
    const value = column === 'status' ? 'value::int' : 'value';
    source = `SELECT hour AS bucket, ${value} AS ${column}, count FROM usage_hourly_by_column
      WHERE account_id = $1 AND column_name = '${column}' AND hour >= $2 AND hour < $3`;
  } else {
    source = `SELECT hour AS bucket, ${grouped.map((c) => `${c}, `).join('')}sum(count) AS count
      FROM usage_hourly WHERE account_id = $1 AND hour >= $2 AND hour < $3
      GROUP BY 1${grouped.map((_, i) => `, ${i + 2}`).join('')}`;
  }
  const [result] = await db.query<{ rows: unknown[][] | string }>(
    `SELECT coalesce(json_agg(json_build_array(
       (extract(epoch FROM bucket) * 1000)::bigint, ${grouped.map((c) => `${c}, `).join('')}count
     )), '[]') AS rows FROM (${source}) AS g`,
    [accountId, new Date(from).toISOString(), new Date(to).toISOString()],
  );
  // Where each column is in a row ([bucket, ...grouped, count]); 0: not grouped by.
  const [key = 0, endpoint = 0, status = 0] = USAGE_COLUMNS.map((c) => grouped.indexOf(c) + 1);
  return jsonColumn(result?.rows ?? []).map((r) => ({
    accountId,
    keyId: key === 0 ? '' : (r[key] as string),
    endpoint: endpoint === 0 ? '' : (r[endpoint] as string),
    status: status === 0 ? 0 : (r[status] as number),
    hour: Number(r[0]),
    count: Number(r[grouped.length + 1]),
  }));
}

/** The rows summed per account, key, endpoint, status and bucket (one row each). */
export function sumRows(rows: readonly UsageRow[]): UsageRow[] {
  const out = new Map<string, UsageRow>();
  for (const r of rows) {
    const key = `${r.accountId}|${r.keyId}|${r.endpoint}|${r.status}|${r.hour}`;
    const prior = out.get(key);
    if (prior === undefined) out.set(key, { ...r });
    else prior.count += r.count;
  }
  return [...out.values()];
}

/** Per endpoint, the answered requests (status below 400) of an account from `from` to `to`. */
export async function answeredByEndpoint(
  db: Queryable,
  accountId: string,
  from: number,
  to: number,
): Promise<{ endpoint: string; count: number }[]> {
  const rows = await db.query<{ endpoint: string; n: number | string }>(
    `SELECT endpoint, sum(count) AS n FROM usage_hourly
     WHERE account_id = $1 AND hour >= $2 AND hour < $3 AND status < 400
     GROUP BY endpoint`,
    [accountId, new Date(from).toISOString(), new Date(to).toISOString()],
  );
  return rows.map((r) => ({ endpoint: r.endpoint, count: Number(r.n) }));
}

/** Per account, endpoint and hour, the answered requests (status below 400) from `from` to `to`. */
export async function answeredByAccountHour(
  db: Queryable,
  from: number,
  to: number,
): Promise<{ accountId: string; endpoint: string; hour: number; count: number }[]> {
  const rows = await db.query<{
    account_id: string;
    endpoint: string;
    hour: Date | string;
    n: number | string;
  }>(
    `SELECT account_id, endpoint, hour, sum(count) AS n FROM usage_hourly
     WHERE account_id IS NOT NULL AND hour >= $1 AND hour < $2 AND status < 400
     GROUP BY account_id, endpoint, hour`,
    [new Date(from).toISOString(), new Date(to).toISOString()],
  );
  return rows.map((r) => ({
    accountId: r.account_id,
    endpoint: r.endpoint,
    hour: new Date(r.hour).getTime(),
    count: Number(r.n),
  }));
}

/** What an anonymous client address bucket (by its keyed hash) admitted in one rule's window. */
export interface AddressCountRow {
  hash: string;
  rule: string;
  windowStart: number;
  windowEnd: number;
  units: number;
}

/** The address buckets' counts of windows not yet ended at `now` (those that admitted some). */
export async function openAddressCounts(db: Queryable, now: number): Promise<AddressCountRow[]> {
  const rows = await db.query<{
    bucket_hash: string;
    rule: string;
    window_start: Date | string;
    window_end: Date | string;
    units: number | string;
  }>(
    `SELECT bucket_hash, rule, window_start, window_end, units FROM limit_address_counts
     WHERE window_end > $1 AND units > 0`,
    [new Date(now).toISOString()],
  );
  return rows.map((r) => ({
    hash: r.bucket_hash,
    rule: r.rule,
    windowStart: new Date(r.window_start).getTime(),
    windowEnd: new Date(r.window_end).getTime(),
    units: Number(r.units),
  }));
}

/**
 * Adds each row's units to its bucket's count (several instances add their own shares), never
 * below zero, then deletes the rows of windows ended at `now`. Rows are taken in key order, so
 * concurrent flushes lock them in the same order.
 */
export async function addAddressCounts(
  tx: Queryable,
  rows: readonly AddressCountRow[],
  now: number,
): Promise<void> {
  if (rows.length > 0)
    await tx.query(
      `INSERT INTO limit_address_counts (bucket_hash, rule, window_start, window_end, units)
       SELECT * FROM unnest($1::text[], $2::text[], $3::timestamptz[], $4::timestamptz[], $5::bigint[])
       ORDER BY 3, 2, 1
       ON CONFLICT (window_start, rule, bucket_hash)
       DO UPDATE SET units = GREATEST(0, limit_address_counts.units + EXCLUDED.units)`,
      [
        rows.map((r) => r.hash),
        rows.map((r) => r.rule),
        rows.map((r) => new Date(r.windowStart).toISOString()),
        rows.map((r) => new Date(r.windowEnd).toISOString()),
        rows.map((r) => r.units),
      ],
    );
  await tx.query('DELETE FROM limit_address_counts WHERE window_end <= $1', [
    new Date(now).toISOString(),
  ]);
}
