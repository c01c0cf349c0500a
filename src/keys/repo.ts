import type { Queryable } from '../store/index.js';
import type { KeyMode } from './key-format.js';

export interface KeyRow {
  id: string;
  accountId: string;
  name: string;
  prefix: string;
  keyHash: string;
  mode: KeyMode;
  scopes: string[] | null;
  allowlist: string[];
  createdAt: string;
  lastUsedAt: string | null;
  expiresAt: string | null;
  revokedAt: string | null;
  replacedBy: string | null;
  updatedAt: string;
}

interface Raw {
  id: string;
  account_id: string;
  name: string;
  prefix: string;
  key_hash: string;
  mode: KeyMode;
  scopes: string[] | null;
  allowlist: string[] | null;
  created_at: Date | string;
  last_used_at: Date | string | null;
  expires_at: Date | string | null;
  revoked_at: Date | string | null;
  replaced_by: string | null;
  updated_at: Date | string;
}

const COLUMNS =
  'id, account_id, name, prefix, key_hash, mode, scopes, allowlist, created_at, last_used_at, expires_at, revoked_at, replaced_by, updated_at';
const iso = (v: Date | string | null): string | null =>
  v === null ? null : new Date(v).toISOString();

function toKey(r: Raw): KeyRow {
  return {
    id: r.id,
    accountId: r.account_id,
    name: r.name,
    prefix: r.prefix,
    keyHash: r.key_hash,
    mode: r.mode,
    scopes: r.scopes,
    allowlist: r.allowlist ?? [],
    createdAt: new Date(r.created_at).toISOString(),
    lastUsedAt: iso(r.last_used_at),
    expiresAt: iso(r.expires_at),
    revokedAt: iso(r.revoked_at),
    replacedBy: r.replaced_by,
    updatedAt: new Date(r.updated_at).toISOString(),
  };
}

export async function insertKey(
  db: Queryable,
  k: {
    id: string;
    accountId: string;
    name: string;
    prefix: string;
    keyHash: string;
    mode: KeyMode;
    scopes: string[] | null;
    allowlist: string[];
    at: Date;
  },
): Promise<KeyRow> {
  const rows = await db.query<Raw>(
    `INSERT INTO api_keys (id, account_id, name, prefix, key_hash, mode, scopes, allowlist, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9) RETURNING ${COLUMNS}`,
    [
      k.id,
      k.accountId,
      k.name,
      k.prefix,
      k.keyHash,
      k.mode,
      k.scopes,
      k.allowlist,
      k.at.toISOString(),
    ],
  );
  return toKey(rows[0] as Raw);
}

export async function listKeys(db: Queryable, accountId: string): Promise<KeyRow[]> {
  return (
    await db.query<Raw>(
      `SELECT ${COLUMNS} FROM api_keys WHERE account_id = $1 ORDER BY created_at, id`,
      [accountId],
    )
  ).map(toKey);
}

export async function findKey(
  db: Queryable,
  accountId: string,
  id: string,
): Promise<KeyRow | undefined> {
  const rows = await db.query<Raw>(
    `SELECT ${COLUMNS} FROM api_keys WHERE account_id = $1 AND id = $2`,
    [accountId, id],
  );
  return rows[0] === undefined ? undefined : toKey(rows[0]);
}

export async function findKeyByHash(db: Queryable, keyHash: string): Promise<KeyRow | undefined> {
  const rows = await db.query<Raw>(`SELECT ${COLUMNS} FROM api_keys WHERE key_hash = $1`, [
    keyHash,
  ]);
  return rows[0] === undefined ? undefined : toKey(rows[0]);
}

/**
 * Keys of one mode that count against the plan's key limit (each mode has its own): not
 * revoked, not winding down after rotation.
 */
export async function countActiveKeys(
  db: Queryable,
  accountId: string,
  mode: KeyMode,
): Promise<number> {
  const rows = await db.query<{ n: number | string }>(
    'SELECT count(*) AS n FROM api_keys WHERE account_id = $1 AND mode = $2 AND revoked_at IS NULL AND expires_at IS NULL',
    [accountId, mode],
  );
  return Number(rows[0]?.n ?? 0);
}

