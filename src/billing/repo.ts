import type { PlanId } from '../plans/index.js';
import { jsonColumn, type Queryable } from '../store/index.js';
import { vatCents, type Party, type Seller, type VatCheck, type VatTreatment } from './vat.js';

export type SubscriptionStatus = 'active' | 'past_due' | 'canceled';

export interface SubscriptionRow {
  accountId: string;
  plan: PlanId;
  status: SubscriptionStatus;
  anchorAt: number;
  periodStart: number;
  periodEnd: number;
  pendingPlan: PlanId | null;
  cancelAtPeriodEnd: boolean;
  pastDueSince: number | null;
}

export type InvoiceStatus = 'open' | 'paid' | 'void' | 'uncollectible';

export interface InvoiceLine {
  kind: 'subscription' | 'proration' | 'renewal_adjustment' | 'credit';
  description: string;
  amountCents: number;
  periodStart: number;
  periodEnd: number;
}

export interface InvoiceRow {
  id: string;
  accountId: string;
  number: number;
  status: InvoiceStatus;
  periodStart: number;
  periodEnd: number;
  subtotalCents: number;
  balanceAppliedCents: number;
  amountDueCents: number;
  createdAt: number;
  dueAt: number;
  paidAt: number | null;
  renewalPlan: PlanId | null;
  lines: InvoiceLine[];
  /** The seller as configured when the invoice was issued (null: issued before VAT). */
  seller: Seller | null;
  /** The account's billing details when the invoice was issued (null: none were given). */
  buyer: Party | null;
  vat: { treatment: VatTreatment; rateBp: number; country: string | null; note: string | null };
  vatCents: number;
  /** Subtotal plus VAT; the balance is applied to it. */
  totalCents: number;
}

const ms = (v: Date | string | null): number | null => (v === null ? null : new Date(v).getTime());
const iso = (v: number): string => new Date(v).toISOString();

interface RawSub {
  account_id: string;
  plan: string;
  status: string;
  anchor_at: Date | string;
  period_start: Date | string;
  period_end: Date | string;
  pending_plan: string | null;
  cancel_at_period_end: boolean;
  past_due_since: Date | string | null;
}

function toSub(r: RawSub): SubscriptionRow {
  return {
    accountId: r.account_id,
    plan: r.plan as PlanId,
    status: r.status as SubscriptionStatus,
    anchorAt: ms(r.anchor_at) as number,
    periodStart: ms(r.period_start) as number,
    periodEnd: ms(r.period_end) as number,
    pendingPlan: r.pending_plan as PlanId | null,
    cancelAtPeriodEnd: r.cancel_at_period_end,
    pastDueSince: ms(r.past_due_since),
  };
}

const SUB_COLUMNS =
  'account_id, plan, status, anchor_at, period_start, period_end, pending_plan, cancel_at_period_end, past_due_since';

export async function findSubscription(
  db: Queryable,
  accountId: string,
  forUpdate = false,
): Promise<SubscriptionRow | undefined> {
  const rows = await db.query<RawSub>(
    `SELECT ${SUB_COLUMNS} FROM subscriptions WHERE account_id = $1${forUpdate ? ' FOR UPDATE' : ''}`,
    [accountId],
  );
  return rows[0] === undefined ? undefined : toSub(rows[0]);
}

export async function saveSubscription(
  db: Queryable,
  s: SubscriptionRow,
  at: number,
): Promise<void> {
  await db.query(
    `INSERT INTO subscriptions (${SUB_COLUMNS}, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
     ON CONFLICT (account_id) DO UPDATE SET plan = $2, status = $3, anchor_at = $4, period_start = $5,
       period_end = $6, pending_plan = $7, cancel_at_period_end = $8, past_due_since = $9, updated_at = $10`,
    [
      s.accountId,
      s.plan,
      s.status,
      iso(s.anchorAt),
      iso(s.periodStart),
      iso(s.periodEnd),
      s.pendingPlan,
      s.cancelAtPeriodEnd,
      s.pastDueSince === null ? null : iso(s.pastDueSince),
      iso(at),
    ],
  );
}

