import type { Clock } from '../lib/clock.js';
import { prefixedId } from '../lib/ids.js';
import { enqueueNotice } from '../notices/index.js';
import type { Queryable } from '../store/index.js';
import { applyBalance } from './balance.js';
import type { Period } from './cycle.js';
import * as repo from './repo.js';
import { collectionDate } from './sepa-dates.js';
import { activeMandate } from './sepa-repo.js';
import { invoiceReference, publicTransfer, transferDetails } from './transfer.js';
import { decideVat, vatCents, type Party, type Seller } from './vat.js';

export const DAY_MS = 86_400_000;
/** Invoices issued at once are due this long after issue. */
export const PAYMENT_TERMS_MS = 7 * DAY_MS;
/** After an invoice is overdue (past_due), the paid plan stays this long, then Free. */
export const GRACE_MS = 7 * DAY_MS;

export type InvoiceOutcome = 'paid' | 'pending' | 'failed';

/**
 * Collects the payment of an invoice. The default (invoice and bank transfer) leaves it
 * pending until the operator marks it paid; a card processor would answer paid or failed.
 */
export interface PaymentCollector {
  collect(invoice: repo.InvoiceRow): Promise<InvoiceOutcome>;
}

export const bankTransferCollector: PaymentCollector = { collect: async () => 'pending' };

/** The buyer an invoice names: the account's billing details now, if it gave any. */
export async function buyerOf(db: Queryable, accountId: string): Promise<Party | null> {
  const d = await repo.findBillingDetails(db, accountId);
  if (d === undefined) return null;
  return {
    name: d.companyName,
    address: d.addressLines,
    country: d.country,
    vatNumber: d.vatNumber,
    vatCheck: d.vatCheck,
    locationConfirmed: d.locationConfirmedAt !== null,
  };
}

/**
 * Issues an invoice: VAT by the seller's and the buyer's countries (both kept on the invoice
 * as they are now), then credit on the account's balance is spent on the total first (a ledger
 * entry records that), and an invoice with nothing left to pay is paid at once.
 */
export async function issueInvoice(
  tx: Queryable,
  clock: Clock,
  input: {
    seller: Seller;
    accountId: string;
    lines: repo.InvoiceLine[];
    period: Period;
    dueAt: number;
    renewalPlan: repo.InvoiceRow['renewalPlan'];
  },
): Promise<repo.InvoiceRow> {
  const now = clock.now();
  const subtotal = input.lines.reduce((sum, l) => sum + l.amountCents, 0);
  const buyer = await buyerOf(tx, input.accountId);
  const vat = decideVat(input.seller, buyer);
  const vatAmount = vatCents(subtotal, vat.rateBp);
  const total = subtotal + vatAmount;
  const credit = Math.max(0, await repo.balanceOf(tx, input.accountId));
  const { applied, due } = applyBalance(Math.max(0, total), credit);
  const id = prefixedId('in');
  const invoice = await repo.insertInvoice(tx, {
    id,
    accountId: input.accountId,
    status: due === 0 ? 'paid' : 'open',
    periodStart: input.period.start,
    periodEnd: input.period.end,
    subtotalCents: subtotal,
    balanceAppliedCents: applied,
    amountDueCents: due,
    createdAt: now,
    dueAt: input.dueAt,
    paidAt: due === 0 ? now : null,
    renewalPlan: input.renewalPlan,
    lines: input.lines,
    seller: input.seller,
    buyer,
    vat: {
      treatment: vat.treatment,
      rateBp: vat.rateBp,
      country: vat.rateCountry,
      note: vat.note,
    },
    vatCents: vatAmount,
    totalCents: total,
  });
  await repo.addLedgerEntry(tx, {
    accountId: input.accountId,
    amountCents: -applied,
    reason: 'applied to invoice',
    invoiceId: id,
    at: now,
  });
  await enqueueNotice(
    tx,
    {
      accountId: input.accountId,
      kind: 'invoice.issued',
      data: {
        invoice_id: id,
        number: invoice.number,
        total_cents: total,
        amount_due_cents: due,
        due_at: new Date(input.dueAt).toISOString(),
        ...(due === 0 ? {} : await directDebitNotice(tx, invoice)),
      },
    },
    new Date(now),
  );
  return invoice;
}

/** The line of a plan's price for one period, as a subscription or renewal invoice carries it. */
export function planLine(planName: string, amountCents: number, period: Period): repo.InvoiceLine {
  return {
    kind: 'subscription',
    description: `${planName} plan`,
    amountCents,
    periodStart: period.start,
    periodEnd: period.end,
  };
}

/** The invoice for one period of a plan (a subscription or its renewal). */
export function issuePlanInvoice(
  tx: Queryable,
  clock: Clock,
  input: {
    seller: Seller;
    accountId: string;
    planName: string;
    amountCents: number;
    period: Period;
    dueAt: number;
    renewalPlan: repo.InvoiceRow['renewalPlan'];
  },
): Promise<repo.InvoiceRow> {
  const { period } = input;
  return issueInvoice(tx, clock, {
    seller: input.seller,
    accountId: input.accountId,
    lines: [planLine(input.planName, input.amountCents, period)],
    period,
    dueAt: input.dueAt,
    renewalPlan: input.renewalPlan,
  });
}

/** Everything invoiced (not void) for the period starting at `start`. */
export function chargedFor(invoices: readonly repo.InvoiceRow[], start: number): number {
  return invoices
    .filter((i) => i.status !== 'void')
    .flatMap((i) => i.lines)
    .filter((l) => l.periodStart === start)
    .reduce((sum, l) => sum + l.amountCents, 0);
}

export function publicInvoice(i: repo.InvoiceRow) {
  const iso = (v: number | null) => (v === null ? null : new Date(v).toISOString());
  return {
    id: i.id,
    number: i.number,
    status: i.status,
    currency: 'EUR',
    period_start: iso(i.periodStart),
    period_end: iso(i.periodEnd),
    lines: i.lines.map((l) => ({
      kind: l.kind,
      description: l.description,
      amount_cents: l.amountCents,
      period_start: iso(l.periodStart),
      period_end: iso(l.periodEnd),
    })),
    subtotal_cents: i.subtotalCents,
    vat: {
      treatment: i.vat.treatment,
      rate_percent: i.vat.rateBp / 100,
      country: i.vat.country,
      note: i.vat.note,
      amount_cents: i.vatCents,
    },
    total_cents: i.totalCents,
    balance_applied_cents: i.balanceAppliedCents,
    amount_due_cents: i.amountDueCents,
    created_at: iso(i.createdAt),
    due_at: iso(i.dueAt),
    paid_at: iso(i.paidAt),
    seller: i.seller === null ? null : publicParty(i.seller),
    buyer: i.buyer === null ? null : publicParty(i.buyer),
    reference: invoiceReference(i.number),
    transfer: publicTransfer(transferDetails(i)),
  };
}

function publicParty(p: Seller | Party) {
  return { name: p.name, address: p.address, country: p.country, vat_number: p.vatNumber };
}
export type PublicInvoice = ReturnType<typeof publicInvoice>;

/** The pre-notification an invoice of a mandated account carries: what is collected, and when. */
async function directDebitNotice(tx: Queryable, invoice: repo.InvoiceRow) {
  const m = await activeMandate(tx, invoice.accountId);
  if (m === undefined) return {};
  return {
    mandate_reference: m.reference,
    creditor_id: m.creditorId,
    collection_date: collectionDate(invoice, m.scheme, invoice.createdAt),
  };
}