export async function updateKey(
  db: Queryable,
  accountId: string,
  id: string,
  changes: {
    name?: string;
    allowlist?: string[];
    revokedAt?: Date;
    expiresAt?: Date;
    replacedBy?: string;
  },
  at: Date,
): Promise<KeyRow | undefined> {
  const rows = await db.query<Raw>(
    `UPDATE api_keys SET
       name = COALESCE($3, name),
       allowlist = COALESCE($4::text[], allowlist),
       revoked_at = COALESCE(revoked_at, $5),
       expires_at = COALESCE($6, expires_at),
       replaced_by = COALESCE($7, replaced_by),
       updated_at = GREATEST($8::timestamptz, updated_at + interval '1 millisecond')
     WHERE account_id = $1 AND id = $2 RETURNING ${COLUMNS}`,
    [
      accountId,
      id,
      changes.name ?? null,
      changes.allowlist ?? null,
      changes.revokedAt?.toISOString() ?? null,
      changes.expiresAt?.toISOString() ?? null,
      changes.replacedBy ?? null,
      at.toISOString(),
    ],
  );
  return rows[0] === undefined ? undefined : toKey(rows[0]);
}

/**
 * Revokes an account's keys beyond the newest `keep` active ones of each mode (a plan with
 * fewer keys).
 */
export async function revokeKeysBeyond(
  db: Queryable,
  accountId: string,
  keep: number,
  at: Date,
): Promise<string[]> {
  const rows = await db.query<{ id: string }>(
    `UPDATE api_keys SET revoked_at = $3, updated_at = GREATEST($3::timestamptz, updated_at + interval '1 millisecond')
     WHERE id IN (
       SELECT id FROM (
         SELECT id, row_number() OVER (PARTITION BY mode ORDER BY created_at DESC, id DESC) AS n
         FROM api_keys WHERE account_id = $1 AND revoked_at IS NULL
       ) ranked WHERE n > $2
     ) RETURNING id`,
    [accountId, keep, at.toISOString()],
  );
  return rows.map((r) => r.id);
}

export async function keysChangedSince(db: Queryable, since: string): Promise<KeyRow[]> {
  return (
    await db.query<Raw>(
      `SELECT ${COLUMNS} FROM api_keys WHERE updated_at > $1 ORDER BY updated_at`,
      [since],
    )
  ).map(toKey);
}

export async function liveKeys(db: Queryable, now: Date): Promise<KeyRow[]> {
  return (
    await db.query<Raw>(
      `SELECT ${COLUMNS} FROM api_keys WHERE revoked_at IS NULL AND (expires_at IS NULL OR expires_at > $1)`,
      [now.toISOString()],
    )
  ).map(toKey);
}

/** Records last use, batched: one statement for many keys. */
export async function touchKeys(db: Queryable, lastUsed: Map<string, number>): Promise<void> {
  if (lastUsed.size === 0) return;
  const ids = [...lastUsed.keys()];
  const times = ids.map((id) => new Date(lastUsed.get(id) as number).toISOString());
  await db.query(
    `UPDATE api_keys k SET last_used_at = GREATEST(k.last_used_at, u.at)
     FROM unnest($1::text[], $2::timestamptz[]) AS u(id, at) WHERE k.id = u.id`,
    [ids, times],
  );
}

/** The IP allowlist of an OAuth client of the account (what its tokens may hand on to keys). */
export async function findClientAllowlist(
  db: Queryable,
  accountId: string,
  clientId: string,
): Promise<string[] | undefined> {
  const [row] = await db.query<{ allowlist: string[] }>(
    'SELECT allowlist FROM oauth_clients WHERE id = $1 AND account_id = $2',
    [clientId, accountId],
  );
  return row?.allowlist;
}

/** Locks the account's row for a key change; whether its e-mail address is verified. */
export async function lockAccountForKeys(db: Queryable, accountId: string): Promise<boolean> {
  const rows = await db.query<{ verified: boolean }>(
    'SELECT email_verified_at IS NOT NULL AS verified FROM accounts WHERE id = $1 FOR UPDATE',
    [accountId],
  );
  return rows[0]?.verified === true;
}
