import { prefixedId } from '../lib/ids.js';
import type { ContractTerms, PlanId } from '../plans/index.js';
import { jsonColumn, type Queryable } from '../store/index.js';

export interface Contract extends ContractTerms {
  note?: string;
}

/** An Enterprise account's choice of salary response fields, in order, with its own names. */
export interface ResponseSchema {
  fields: { field: string; name: string }[];
}

export interface AccountRow {
  id: string;
  email: string;
  passwordHash: string;
  plan: PlanId;
  status: 'active' | 'past_due' | 'deleted';
  contract: Contract | null;
  allowlist: string[];
  responseSchema: ResponseSchema | null;
  createdAt: string;
  updatedAt: string;
  /** When the e-mail address was verified; null until then (no paid plan, no API key). */
  emailVerifiedAt: string | null;
  contacts: AccountContacts;
}

/** Who the account's notices go to, and the Enterprise account manager. */
export interface AccountContacts {
  name: string | null;
  billingEmail: string | null;
  technicalEmail: string | null;
  noticesOptOut: boolean;
  managerName: string | null;
  managerEmail: string | null;
}

interface Raw {
  id: string;
  email: string;
  password_hash: string;
  plan: string;
  status: string;
  contract: Contract | string | null;
  allowlist: string[] | null;
  response_schema: ResponseSchema | string | null;
  created_at: Date | string;
  updated_at: Date | string;
  email_verified_at: Date | string | null;
  name: string | null;
  billing_email: string | null;
  technical_email: string | null;
  notices_opt_out: boolean | null;
  manager_name: string | null;
  manager_email: string | null;
}

const COLUMNS =
  'id, email, password_hash, plan, status, contract, allowlist, response_schema, created_at, updated_at, email_verified_at, ' +
  'name, billing_email, technical_email, notices_opt_out, manager_name, manager_email';

function toAccount(r: Raw): AccountRow {
  return {
    id: r.id,
    email: r.email,
    passwordHash: r.password_hash,
    plan: r.plan as PlanId,
    status: r.status as AccountRow['status'],
    contract: jsonColumn(r.contract),
    allowlist: r.allowlist ?? [],
    responseSchema: jsonColumn(r.response_schema),
    createdAt: new Date(r.created_at).toISOString(),
    updatedAt: new Date(r.updated_at).toISOString(),
    emailVerifiedAt:
      r.email_verified_at === null ? null : new Date(r.email_verified_at).toISOString(),
    contacts: {
      name: r.name,
      billingEmail: r.billing_email,
      technicalEmail: r.technical_email,
      noticesOptOut: r.notices_opt_out === true,
      managerName: r.manager_name,
      managerEmail: r.manager_email,
    },
  };
}

/** Changes the given contact fields (null clears one); the account as it is now. */
export async function updateContacts(
  db: Queryable,
  id: string,
  changes: Partial<AccountContacts>,
  at: Date,
): Promise<AccountRow | undefined> {
  const columns: Record<keyof AccountContacts, string> = {
    name: 'name',
    billingEmail: 'billing_email',
    technicalEmail: 'technical_email',
    noticesOptOut: 'notices_opt_out',
    managerName: 'manager_name',
    managerEmail: 'manager_email',
  };
  const set: string[] = [];
  const values: unknown[] = [id, at.toISOString()];
  for (const [key, column] of Object.entries(columns)) {
    const value = changes[key as keyof AccountContacts];
    if (value === undefined) continue;
    values.push(value);
    set.push(`${column} = $${values.length}`);
  }
  const rows = await db.query<Raw>(
    `UPDATE accounts SET ${[...set, "updated_at = GREATEST($2::timestamptz, updated_at + interval '1 millisecond')"].join(', ')}
     WHERE id = $1 RETURNING ${COLUMNS}`,
    values,
  );
  return rows[0] === undefined ? undefined : toAccount(rows[0]);
}

