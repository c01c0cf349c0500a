import { sha256Hex } from '../lib/crypto.js';
import { jsonColumn, type Queryable } from '../store/index.js';

/** Arbitrary constant for pg_advisory_xact_lock: appends to the hash chain one at a time. */
const AUDIT_LOCK = 7_405_112_027;
export const GENESIS = '0'.repeat(64);

export interface AuditEntry {
  accountId: string | null;
  /** Who acted: `account:<id>`, `key:<id>`, `operator`, `system`. */
  actor: string;
  /** `feature.verb`, e.g. `keys.create`, `sessions.create_failed`. */
  action: string;
  data?: Record<string, unknown>;
  ip?: string | null;
  at: Date;
}

/**
 * The tamper-evident audit log: each entry's hash covers its content and the previous entry's
 * hash, so editing or deleting an entry breaks every hash after it (`verifyAuditChain`).
 * Written in the caller's transaction, so an action and its audit entry commit together.
 */
export async function recordAudit(tx: Queryable, entry: AuditEntry): Promise<void> {
  await tx.query('SELECT pg_advisory_xact_lock($1)', [AUDIT_LOCK]);
  const last = await tx.query<{ hash: string }>(
    'SELECT hash FROM audit_log ORDER BY id DESC LIMIT 1',
  );
  const prevHash = last[0]?.hash ?? GENESIS;
  const data = entry.data ?? {};
  const createdAt = entry.at.toISOString();
  const hash = entryHash(
    prevHash,
    entry.accountId,
    entry.actor,
    entry.action,
    data,
    entry.ip ?? null,
    createdAt,
  );
  await tx.query(
    `INSERT INTO audit_log (account_id, actor, action, data, ip, created_at, prev_hash, hash)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [
      entry.accountId,
      entry.actor,
      entry.action,
      JSON.stringify(data),
      entry.ip ?? null,
      createdAt,
      prevHash,
      hash,
    ],
  );
}

export function entryHash(
  prevHash: string,
  accountId: string | null,
  actor: string,
  action: string,
  data: unknown,
  ip: string | null,
  createdAt: string,
): string {
  return sha256Hex(
    JSON.stringify([prevHash, accountId, actor, action, canonical(data), ip, createdAt]),
  );
}

/** JSON with sorted keys, so the hash does not depend on how the database orders jsonb keys. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>)
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([k, v]) => [k, canonical(v)]),
    );
  }
  return value;
}

export interface AuditRow {
  id: number;
  account_id: string | null;
  actor: string;
  action: string;
  data: Record<string, unknown>;
  ip: string | null;
  created_at: string;
}

export async function listAudit(
  db: Queryable,
  accountId: string,
  limit = 100,
): Promise<AuditRow[]> {
  const rows = await db.query<
    AuditRow & { data: unknown; created_at: Date | string; id: number | string }
  >(
    `SELECT id, account_id, actor, action, data, ip, created_at FROM audit_log
     WHERE account_id = $1 ORDER BY id DESC LIMIT $2`,
    [accountId, limit],
  );
  return rows.map((r) => ({
    ...r,
    id: Number(r.id),
    data: jsonColumn(r.data as Record<string, unknown> | string),
    created_at: new Date(r.created_at).toISOString(),
  }));
}

/** The most entries one export returns: a longer period is asked for in parts. */
export const MAX_AUDIT_EXPORT = 100_000;

/**
 * The account's entries written in [from, to), oldest first, at most `limit` (one more than
 * asked tells the caller the period holds more).
 */
export async function listAuditPeriod(
  db: Queryable,
  accountId: string,
  period: { from?: Date | undefined; to?: Date | undefined },
  limit = MAX_AUDIT_EXPORT,
  order: 'oldest' | 'newest' = 'oldest',
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
  return rows.map((r) => ({
    ...r,
    id: Number(r.id),
    data: jsonColumn(r.data as Record<string, unknown> | string),
    created_at: new Date(r.created_at).toISOString(),
  }));
}
