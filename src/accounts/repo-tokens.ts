import type { Queryable } from '../store/index.js';

export type TokenPurpose = 'email.verify' | 'password.reset';

export interface AccountToken {
  id: string;
  accountId: string;
  purpose: TokenPurpose;
  email: string;
  expiresAt: Date;
  usedAt: Date | null;
}

export async function insertToken(
  db: Queryable,
  t: {
    id: string;
    accountId: string;
    purpose: TokenPurpose;
    email: string;
    at: Date;
    expiresAt: Date;
  },
): Promise<void> {
  await db.query(
    `INSERT INTO account_tokens (id, account_id, purpose, email, created_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6)`,
    [t.id, t.accountId, t.purpose, t.email, t.at.toISOString(), t.expiresAt.toISOString()],
  );
}

/** The token, locked until the transaction ends (so two uses of one token are one after another). */
export async function lockToken(db: Queryable, id: string): Promise<AccountToken | undefined> {
  const rows = await db.query<{
    id: string;
    account_id: string;
    purpose: string;
    email: string;
    expires_at: Date | string;
    used_at: Date | string | null;
  }>(
    `SELECT id, account_id, purpose, email, expires_at, used_at FROM account_tokens
     WHERE id = $1 FOR UPDATE`,
    [id],
  );
  const r = rows[0];
  return r === undefined
    ? undefined
    : {
        id: r.id,
        accountId: r.account_id,
        purpose: r.purpose as TokenPurpose,
        email: r.email,
        expiresAt: new Date(r.expires_at),
        usedAt: r.used_at === null ? null : new Date(r.used_at),
      };
}

/** Marks every unused token of the account and purpose used (the one just used among them). */
export async function useTokens(
  db: Queryable,
  accountId: string,
  purpose: TokenPurpose,
  at: Date,
): Promise<void> {
  await db.query(
    `UPDATE account_tokens SET used_at = $3
     WHERE account_id = $1 AND purpose = $2 AND used_at IS NULL`,
    [accountId, purpose, at.toISOString()],
  );
}

/** Sets the account's verified time, bumping updated_at so every credential view hears of it. */
export async function markEmailVerified(db: Queryable, accountId: string, at: Date): Promise<void> {
  await db.query(
    `UPDATE accounts SET email_verified_at = $2,
       updated_at = GREATEST($2::timestamptz, updated_at + interval '1 millisecond')
     WHERE id = $1 AND email_verified_at IS NULL`,
    [accountId, at.toISOString()],
  );
}