export async function insertAccount(
  db: Queryable,
  a: { id: string; email: string; passwordHash: string; plan: PlanId; at: Date; verified: boolean },
): Promise<AccountRow | undefined> {
  const rows = await db.query<Raw>(
    `INSERT INTO accounts (id, email, password_hash, plan, created_at, updated_at, email_verified_at)
     VALUES ($1, $2, $3, $4, $5, $5, CASE WHEN $6::boolean THEN $5::timestamptz END)
     ON CONFLICT ((lower(email))) DO NOTHING
     RETURNING ${COLUMNS}`,
    [a.id, a.email, a.passwordHash, a.plan, a.at.toISOString(), a.verified],
  );
  return rows[0] === undefined ? undefined : toAccount(rows[0]);
}

export async function findAccountByEmail(
  db: Queryable,
  email: string,
): Promise<AccountRow | undefined> {
  const rows = await db.query<Raw>(
    `SELECT ${COLUMNS} FROM accounts WHERE lower(email) = lower($1)`,
    [email],
  );
  return rows[0] === undefined ? undefined : toAccount(rows[0]);
}

export async function findAccount(
  db: Queryable,
  id: string,
  forUpdate = false,
): Promise<AccountRow | undefined> {
  const rows = await db.query<Raw>(
    `SELECT ${COLUMNS} FROM accounts WHERE id = $1${forUpdate ? ' FOR UPDATE' : ''}`,
    [id],
  );
  return rows[0] === undefined ? undefined : toAccount(rows[0]);
}

export async function listAccounts(db: Queryable): Promise<AccountRow[]> {
  return (await db.query<Raw>(`SELECT ${COLUMNS} FROM accounts ORDER BY created_at`)).map(
    toAccount,
  );
}

/** Accounts changed after `since` (ISO time), for the in-memory caches of every instance. */
export async function accountsChangedSince(db: Queryable, since: string): Promise<AccountRow[]> {
  return (
    await db.query<Raw>(
      `SELECT ${COLUMNS} FROM accounts WHERE updated_at > $1 ORDER BY updated_at`,
      [since],
    )
  ).map(toAccount);
}

export async function updateAccount(
  db: Queryable,
  id: string,
  changes: {
    plan?: PlanId;
    status?: AccountRow['status'];
    contract?: Contract | null;
    allowlist?: string[];
    responseSchema?: ResponseSchema | null;
  },
  at: Date,
): Promise<AccountRow> {
  const rows = await db.query<Raw>(
    `UPDATE accounts SET
       plan = COALESCE($2, plan),
       status = COALESCE($3, status),
       contract = CASE WHEN $4::boolean THEN $5::jsonb ELSE contract END,
       allowlist = COALESCE($6::text[], allowlist),
       updated_at = GREATEST($7::timestamptz, updated_at + interval '1 millisecond'),
       response_schema = CASE WHEN $8::boolean THEN $9::jsonb ELSE response_schema END
     WHERE id = $1 RETURNING ${COLUMNS}`,
    [
      id,
      changes.plan ?? null,
      changes.status ?? null,
      changes.contract !== undefined,
      changes.contract === undefined || changes.contract === null
        ? null
        : JSON.stringify(changes.contract),
      changes.allowlist ?? null,
      at.toISOString(),
      changes.responseSchema !== undefined,
      changes.responseSchema === undefined || changes.responseSchema === null
        ? null
        : JSON.stringify(changes.responseSchema),
    ],
  );
  if (rows[0] === undefined) throw new Error(`account ${id} not found`);
  return toAccount(rows[0]);
}

/** A session as the in-memory credential view holds it (the token only as its hash). */
export interface SessionRow {
  id: string;
  accountId: string;
  tokenHash: string;
  createdAt: string;
  expiresAt: string;
  revokedAt: string | null;
}

interface RawSession {
  id: string;
  account_id: string;
  token_hash: string;
  created_at: Date | string;
  expires_at: Date | string;
  revoked_at: Date | string | null;
}

const SESSION_COLUMNS = 'id, account_id, token_hash, created_at, expires_at, revoked_at';

