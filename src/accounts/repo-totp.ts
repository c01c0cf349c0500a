import type { Queryable } from '../store/index.js';

export interface TotpRow {
  accountId: string;
  secretSealed: string;
  enabledAt: string | null;
  lastStep: number | null;
  /** When the secret was made. */
  createdAt: string;
}

interface Raw {
  account_id: string;
  secret_sealed: string;
  created_at: Date | string;
  enabled_at: Date | string | null;
  last_step: string | number | null;
}

const iso = (v: Date | string | null): string | null =>
  v === null ? null : new Date(v).toISOString();

export async function findTotp(db: Queryable, accountId: string): Promise<TotpRow | undefined> {
  const rows = await db.query<Raw>(
    `SELECT account_id, secret_sealed, created_at, enabled_at, last_step FROM account_totp
     WHERE account_id = $1`,
    [accountId],
  );
  const r = rows[0];
  return r === undefined
    ? undefined
    : {
        accountId: r.account_id,
        secretSealed: r.secret_sealed,
        enabledAt: iso(r.enabled_at),
        lastStep: r.last_step === null ? null : Number(r.last_step),
        createdAt: new Date(r.created_at).toISOString(),
      };
}

/** A new, unconfirmed enrolment; replaces an earlier unconfirmed one, never an enabled one. */
export async function upsertPendingTotp(
  db: Queryable,
  accountId: string,
  secretSealed: string,
  at: Date,
): Promise<boolean> {
  const rows = await db.query(
    `INSERT INTO account_totp (account_id, secret_sealed, created_at) VALUES ($1, $2, $3)
     ON CONFLICT (account_id) DO UPDATE SET secret_sealed = $2, created_at = $3
       WHERE account_totp.enabled_at IS NULL
     RETURNING account_id`,
    [accountId, secretSealed, at.toISOString()],
  );
  return rows.length === 1;
}

/** Drops an unconfirmed enrolment (never an enabled one): its secret is not used. */
export async function deletePendingTotp(db: Queryable, accountId: string): Promise<void> {
  await db.query(`DELETE FROM account_totp WHERE account_id = $1 AND enabled_at IS NULL`, [
    accountId,
  ]);
}

export async function enableTotp(
  db: Queryable,
  accountId: string,
  step: number,
  at: Date,
): Promise<boolean> {
  const rows = await db.query(
    `UPDATE account_totp SET enabled_at = $2, last_step = $3
     WHERE account_id = $1 AND enabled_at IS NULL RETURNING account_id`,
    [accountId, at.toISOString(), step],
  );
  return rows.length === 1;
}

/**
 * Records `step` as the last one used, when it is later than the last one: false when a code of
 * this step (or a later one) was accepted before, so each code is accepted once.
 */
export async function useTotpStep(
  db: Queryable,
  accountId: string,
  step: number,
): Promise<boolean> {
  const rows = await db.query(
    `UPDATE account_totp SET last_step = $2
     WHERE account_id = $1 AND enabled_at IS NOT NULL AND (last_step IS NULL OR last_step < $2)
     RETURNING account_id`,
    [accountId, step],
  );
  return rows.length === 1;
}

/** Removes the account's TOTP and its recovery codes; true when two-factor was enabled. */
export async function deleteTotp(db: Queryable, accountId: string): Promise<boolean> {
  await db.query(`DELETE FROM totp_recovery_codes WHERE account_id = $1`, [accountId]);
  await db.query(`DELETE FROM totp_challenges WHERE account_id = $1`, [accountId]);
  const rows = await db.query<{ enabled_at: Date | string | null }>(
    `DELETE FROM account_totp WHERE account_id = $1 RETURNING enabled_at`,
    [accountId],
  );
  return rows[0]?.enabled_at !== null && rows[0] !== undefined;
}

export async function insertRecoveryCodes(
  db: Queryable,
  accountId: string,
  hashes: readonly string[],
): Promise<void> {
  await db.query(`DELETE FROM totp_recovery_codes WHERE account_id = $1`, [accountId]);
  await db.query(
    `INSERT INTO totp_recovery_codes (account_id, code_hash)
     SELECT $1, unnest($2::text[])`,
    [accountId, hashes],
  );
}

/** Uses the code once; the number of codes left, or null when it is unknown or used. */
export async function useRecoveryCode(
  db: Queryable,
  accountId: string,
  hash: string,
  at: Date,
): Promise<number | null> {
  const used = await db.query(
    `UPDATE totp_recovery_codes SET used_at = $3
     WHERE account_id = $1 AND code_hash = $2 AND used_at IS NULL RETURNING code_hash`,
    [accountId, hash, at.toISOString()],
  );
  if (used.length === 0) return null;
  return countRecoveryCodes(db, accountId);
}

export async function countRecoveryCodes(db: Queryable, accountId: string): Promise<number> {
  const rows = await db.query<{ n: string | number }>(
    `SELECT count(*) AS n FROM totp_recovery_codes WHERE account_id = $1 AND used_at IS NULL`,
    [accountId],
  );
  return Number(rows[0]?.n ?? 0);
}

export async function insertChallenge(
  db: Queryable,
  c: { id: string; tokenHash: string; accountId: string; ip: string; at: Date; expiresAt: Date },
): Promise<void> {
  await db.query(
    `INSERT INTO totp_challenges (id, token_hash, account_id, ip, created_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6)`,
    [c.id, c.tokenHash, c.accountId, c.ip, c.at.toISOString(), c.expiresAt.toISOString()],
  );
}

/** A live (unexpired, unused) challenge; `lock`: locked until the transaction ends. */
export async function findLiveChallenge(
  db: Queryable,
  tokenHash: string,
  at: Date,
  lock = false,
): Promise<{ id: string; accountId: string } | undefined> {
  const rows = await db.query<{ id: string; account_id: string }>(
    `SELECT id, account_id FROM totp_challenges
     WHERE token_hash = $1 AND used_at IS NULL AND expires_at > $2${lock ? ' FOR UPDATE' : ''}`,
    [tokenHash, at.toISOString()],
  );
  const r = rows[0];
  return r === undefined ? undefined : { id: r.id, accountId: r.account_id };
}

export async function useChallenge(db: Queryable, id: string, at: Date): Promise<void> {
  await db.query(`UPDATE totp_challenges SET used_at = $2 WHERE id = $1`, [id, at.toISOString()]);
  await db.query(`DELETE FROM totp_challenges WHERE expires_at < $1`, [at.toISOString()]);
}