/** Subscriptions with something to do at `now`: a period end, an advance invoice, a due date. */
export async function dueSubscriptionIds(
  db: Queryable,
  now: number,
  advanceMs: number,
): Promise<string[]> {
  const rows = await db.query<{ account_id: string }>(
    `SELECT s.account_id FROM subscriptions s
     WHERE s.status <> 'canceled' AND (
       s.period_end <= $1 OR s.period_end <= $2 OR s.status = 'past_due'
       OR EXISTS (SELECT 1 FROM invoices i WHERE i.account_id = s.account_id AND i.status = 'open' AND i.due_at <= $1)
     ) ORDER BY s.account_id`,
    [iso(now), iso(now + advanceMs)],
  );
  return rows.map((r) => r.account_id);
}

interface RawInvoice {
  id: string;
  account_id: string;
  number: number | string;
  status: string;
  period_start: Date | string;
  period_end: Date | string;
  subtotal_cents: number | string;
  balance_applied_cents: number | string;
  amount_due_cents: number | string;
  created_at: Date | string;
  due_at: Date | string;
  paid_at: Date | string | null;
  renewal_plan: string | null;
  seller: Seller | string | null;
  buyer: Party | string | null;
  vat_treatment: string;
  vat_rate_bp: number | string;
  vat_country: string | null;
  vat_note: string | null;
  vat_cents: number | string;
  total_cents: number | string;
}

const INVOICE_COLUMNS =
  'id, account_id, number, status, period_start, period_end, subtotal_cents, balance_applied_cents, amount_due_cents, created_at, due_at, paid_at, renewal_plan, ' +
  'seller, buyer, vat_treatment, vat_rate_bp, vat_country, vat_note, vat_cents, total_cents';

function toInvoice(r: RawInvoice, lines: InvoiceLine[]): InvoiceRow {
  return {
    id: r.id,
    accountId: r.account_id,
    number: Number(r.number),
    status: r.status as InvoiceStatus,
    periodStart: ms(r.period_start) as number,
    periodEnd: ms(r.period_end) as number,
    subtotalCents: Number(r.subtotal_cents),
    balanceAppliedCents: Number(r.balance_applied_cents),
    amountDueCents: Number(r.amount_due_cents),
    createdAt: ms(r.created_at) as number,
    dueAt: ms(r.due_at) as number,
    paidAt: ms(r.paid_at),
    renewalPlan: r.renewal_plan as PlanId | null,
    lines,
    seller: r.seller === null ? null : jsonColumn(r.seller),
    buyer: r.buyer === null ? null : jsonColumn(r.buyer),
    vat: {
      treatment: r.vat_treatment as VatTreatment,
      rateBp: Number(r.vat_rate_bp),
      country: r.vat_country,
      note: r.vat_note,
    },
    vatCents: Number(r.vat_cents),
    totalCents: Number(r.total_cents),
  };
}

async function insertLine(db: Queryable, invoiceId: string, line: InvoiceLine): Promise<void> {
  await db.query(
    `INSERT INTO invoice_lines (invoice_id, kind, description, amount_cents, period_start, period_end)
     VALUES ($1, $2, $3, $4, $5, $6)`,
    [
      invoiceId,
      line.kind,
      line.description,
      line.amountCents,
      iso(line.periodStart),
      iso(line.periodEnd),
    ],
  );
}

export async function insertInvoice(
  db: Queryable,
  inv: Omit<InvoiceRow, 'number'>,
): Promise<InvoiceRow> {
  const rows = await db.query<RawInvoice>(
    `INSERT INTO invoices (id, account_id, status, period_start, period_end, subtotal_cents,
       balance_applied_cents, amount_due_cents, created_at, due_at, paid_at, renewal_plan,
       seller, buyer, vat_treatment, vat_rate_bp, vat_country, vat_note, vat_cents, total_cents)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20)
     RETURNING ${INVOICE_COLUMNS}`,
    [
      inv.id,
      inv.accountId,
      inv.status,
      iso(inv.periodStart),
      iso(inv.periodEnd),
      inv.subtotalCents,
      inv.balanceAppliedCents,
      inv.amountDueCents,
      iso(inv.createdAt),
      iso(inv.dueAt),
      inv.paidAt === null ? null : iso(inv.paidAt),
      inv.renewalPlan,
      inv.seller === null ? null : JSON.stringify(inv.seller),
      inv.buyer === null ? null : JSON.stringify(inv.buyer),
      inv.vat.treatment,
      inv.vat.rateBp,
      inv.vat.country,
      inv.vat.note,
      inv.vatCents,
      inv.totalCents,
    ],
  );
  for (const line of inv.lines) await insertLine(db, inv.id, line);
  return toInvoice(rows[0] as RawInvoice, inv.lines);
}

