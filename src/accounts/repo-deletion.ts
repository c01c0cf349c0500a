import { deleteTotp } from './repo-totp.js';
import type { Queryable } from '../store/index.js';

/** A row as JSON: times as ISO strings, everything else as the database gave it. */
type ExportRow = Record<string, unknown>;

async function rows(db: Queryable, sql: string, params: readonly unknown[]): Promise<ExportRow[]> {
  const found = await db.query<ExportRow>(sql, params);
  return found.map((row) =>
    Object.fromEntries(
      Object.entries(row).map(([k, v]) => [k, v instanceof Date ? v.toISOString() : v]),
    ),
  );
}

/**
 * Everything held about the account, each part as rows. Secrets are never read: no password
 * hash, no key or session hash, no sealed webhook or export secret, no sealed IBAN.
 */
export async function accountData(db: Queryable, accountId: string) {
  const one = [accountId] as const;
  const [
    account,
    keys,
    sessions,
    subscription,
    billingDetails,
    invoices,
    invoiceLines,
    ledger,
    usage,
    webhooks,
    exportsConfigured,
    customEndpoints,
    supportRequests,
    audit,
    mandates,
  ] = await Promise.all([
    rows(
      db,
      `SELECT id, email, plan, status, allowlist, response_schema, created_at, updated_at,
              email_verified_at, name, billing_email, technical_email, notices_opt_out,
              manager_name, manager_email, deleted_at
         FROM accounts WHERE id = $1`,
      one,
    ),
    rows(
      db,
      `SELECT id, name, prefix, scopes, allowlist, created_at, last_used_at, expires_at,
              revoked_at, replaced_by
         FROM api_keys WHERE account_id = $1 ORDER BY created_at`,
      one,
    ),
    rows(
      db,
      `SELECT id, created_at, expires_at, revoked_at, ip
         FROM sessions WHERE account_id = $1 ORDER BY created_at`,
      one,
    ),
    rows(
      db,
      `SELECT plan, status, anchor_at, period_start, period_end, pending_plan,
              cancel_at_period_end, past_due_since
         FROM subscriptions WHERE account_id = $1`,
      one,
    ),
    rows(
      db,
      `SELECT company_name, address_lines, country, vat_number, updated_at
         FROM billing_details WHERE account_id = $1`,
      one,
    ),
    rows(
      db,
      `SELECT id, number, status, period_start, period_end, subtotal_cents, balance_applied_cents,
              amount_due_cents, vat_treatment, vat_rate_bp, vat_country, vat_cents, total_cents,
              seller, buyer, created_at, due_at, paid_at
         FROM invoices WHERE account_id = $1 ORDER BY created_at`,
      one,
    ),
    rows(
      db,
      `SELECT l.invoice_id, l.kind, l.description, l.amount_cents, l.period_start, l.period_end
         FROM invoice_lines l JOIN invoices i ON i.id = l.invoice_id
        WHERE i.account_id = $1 ORDER BY l.id`,
      one,
    ),
    rows(
      db,
      `SELECT amount_cents, reason, invoice_id, created_at
         FROM balance_ledger WHERE account_id = $1 ORDER BY id`,
      one,
    ),
    rows(
      db,
      `SELECT day, key_id, endpoint, status, count
         FROM usage_daily WHERE account_id = $1 ORDER BY day, key_id, endpoint, status`,
      one,
    ),
    rows(
      db,
      `SELECT id, url, events, enabled, disabled_reason, failing_since, created_at, updated_at
         FROM webhook_endpoints WHERE account_id = $1 ORDER BY created_at`,
      one,
    ),
    rows(
      db,
      `SELECT id, name, schedule, timezone, query, format, compression, destination,
              next_run_at, created_at, updated_at
         FROM exports WHERE account_id = $1 ORDER BY created_at`,
      one,
    ),
    rows(
      db,
      `SELECT id, slug, description, query, parameters, created_at, updated_at, deleted_at
         FROM custom_endpoints WHERE account_id = $1 ORDER BY created_at`,
      one,
    ),
    rows(
      db,
      `SELECT id, subject, message, severity, priority, created_at
         FROM support_requests WHERE account_id = $1 ORDER BY created_at`,
      one,
    ),
    rows(
      db,
      `SELECT id, actor, action, data, ip, created_at
         FROM audit_log WHERE account_id = $1 ORDER BY id`,
      one,
    ),
    // The IBAN masked only: the sealed one is a secret of the operator's files.
    rows(
      db,
      `SELECT reference, scheme, iban_masked, account_holder, creditor_id, creditor_name,
              mandate_text, signed_at, revoked_at
         FROM sepa_mandates WHERE account_id = $1 ORDER BY signed_at, id`,
      one,
    ),
  ]);
  return {
    account: account[0] ?? {},
    api_keys: keys,
    sessions,
    subscription: subscription[0] ?? null,
    billing_details: billingDetails[0] ?? null,
    invoices,
    invoice_lines: invoiceLines,
    balance_ledger: ledger,
    usage_daily: usage,
    webhooks,
    exports: exportsConfigured,
    custom_endpoints: customEndpoints,
    support_requests: supportRequests,
    audit_log: audit,
    sepa_mandates: mandates,
  };
}

