import { jsonColumn, type Queryable } from '../store/index.js';

/** Arbitrary constant for pg_advisory_xact_lock: appends to the hash chain one at a time. */
const AUDIT_LOCK = 7_405_112_027;

export interface AuditRow {
  id: number;
  account_id: string | null;
  actor: string;
  action: string;
  data: Record<string, unknown>;
  ip: string | null;
  created_at: string;
}

/** A chain entry as stored, with its link and hash. */
export interface ChainRow {
  id: number | string;
  account_id: string | null;
  actor: string;
  action: string;
  data: unknown;
  ip: string | null;
  created_at: Date | string;
  prev_hash: string;
  hash: string;
}

/** An entry to append: its columns in insert order. */
export interface NewChainRow {
  accountId: string | null;
  actor: string;
  action: string;
  data: Record<string, unknown>;
  ip: string | null;
  createdAt: string;
  prevHash: string;
  hash: string;
}

/** Takes the chain's append lock until the transaction ends; returns the last entry's hash. */
export async function lockChainHead(tx: Queryable): Promise<string | undefined> {
  await tx.query('SELECT pg_advisory_xact_lock($1)', [AUDIT_LOCK]);
  const last = await tx.query<{ hash: string }>(
    'SELECT hash FROM audit_log ORDER BY id DESC LIMIT 1',
  );
  return last[0]?.hash;
}

/** Appends the entries in this order, in one INSERT (serial ids follow the VALUES order). */
export async function insertChainRows(
  tx: Queryable,
  entries: readonly NewChainRow[],
): Promise<void> {
  const values: unknown[] = [];
  const rows: string[] = [];
  for (const e of entries) {
    const n = values.length;
    rows.push(
      `($${n + 1}, $${n + 2}, $${n + 3}, $${n + 4}, $${n + 5}, $${n + 6}, $${n + 7}, $${n + 8})`,
    );
    values.push(
      e.accountId,
      e.actor,
      e.action,
      JSON.stringify(e.data),
      e.ip,
      e.createdAt,
      e.prevHash,
      e.hash,
    );
  }
  await tx.query(
    `INSERT INTO audit_log (account_id, actor, action, data, ip, created_at, prev_hash, hash)
     VALUES ${rows.join(', ')}`,
    values,
  );
}

const toAuditRow = (
  r: AuditRow & { data: unknown; created_at: Date | string; id: number | string },
): AuditRow => ({
  ...r,
  id: Number(r.id),
  data: jsonColumn(r.data as Record<string, unknown> | string),
  created_at: new Date(r.created_at).toISOString(),
});

/** The account's newest entries, newest first. */
export async function newestEntries(
  db: Queryable,
  accountId: string,
  limit: number,
): Promise<AuditRow[]> {
  const rows = await db.query<
    AuditRow & { data: unknown; created_at: Date | string; id: number | string }
  >(
    `SELECT id, account_id, actor, action, data, ip, created_at FROM audit_log
     WHERE account_id = $1 ORDER BY id DESC LIMIT $2`,
    [accountId, limit],
  );
  return rows.map(toAuditRow);
}

/** The account's entries written in [from, to), in `order`, at most `limit`. */
export async function entriesInPeriod(
  db: Queryable,
  accountId: string,
  period: { from?: Date | undefined; to?: Date | undefined },
  limit: number,
  order: 'oldest' | 'newest',
): Promise<AuditRow[]> {
  const rows = await db.query<
    AuditRow & { data: unknown; created_at: Date | string; id: number | string }
  >(
    `SELECT id, account_id, actor, action, data, ip, created_at FROM audit_log
     WHERE account_id = $1 AND ($2::timestamptz IS NULL OR created_at >= $2)
       AND ($3::timestamptz IS NULL OR created_at < $3)
     ORDER BY id ${order === 'oldest' ? 'ASC' : 'DESC'} LIMIT $4`,
    [accountId, period.from?.toISOString() ?? null, period.to?.toISOString() ?? null, limit],
  );
  return rows.map(toAuditRow);
}

/** The first and last ids of the whole chain's entries written in [from, to) (ISO or null). */
export async function chainBounds(
  db: Queryable,
  from: string | null,
  to: string | null,
): Promise<{ first: number | null; last: number | null }> {
  const bounds = await db.query<{ first: number | string | null; last: number | string | null }>(
    `SELECT (SELECT min(id) FROM audit_log WHERE $1::timestamptz IS NULL OR created_at >= $1) AS first,
            (SELECT max(id) FROM audit_log WHERE $2::timestamptz IS NULL OR created_at < $2) AS last`,
    [from, to],
  );
  const first = bounds[0]?.first;
  const last = bounds[0]?.last;
  return {
    first: first === null || first === undefined ? null : Number(first),
    last: last === null || last === undefined ? null : Number(last),
  };
}

/** The entry just before `id`, if any. */
export async function entryBefore(
  db: Queryable,
  id: number,
): Promise<{ id: number; hash: string } | undefined> {
  const rows = await db.query<{ id: number | string; hash: string }>(
    'SELECT id, hash FROM audit_log WHERE id < $1 ORDER BY id DESC LIMIT 1',
    [id],
  );
  const row = rows[0];
  return row === undefined ? undefined : { id: Number(row.id), hash: row.hash };
}

/** Up to `limit` entries with ids in [from, to], in id order. */
export function chainRows(
  db: Queryable,
  from: number,
  to: number,
  limit: number,
): Promise<ChainRow[]> {
  return db.query<ChainRow>(
    `SELECT id, account_id, actor, action, data, ip, created_at, prev_hash, hash FROM audit_log
     WHERE id >= $1 AND id <= $2 ORDER BY id LIMIT ${limit}`,
    [from, to],
  );
}