async function withLines(db: Queryable, rows: RawInvoice[]): Promise<InvoiceRow[]> {
  if (rows.length === 0) return [];
  const lines = await db.query<{
    invoice_id: string;
    kind: string;
    description: string;
    amount_cents: number | string;
    period_start: Date | string;
    period_end: Date | string;
  }>(
    'SELECT invoice_id, kind, description, amount_cents, period_start, period_end FROM invoice_lines WHERE invoice_id = ANY($1::text[]) ORDER BY id',
    [rows.map((r) => r.id)],
  );
  return rows.map((r) =>
    toInvoice(
      r,
      lines
        .filter((l) => l.invoice_id === r.id)
        .map((l) => ({
          kind: l.kind as InvoiceLine['kind'],
          description: l.description,
          amountCents: Number(l.amount_cents),
          periodStart: ms(l.period_start) as number,
          periodEnd: ms(l.period_end) as number,
        })),
    ),
  );
}

export async function listInvoices(db: Queryable, accountId: string): Promise<InvoiceRow[]> {
  const rows = await db.query<RawInvoice>(
    `SELECT ${INVOICE_COLUMNS} FROM invoices WHERE account_id = $1 ORDER BY created_at, number`,
    [accountId],
  );
  return withLines(db, rows);
}

/** Takes an amount (negative line) off an open invoice; paid when nothing is left to pay. */
export async function addCreditLine(
  db: Queryable,
  invoice: InvoiceRow,
  line: InvoiceLine,
  at: number,
): Promise<void> {
  await insertLine(db, invoice.id, line);
  invoice.lines.push(line);
  invoice.subtotalCents += line.amountCents;
  const total = invoice.subtotalCents + vatCents(invoice.subtotalCents, invoice.vat.rateBp);
  invoice.amountDueCents = Math.max(0, invoice.amountDueCents + (total - invoice.totalCents));
  invoice.vatCents = total - invoice.subtotalCents;
  invoice.totalCents = total;
  if (invoice.amountDueCents === 0) {
    invoice.status = 'paid';
    invoice.paidAt = at;
  }
  await db.query(
    `UPDATE invoices SET subtotal_cents = $2, amount_due_cents = $3, status = $4, paid_at = $5,
       vat_cents = $6, total_cents = $7 WHERE id = $1`,
    [
      invoice.id,
      invoice.subtotalCents,
      invoice.amountDueCents,
      invoice.status,
      invoice.paidAt === null ? null : iso(invoice.paidAt),
      invoice.vatCents,
      invoice.totalCents,
    ],
  );
}

export async function findInvoice(
  db: Queryable,
  id: string,
  accountId?: string,
): Promise<InvoiceRow | undefined> {
  const rows = await db.query<RawInvoice>(
    `SELECT ${INVOICE_COLUMNS} FROM invoices WHERE id = $1 AND ($2::text IS NULL OR account_id = $2)`,
    [id, accountId ?? null],
  );
  return (await withLines(db, rows))[0];
}

/** The invoice numbered `number`, locked for the transaction. */
export async function findInvoiceByNumber(
  db: Queryable,
  number: number,
): Promise<InvoiceRow | undefined> {
  const rows = await db.query<RawInvoice>(
    `SELECT ${INVOICE_COLUMNS} FROM invoices WHERE number = $1 FOR UPDATE`,
    [number],
  );
  return (await withLines(db, rows))[0];
}