export type AccountData = Awaited<ReturnType<typeof accountData>>;

/** What erasing an account did, for the answer and the audit entry. */
export interface Erasure {
  keysRevoked: number;
  sessionsEnded: number;
  subscriptionCanceled: boolean;
  invoicesVoided: number;
  invoicesKept: number;
}

/**
 * Erases the account's personal data in the caller's transaction. Kept: invoices (with the
 * buyer as printed), their lines and the ledger (tax law), usage counts (what invoices and the
 * SLA were computed from; they name no person), the audit log (its hash chain).
 */
export async function eraseAccount(tx: Queryable, accountId: string, at: Date): Promise<Erasure> {
  const keys = await tx.query(
    `UPDATE api_keys SET revoked_at = $2, updated_at = $2, name = 'deleted', allowlist = '{}'
      WHERE account_id = $1 AND revoked_at IS NULL RETURNING id`,
    [accountId, at],
  );
  await tx.query(`UPDATE api_keys SET name = 'deleted', allowlist = '{}' WHERE account_id = $1`, [
    accountId,
  ]);
  const sessions = await tx.query(
    `UPDATE sessions SET revoked_at = $2 WHERE account_id = $1 AND revoked_at IS NULL RETURNING id`,
    [accountId, at],
  );
  await tx.query('UPDATE sessions SET ip = NULL WHERE account_id = $1', [accountId]);
  const subscription = await tx.query(
    `UPDATE subscriptions SET status = 'canceled', pending_plan = NULL,
            cancel_at_period_end = false, updated_at = $2
      WHERE account_id = $1 AND status <> 'canceled' RETURNING account_id`,
    [accountId, at],
  );
  // A renewal invoiced in advance for a period not begun is voided, as a cancellation does;
  // invoices for time already served stay, paid or owed.
  const voided = await tx.query(
    `UPDATE invoices SET status = 'void'
      WHERE account_id = $1 AND status = 'open' AND period_start > $2 RETURNING id`,
    [accountId, at],
  );
  const kept = await tx.query<{ n: number | string }>(
    `SELECT count(*) AS n FROM invoices WHERE account_id = $1 AND status <> 'void'`,
    [accountId],
  );
  await tx.query('DELETE FROM webhook_endpoints WHERE account_id = $1', [accountId]);
  await tx.query('DELETE FROM exports WHERE account_id = $1', [accountId]);
  await tx.query(
    `UPDATE custom_endpoints SET deleted_at = $2, updated_at = $2
      WHERE account_id = $1 AND deleted_at IS NULL`,
    [accountId, at],
  );
  // Its OAuth clients are deleted with their secrets: no new token, and introspection calls the
  // tokens already issued inactive once each instance has read the change (within a second).
  await tx.query(
    `UPDATE oauth_clients SET deleted_at = $2, updated_at = $2, secret_hash = NULL,
            previous_secret_hash = NULL, previous_secret_expires_at = NULL
      WHERE account_id = $1 AND deleted_at IS NULL`,
    [accountId, at],
  );
  await tx.query('DELETE FROM billing_details WHERE account_id = $1', [accountId]);
  // Nothing more is collected; the mandate itself is kept as the evidence of past collections.
  await tx.query(
    'UPDATE sepa_mandates SET revoked_at = $2 WHERE account_id = $1 AND revoked_at IS NULL',
    [accountId, at],
  );
  await tx.query('DELETE FROM support_requests WHERE account_id = $1', [accountId]);
  await tx.query('DELETE FROM account_tokens WHERE account_id = $1', [accountId]);
  await deleteTotp(tx, accountId);
  await tx.query(`DELETE FROM notices WHERE account_id = $1 AND status = 'pending'`, [accountId]);
  await tx.query(
    `UPDATE accounts SET email = $2, password_hash = '!', status = 'deleted', deleted_at = $3,
            updated_at = $3, allowlist = '{}', response_schema = NULL, contract = contract,
            name = NULL, billing_email = NULL, technical_email = NULL, notices_opt_out = true,
            email_verified_at = NULL
      WHERE id = $1`,
    [accountId, `deleted+${accountId}@invalid`, at],
  );
  return {
    keysRevoked: keys.length,
    sessionsEnded: sessions.length,
    subscriptionCanceled: subscription.length > 0,
    invoicesVoided: voided.length,
    invoicesKept: Number(kept[0]?.n ?? 0),
  };
}
