import type { Queryable } from '../store/index.js';

type Time = Date | string;
const iso = (t: Time): string => new Date(t).toISOString();

/** A compliance document version, without its bytes. */
export interface DocumentRow {
  id: string;
  series: string;
  version: number;
  title: string;
  description: string | null;
  /** YYYY-MM-DD. */
  periodStart: string;
  periodEnd: string;
  /** The only account that may see it; null: every Enterprise account. */
  accountId: string | null;
  fileName: string;
  sha256: string;
  sizeBytes: number;
  pageCount: number;
  addedAt: string;
  withdrawnAt: string | null;
  withdrawnReason: string | null;
}

interface DbRow {
  id: string;
  series: string;
  version: number | string;
  title: string;
  description: string | null;
  period_start: string;
  period_end: string;
  account_id: string | null;
  file_name: string;
  sha256: string;
  size_bytes: number | string;
  page_count: number | string;
  added_at: Time;
  withdrawn_at: Time | null;
  withdrawn_reason: string | null;
}

// Dates as text: node-postgres would turn a `date` into local midnight.
const COLUMNS = `id, series, version, title, description,
  to_char(period_start, 'YYYY-MM-DD') AS period_start, to_char(period_end, 'YYYY-MM-DD') AS period_end,
  account_id, file_name, sha256, size_bytes, page_count, added_at, withdrawn_at, withdrawn_reason`;

function toDocument(r: DbRow): DocumentRow {
  return {
    id: r.id,
    series: r.series,
    version: Number(r.version),
    title: r.title,
    description: r.description,
    periodStart: r.period_start,
    periodEnd: r.period_end,
    accountId: r.account_id,
    fileName: r.file_name,
    sha256: r.sha256,
    sizeBytes: Number(r.size_bytes),
    pageCount: Number(r.page_count),
    addedAt: iso(r.added_at),
    withdrawnAt: r.withdrawn_at === null ? null : iso(r.withdrawn_at),
    withdrawnReason: r.withdrawn_reason,
  };
}

/** Arbitrary constant for pg_advisory_xact_lock: versions of a series are numbered one at a time. */
const VERSION_LOCK = 7_405_112_031;

export async function insertDocument(
  tx: Queryable,
  doc: Omit<DocumentRow, 'version' | 'withdrawnAt' | 'withdrawnReason'>,
  content: Uint8Array,
): Promise<DocumentRow> {
  await tx.query('SELECT pg_advisory_xact_lock($1)', [VERSION_LOCK]);
  const rows = await tx.query<DbRow>(
    `INSERT INTO compliance_documents (id, series, version, title, description, period_start,
       period_end, account_id, file_name, content, sha256, size_bytes, page_count, added_at)
     VALUES ($1, $2,
       (SELECT COALESCE(max(version), 0) + 1 FROM compliance_documents WHERE series = $2),
       $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
     RETURNING ${COLUMNS}`,
    [
      doc.id,
      doc.series,
      doc.title,
      doc.description,
      doc.periodStart,
      doc.periodEnd,
      doc.accountId,
      doc.fileName,
      content,
      doc.sha256,
      doc.sizeBytes,
      doc.pageCount,
      doc.addedAt,
    ],
  );
  return toDocument(rows[0]!);
}

/** Every version (the operator's view), newest series versions first. */
export async function allDocuments(db: Queryable): Promise<DocumentRow[]> {
  const rows = await db.query<DbRow>(
    `SELECT ${COLUMNS} FROM compliance_documents ORDER BY series, version DESC`,
  );
  return rows.map(toDocument);
}

/** The versions an account may see: for everyone or for it alone, withdrawn ones included. */
export async function documentsVisibleTo(db: Queryable, accountId: string): Promise<DocumentRow[]> {
  const rows = await db.query<DbRow>(
    `SELECT ${COLUMNS} FROM compliance_documents
     WHERE account_id IS NULL OR account_id = $1 ORDER BY series, version DESC`,
    [accountId],
  );
  return rows.map(toDocument);
}

export async function documentById(db: Queryable, id: string): Promise<DocumentRow | undefined> {
  const rows = await db.query<DbRow>(`SELECT ${COLUMNS} FROM compliance_documents WHERE id = $1`, [
    id,
  ]);
  return rows[0] === undefined ? undefined : toDocument(rows[0]);
}

