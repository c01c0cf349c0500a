import type { Queryable } from './db.js';

/**
 * An outbox table the job queue (lib/queue.ts) works on. Every such table has `id`, `status`,
 * `attempts`, `next_attempt_at`, `claimed_by`, `claimed_until` and `updated_at`; what else a row
 * holds, and how an attempt ends, is the feature's. Names here come from code, never from input.
 */
export interface QueueTable {
  readonly table: string;
  /** Statuses of a row that waits for an attempt or is in one. */
  readonly open: readonly string[];
  /** Further assignments when a row is claimed (`$2` is now), e.g. `status = 'running'`. */
  readonly onClaim?: string;
  /** A join over the row (aliased `q`) and a condition the joined rows must meet to be due. */
  readonly join?: string;
  readonly dueWhen?: string;
}

const openStatuses = (t: QueueTable): string => t.open.map((s) => `'${s}'`).join(', ');

/**
 * The claim: up to `$4` due rows (open, due by `$2`, lease lapsed or none) leased to holder `$1`
 * until `$3`, counting the attempt (so one cut short by a crash counts too). FOR UPDATE SKIP
 * LOCKED: concurrent workers never claim the same row. A repository runs it as it is or inside
 * a `WITH claimed AS (…)` that joins what an attempt needs.
 */
export function claimSql(t: QueueTable, returning: string): string {
  const join = t.join ?? '';
  const dueWhen = t.dueWhen === undefined ? '' : `AND ${t.dueWhen}`;
  return `UPDATE ${t.table} SET claimed_by = $1, claimed_until = $3, attempts = attempts + 1,
       updated_at = $2${t.onClaim === undefined ? '' : `, ${t.onClaim}`}
     WHERE id IN (
       SELECT q.id FROM ${t.table} q ${join}
       WHERE q.status IN (${openStatuses(t)}) AND q.next_attempt_at <= $2
         AND (q.claimed_until IS NULL OR q.claimed_until <= $2) ${dueWhen}
       ORDER BY q.next_attempt_at
       LIMIT $4
       FOR UPDATE OF q SKIP LOCKED)
     RETURNING ${returning}`;
}

/** Claims up to `limit` due rows for `holder` until `leaseUntil`; their ids and attempt counts. */
export async function claimRows(
  db: Queryable,
  t: QueueTable,
  holder: string,
  now: Date,
  leaseUntil: Date,
  limit: number,
): Promise<{ id: string; attempts: number }[]> {
  return db.query<{ id: string; attempts: number }>(claimSql(t, 'id, attempts'), [
    holder,
    now.toISOString(),
    leaseUntil.toISOString(),
    limit,
  ]);
}

const toParam = (v: unknown): unknown => (v instanceof Date ? v.toISOString() : v);

/**
 * Ends a claimed attempt with `values` (column → value; `undefined` leaves a column as it is),
 * only while `holder` still holds the row; false when its lease lapsed and another took it.
 */
export async function settleClaimed(
  db: Queryable,
  t: QueueTable,
  id: string,
  holder: string,
  values: Readonly<Record<string, unknown>>,
  at: Date,
): Promise<boolean> {
  const params: unknown[] = [id, holder, at.toISOString()];
  const sets: string[] = [];
  for (const [column, value] of Object.entries(values)) {
    if (value === undefined) continue;
    params.push(toParam(value));
    sets.push(`${column} = $${params.length}`);
  }
  const rows = await db.query<{ id: string }>(
    `UPDATE ${t.table}
     SET ${sets.map((s) => `${s}, `).join('')}claimed_by = NULL, claimed_until = NULL, updated_at = $3
     WHERE id = $1 AND claimed_by = $2 AND status IN (${openStatuses(t)}) RETURNING id`,
    params,
  );
  return rows.length === 1;
}

/** Moves a long attempt's lease on while `holder` holds the row; false when it was lost. */
export async function extendLease(
  db: Queryable,
  t: QueueTable,
  id: string,
  holder: string,
  leaseUntil: Date,
): Promise<boolean> {
  const rows = await db.query<{ id: string }>(
    `UPDATE ${t.table} SET claimed_until = $3
     WHERE id = $1 AND claimed_by = $2 AND status IN (${openStatuses(t)}) RETURNING id`,
    [id, holder, leaseUntil.toISOString()],
  );
  return rows.length === 1;
}

/** Claims left by a process that stopped: due again at once (embedded mode, one process). */
export async function releaseClaims(db: Queryable, t: QueueTable): Promise<number> {
  const rows = await db.query<{ id: string }>(
    `UPDATE ${t.table} SET claimed_by = NULL, claimed_until = NULL
     WHERE status IN (${openStatuses(t)}) AND claimed_by IS NOT NULL RETURNING id`,
  );
  return rows.length;
}
