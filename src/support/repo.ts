import type { Queryable } from '../store/index.js';

/** The account's requests since `since`, and how many of them were answered with an error. */
export async function requestCountsSince(
  db: Queryable,
  accountId: string,
  since: Date,
): Promise<{ total: number; failed: number }> {
  const [row] = await db.query<{ total: string | number | null; failed: string | number | null }>(
    `SELECT sum(count) AS total, sum(count) FILTER (WHERE status >= 400) AS failed
     FROM usage_hourly WHERE account_id = $1 AND hour >= $2`,
    [accountId, since.toISOString()],
  );
  return { total: Number(row?.total ?? 0), failed: Number(row?.failed ?? 0) };
}

export interface SupportRequestRow {
  id: string;
  accountId: string;
  subject: string;
  message: string;
  severity: string;
  priority: string;
  createdAt: Date;
}

export async function insertSupportRequest(tx: Queryable, r: SupportRequestRow): Promise<void> {
  await tx.query(
    `INSERT INTO support_requests (id, account_id, subject, message, severity, priority, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [r.id, r.accountId, r.subject, r.message, r.severity, r.priority, r.createdAt.toISOString()],
  );
}