/** Invoices still owed (open or written off) with exactly `cents` to pay, oldest first. */
export async function owedInvoicesOf(db: Queryable, cents: number): Promise<InvoiceRow[]> {
  const rows = await db.query<RawInvoice>(
    `SELECT ${INVOICE_COLUMNS} FROM invoices
      WHERE status IN ('open', 'uncollectible') AND amount_due_cents = $1
      ORDER BY created_at, number`,
    [cents],
  );
  return withLines(db, rows);
}

/** Takes a partial payment off what an invoice has left to pay. */
export async function reduceAmountDue(db: Queryable, id: string, cents: number): Promise<void> {
  await db.query('UPDATE invoices SET amount_due_cents = amount_due_cents - $2 WHERE id = $1', [
    id,
    cents,
  ]);
}

export async function setInvoiceStatus(
  db: Queryable,
  id: string,
  status: InvoiceStatus,
  paidAt: number | null,
): Promise<void> {
  await db.query('UPDATE invoices SET status = $2, paid_at = $3 WHERE id = $1', [
    id,
    status,
    paidAt === null ? null : iso(paidAt),
  ]);
}

export async function balanceOf(db: Queryable, accountId: string): Promise<number> {
  const rows = await db.query<{ total: number | string | null }>(
    'SELECT COALESCE(sum(amount_cents), 0) AS total FROM balance_ledger WHERE account_id = $1',
    [accountId],
  );
  return Number(rows[0]?.total ?? 0);
}

export async function addLedgerEntry(
  db: Queryable,
  e: {
    accountId: string;
    amountCents: number;
    reason: string;
    invoiceId: string | null;
    at: number;
  },
): Promise<void> {
  if (e.amountCents === 0) return;
  await db.query(
    'INSERT INTO balance_ledger (account_id, amount_cents, reason, invoice_id, created_at) VALUES ($1, $2, $3, $4, $5)',
    [e.accountId, e.amountCents, e.reason, e.invoiceId, iso(e.at)],
  );
}

export async function ledger(
  db: Queryable,
  accountId: string,
): Promise<{ amountCents: number; reason: string; invoiceId: string | null; createdAt: number }[]> {
  const rows = await db.query<{
    amount_cents: number | string;
    reason: string;
    invoice_id: string | null;
    created_at: Date | string;
  }>(
    'SELECT amount_cents, reason, invoice_id, created_at FROM balance_ledger WHERE account_id = $1 ORDER BY id',
    [accountId],
  );
  return rows.map((r) => ({
    amountCents: Number(r.amount_cents),
    reason: r.reason,
    invoiceId: r.invoice_id,
    createdAt: ms(r.created_at) as number,
  }));
}

export interface BillingDetailsRow {
  accountId: string;
  companyName: string;
  addressLines: string[];
  country: string;
  vatNumber: string | null;
  /** The check the VAT number passed; null without a number or while it is not verified. */
  vatCheck: VatCheck | null;
  /** When the operator confirmed a location outside the EU VAT area; null otherwise. */
  locationConfirmedAt: number | null;
  updatedAt: number;
}

interface RawDetails {
  account_id: string;
  company_name: string;
  address_lines: string[];
  country: string;
  vat_number: string | null;
  vat_checked_by: VatCheck['by'] | null;
  vat_checked_at: Date | string | null;
  vat_check_reference: string | null;
  location_confirmed_at: Date | string | null;
  updated_at: Date | string;
}

const DETAILS_COLUMNS =
  'account_id, company_name, address_lines, country, vat_number, vat_checked_by, vat_checked_at, vat_check_reference, location_confirmed_at, updated_at';

const toDetails = (r: RawDetails): BillingDetailsRow => ({
  accountId: r.account_id,
  companyName: r.company_name,
  addressLines: r.address_lines,
  country: r.country,
  vatNumber: r.vat_number,
  vatCheck:
    r.vat_checked_by === null || r.vat_checked_at === null
      ? null
      : {
          by: r.vat_checked_by,
          at: new Date(r.vat_checked_at).toISOString(),
          reference: r.vat_check_reference,
        },
  locationConfirmedAt: ms(r.location_confirmed_at),
  updatedAt: ms(r.updated_at) as number,
});

