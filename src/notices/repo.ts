import { prefixedId } from '../lib/ids.js';
import {
  claimSql,
  jsonColumn,
  releaseClaims,
  settleClaimed,
  type Queryable,
  type QueueTable,
} from '../store/index.js';

/** The `notices.send` queue's table. */
const NOTICES: QueueTable = { table: 'notices', open: ['pending'] };

export interface NewNotice {
  accountId: string | null;
  kind: string;
  data: Record<string, unknown>;
  /** Fixed recipients (support mail); otherwise the account's contact for the kind. */
  recipients?: readonly string[];
}

/** Records a notice in the caller's transaction; due at once. Returns its id. */
export async function insertNotice(tx: Queryable, n: NewNotice, at: Date): Promise<string> {
  const id = prefixedId('ntc');
  await tx.query(
    `INSERT INTO notices (id, account_id, kind, data, recipients, next_attempt_at, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $6, $6)`,
    [id, n.accountId, n.kind, JSON.stringify(n.data), n.recipients ?? null, at.toISOString()],
  );
  return id;
}

/**
 * Records one notice of `kind` for every active or past-due account on one of `plans`, in the
 * caller's transaction; due at once. Returns how many were queued.
 */
export async function insertNoticeForPlans(
  tx: Queryable,
  kind: string,
  data: Record<string, unknown>,
  plans: readonly string[],
  at: Date,
): Promise<number> {
  if (plans.length === 0) return 0;
  const accounts = await tx.query<{ id: string }>(
    `SELECT id FROM accounts WHERE plan = ANY($1) AND status IN ('active', 'past_due') ORDER BY id`,
    [plans],
  );
  if (accounts.length === 0) return 0;
  await tx.query(
    `INSERT INTO notices (id, account_id, kind, data, next_attempt_at, created_at, updated_at)
     SELECT n.id, n.account_id, $3, $4, $5, $5, $5
     FROM unnest($1::text[], $2::text[]) AS n (id, account_id)`,
    [
      accounts.map(() => prefixedId('ntc')),
      accounts.map((a) => a.id),
      kind,
      JSON.stringify(data),
      at.toISOString(),
    ],
  );
  return accounts.length;
}

/** A claimed notice with the account fields its message and recipients need. */
export interface ClaimedNotice {
  id: string;
  attempts: number;
  kind: string;
  data: Record<string, unknown>;
  recipients: string[] | null;
  createdAt: string;
  account: {
    id: string;
    email: string;
    name: string | null;
    billingEmail: string | null;
    technicalEmail: string | null;
    optOut: boolean;
  } | null;
}

/** Claims up to `limit` due notices for `workerId` until `leaseUntil` (store/queue-repo.ts). */
export async function claimDue(
  db: Queryable,
  workerId: string,
  now: Date,
  leaseUntil: Date,
  limit: number,
): Promise<ClaimedNotice[]> {
  const rows = await db.query<{
    id: string;
    attempts: number;
    kind: string;
    data: unknown;
    recipients: string[] | null;
    created_at: Date | string;
    account_id: string | null;
    email: string | null;
    name: string | null;
    billing_email: string | null;
    technical_email: string | null;
    notices_opt_out: boolean | null;
  }>(
    `WITH claimed AS (${claimSql(NOTICES, 'id, attempts, kind, data, recipients, created_at, account_id')})
     SELECT c.*, a.email, a.name, a.billing_email, a.technical_email, a.notices_opt_out
     FROM claimed c LEFT JOIN accounts a ON a.id = c.account_id`,
    [workerId, now.toISOString(), leaseUntil.toISOString(), limit],
  );
  return rows.map((r) => ({
    id: r.id,
    attempts: r.attempts,
    kind: r.kind,
    data: jsonColumn<Record<string, unknown>>(r.data as string),
    recipients: r.recipients,
    createdAt: new Date(r.created_at).toISOString(),
    account:
      r.account_id === null || r.email === null
        ? null
        : {
            id: r.account_id,
            email: r.email,
            name: r.name,
            billingEmail: r.billing_email,
            technicalEmail: r.technical_email,
            optOut: r.notices_opt_out === true,
          },
  }));
}

/**
 * Records the outcome of a claimed attempt, only while `workerId` still holds the claim;
 * false when another worker took it over (its lease ran out).
 */
export function settleNotice(
  db: Queryable,
  id: string,
  workerId: string,
  outcome: {
    status: 'pending' | 'sent' | 'failed' | 'skipped';
    nextAttemptAt: Date | null;
    error: string | null;
  },
  now: Date,
): Promise<boolean> {
  return settleClaimed(
    db,
    NOTICES,
    id,
    workerId,
    {
      status: outcome.status,
      next_attempt_at: outcome.nextAttemptAt,
      last_error: outcome.error,
      sent_at: outcome.status === 'sent' ? now : null,
    },
    now,
  );
}

/** Claims a worker held when it stopped: due again at once (embedded mode, one process). */
export function releaseAllNoticeClaims(db: Queryable): Promise<number> {
  return releaseClaims(db, NOTICES);
}

/** A notice as the operator and tests see it. */
export interface NoticeRow {
  id: string;
  accountId: string | null;
  kind: string;
  status: string;
  attempts: number;
  lastError: string | null;
  /** What the template renders. */
  data: Record<string, unknown>;
}

export async function listNotices(db: Queryable, accountId?: string): Promise<NoticeRow[]> {
  const rows = await db.query<{
    id: string;
    account_id: string | null;
    kind: string;
    status: string;
    attempts: number;
    last_error: string | null;
    data: Record<string, unknown> | string;
  }>(
    `SELECT id, account_id, kind, status, attempts, last_error, data FROM notices
     WHERE $1::text IS NULL OR account_id = $1 ORDER BY created_at, id`,
    [accountId ?? null],
  );
  return rows.map((r) => ({
    id: r.id,
    accountId: r.account_id,
    kind: r.kind,
    status: r.status,
    attempts: r.attempts,
    lastError: r.last_error,
    data: jsonColumn(r.data),
  }));
}