export async function documentContent(db: Queryable, id: string): Promise<Uint8Array | undefined> {
  const rows = await db.query<{ content: Uint8Array }>(
    'SELECT content FROM compliance_documents WHERE id = $1',
    [id],
  );
  return rows[0]?.content;
}

export async function withdrawDocument(
  tx: Queryable,
  id: string,
  at: string,
  reason: string | null,
): Promise<DocumentRow | undefined> {
  const rows = await tx.query<DbRow>(
    `UPDATE compliance_documents SET withdrawn_at = $2, withdrawn_reason = $3
     WHERE id = $1 AND withdrawn_at IS NULL RETURNING ${COLUMNS}`,
    [id, at, reason],
  );
  return rows[0] === undefined ? undefined : toDocument(rows[0]);
}

/** The rows of an access review: every credential, session and data route of the account over the period. */
export async function accessReviewRows(
  db: Queryable,
  accountId: string,
  period: { from: Date; to: Date },
) {
  const [account, keys, clients, sessions, webhooks, exports, entries] = await Promise.all([
    db.query<{
      id: string;
      email: string;
      plan: string;
      status: string;
      created_at: Time | null;
      allowlist: string[];
    }>('SELECT id, email, plan, status, created_at, allowlist FROM accounts WHERE id = $1', [
      accountId,
    ]),
    db.query<{
      id: string;
      name: string;
      prefix: string;
      scopes: string[] | null;
      allowlist: string[];
      created_at: Time | null;
      last_used_at: Time | null;
      expires_at: Time | null;
      revoked_at: Time | null;
      replaced_by: string | null;
      rotated_from: string | null;
    }>(
      `SELECT id, name, prefix, scopes, allowlist, created_at, last_used_at, expires_at, revoked_at, replaced_by,
              (SELECT o.id FROM api_keys o WHERE o.account_id = k.account_id AND o.replaced_by = k.id
               LIMIT 1) AS rotated_from
       FROM api_keys k WHERE account_id = $1 AND created_at < $3
         AND (revoked_at IS NULL OR revoked_at >= $2) AND (expires_at IS NULL OR expires_at >= $2)
       ORDER BY created_at, id`,
      [accountId, period.from, period.to],
    ),
    db.query<{
      id: string;
      name: string;
      auth_method: string;
      scopes: string[];
      allowlist: string[];
      created_at: Time | null;
      previous_secret_expires_at: Time | null;
      deleted_at: Time | null;
      last_used: Time | null;
    }>(
      `SELECT c.id, c.name, c.auth_method, c.scopes, c.allowlist, c.created_at,
              c.previous_secret_expires_at, c.deleted_at,
              (SELECT max(hour) FROM usage_hourly u WHERE u.account_id = c.account_id AND u.key_id = c.id) AS last_used
       FROM oauth_clients c WHERE c.account_id = $1 AND c.created_at < $3
         AND (c.deleted_at IS NULL OR c.deleted_at >= $2)
       ORDER BY c.created_at, c.id`,
      [accountId, period.from, period.to],
    ),
    db.query<{
      id: string;
      created_at: Time | null;
      expires_at: Time | null;
      revoked_at: Time | null;
    }>(
      `SELECT id, created_at, expires_at, revoked_at FROM sessions
       WHERE account_id = $1 AND created_at < $3 AND expires_at >= $2
         AND (revoked_at IS NULL OR revoked_at >= $2)
       ORDER BY created_at, id`,
      [accountId, period.from, period.to],
    ),
    db.query<{
      id: string;
      url: string;
      events: string[];
      enabled: boolean;
      created_at: Time | null;
    }>(
      `SELECT id, url, events, enabled, created_at FROM webhook_endpoints
       WHERE account_id = $1 AND created_at < $2 ORDER BY created_at, id`,
      [accountId, period.to],
    ),
    db.query<{ id: string; name: string; destination: unknown; created_at: Time | null }>(
      `SELECT id, name, destination, created_at FROM exports
       WHERE account_id = $1 AND created_at < $2 ORDER BY created_at, id`,
      [accountId, period.to],
    ),
    db.query<{ action: string; n: number | string }>(
      `SELECT action, count(*) AS n FROM audit_log
       WHERE account_id = $1 AND created_at >= $2 AND created_at < $3 GROUP BY action ORDER BY action`,
      [accountId, period.from, period.to],
    ),
  ]);
  return { account, keys, clients, sessions, webhooks, exports, entries };
}