export async function findBillingDetails(
  db: Queryable,
  accountId: string,
): Promise<BillingDetailsRow | undefined> {
  const rows = await db.query<RawDetails>(
    `SELECT ${DETAILS_COLUMNS} FROM billing_details WHERE account_id = $1`,
    [accountId],
  );
  return rows[0] === undefined ? undefined : toDetails(rows[0]);
}

export async function saveBillingDetails(
  db: Queryable,
  d: BillingDetailsRow,
): Promise<BillingDetailsRow> {
  const rows = await db.query<RawDetails>(
    `INSERT INTO billing_details (account_id, company_name, address_lines, country, vat_number,
       vat_checked_by, vat_checked_at, vat_check_reference, location_confirmed_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
     ON CONFLICT (account_id) DO UPDATE SET company_name = $2, address_lines = $3, country = $4,
       vat_number = $5, vat_checked_by = $6, vat_checked_at = $7, vat_check_reference = $8,
       location_confirmed_at = $9, updated_at = $10
     RETURNING ${DETAILS_COLUMNS}`,
    [
      d.accountId,
      d.companyName,
      d.addressLines,
      d.country,
      d.vatNumber,
      d.vatCheck?.by ?? null,
      d.vatCheck?.at ?? null,
      d.vatCheck?.reference ?? null,
      d.locationConfirmedAt === null ? null : iso(d.locationConfirmedAt),
      iso(d.updatedAt),
    ],
  );
  return toDetails(rows[0] as RawDetails);
}

/** Billing details whose VAT number could not be verified yet (VIES did not answer). */
export async function unverifiedVatNumbers(
  db: Queryable,
  prefixes: readonly string[],
  limit: number,
): Promise<{ accountId: string; vatNumber: string }[]> {
  const rows = await db.query<{ account_id: string; vat_number: string }>(
    `SELECT account_id, vat_number FROM billing_details
     WHERE vat_checked_by IS NULL AND left(vat_number, 2) = ANY($1::text[])
     ORDER BY updated_at LIMIT $2`,
    [prefixes, limit],
  );
  return rows.map((r) => ({ accountId: r.account_id, vatNumber: r.vat_number }));
}

/** Records the check a number passed, unless the details changed to another number since. */
export async function setVatCheck(
  db: Queryable,
  accountId: string,
  vatNumber: string,
  check: VatCheck,
): Promise<void> {
  await db.query(
    `UPDATE billing_details SET vat_checked_by = $3, vat_checked_at = $4, vat_check_reference = $5
     WHERE account_id = $1 AND vat_number = $2`,
    [accountId, vatNumber, check.by, check.at, check.reference],
  );
}

/** The operator's confirmation of a location outside the EU VAT area; false without details. */
export async function confirmLocation(
  db: Queryable,
  accountId: string,
  at: number,
): Promise<boolean> {
  const rows = await db.query(
    'UPDATE billing_details SET location_confirmed_at = $2 WHERE account_id = $1 RETURNING account_id',
    [accountId, iso(at)],
  );
  return rows.length > 0;
}

/** VIES's cached answer about a number, when given at or after `since`. */
export async function cachedVatCheck(
  db: Queryable,
  vatNumber: string,
  since: number,
): Promise<{ valid: boolean; reference: string | null; checkedAt: number } | undefined> {
  const rows = await db.query<{
    valid: boolean;
    reference: string | null;
    checked_at: Date | string;
  }>(
    'SELECT valid, reference, checked_at FROM vat_number_checks WHERE vat_number = $1 AND checked_at >= $2',
    [vatNumber, iso(since)],
  );
  const row = rows[0];
  return row === undefined
    ? undefined
    : { valid: row.valid, reference: row.reference, checkedAt: ms(row.checked_at) as number };
}

export async function cacheVatCheck(
  db: Queryable,
  vatNumber: string,
  answer: { valid: boolean; reference: string | null },
  at: number,
): Promise<void> {
  await db.query(
    `INSERT INTO vat_number_checks (vat_number, valid, reference, checked_at) VALUES ($1, $2, $3, $4)
     ON CONFLICT (vat_number) DO UPDATE SET valid = $2, reference = $3, checked_at = $4`,
    [vatNumber, answer.valid, answer.reference, iso(at)],
  );
}