function toSession(r: RawSession): SessionRow {
  return {
    id: r.id,
    accountId: r.account_id,
    tokenHash: r.token_hash,
    createdAt: new Date(r.created_at).toISOString(),
    expiresAt: new Date(r.expires_at).toISOString(),
    revokedAt: r.revoked_at === null ? null : new Date(r.revoked_at).toISOString(),
  };
}

/**
 * Starts a session. With `noticeNewAddress` (a log-in), the same statement records a
 * `sessions.new_address` notice when no earlier session of the account came from `ip`, so
 * telling the account costs no extra round trip on the log-in path.
 */
export async function insertSession(
  db: Queryable,
  s: {
    id: string;
    accountId: string;
    tokenHash: string;
    at: Date;
    expiresAt: Date;
    ip?: string | null;
    noticeNewAddress?: boolean;
  },
): Promise<SessionRow> {
  const rows = await db.query<RawSession>(
    `WITH started AS (
       INSERT INTO sessions (id, account_id, token_hash, created_at, expires_at, ip)
       VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${SESSION_COLUMNS}),
     notice AS (
       INSERT INTO notices (id, account_id, kind, data, next_attempt_at, created_at, updated_at)
       SELECT $8, $2, 'sessions.new_address', jsonb_build_object('ip', $6::text, 'at', $4::text), $4, $4, $4
       WHERE $7 AND $6::text IS NOT NULL
         AND NOT EXISTS (SELECT 1 FROM sessions WHERE account_id = $2 AND ip = $6::text))
     SELECT * FROM started`,
    [
      s.id,
      s.accountId,
      s.tokenHash,
      s.at.toISOString(),
      s.expiresAt.toISOString(),
      s.ip ?? null,
      s.noticeNewAddress === true,
      prefixedId('ntc'),
    ],
  );
  return toSession(rows[0]!);
}

/** Ends a session; the row as it is now, or undefined when it was not live. */
export async function revokeSession(
  db: Queryable,
  id: string,
  at: Date,
): Promise<SessionRow | undefined> {
  const rows = await db.query<RawSession>(
    `UPDATE sessions SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL
     RETURNING ${SESSION_COLUMNS}`,
    [id, at.toISOString()],
  );
  return rows[0] === undefined ? undefined : toSession(rows[0]);
}

/** Every session that can still be used, for the in-memory credential view at start. */
export async function liveSessions(db: Queryable, now: Date): Promise<SessionRow[]> {
  return (
    await db.query<RawSession>(
      `SELECT ${SESSION_COLUMNS} FROM sessions WHERE revoked_at IS NULL AND expires_at > $1`,
      [now.toISOString()],
    )
  ).map(toSession);
}

/** Sessions created or ended after `since` (ISO time), for every instance's credential view. */
export async function sessionsChangedSince(db: Queryable, since: string): Promise<SessionRow[]> {
  return (
    await db.query<RawSession>(
      `SELECT ${SESSION_COLUMNS} FROM sessions WHERE created_at > $1 OR revoked_at > $1`,
      [since],
    )
  ).map(toSession);
}

/** Sets the account's password hash (the credential view does not hold it: no updated_at bump). */
export async function setPasswordHash(
  db: Queryable,
  id: string,
  passwordHash: string,
): Promise<void> {
  await db.query('UPDATE accounts SET password_hash = $2 WHERE id = $1', [id, passwordHash]);
}

/** Ends every live session of the account but `keep` (null: all); the rows as they are now. */
export async function revokeOtherSessions(
  db: Queryable,
  accountId: string,
  keep: string | null,
  at: Date,
): Promise<SessionRow[]> {
  return (
    await db.query<RawSession>(
      `UPDATE sessions SET revoked_at = $3
       WHERE account_id = $1 AND revoked_at IS NULL AND ($2::text IS NULL OR id <> $2::text)
       RETURNING ${SESSION_COLUMNS}`,
      [accountId, keep, at.toISOString()],
    )
  ).map(toSession);
}
