import type { Queryable } from '../store/index.js';

export type BankPaymentOutcome = 'paid' | 'partial' | 'overpaid' | 'unmatched';

export interface BankPaymentRow {
  bankReference: string;
  message: string;
  statementId: string | null;
  amountCents: number;
  currency: string;
  bookedOn: string | null;
  debtorName: string | null;
  remittance: string;
  invoiceId: string | null;
  outcome: BankPaymentOutcome;
  creditedCents: number;
  note: string | null;
  importedAt: number;
}

interface RawBankPayment {
  bank_reference: string;
  message: string;
  statement_id: string | null;
  amount_cents: number | string;
  currency: string;
  booked_on: string | null;
  debtor_name: string | null;
  remittance: string;
  invoice_id: string | null;
  outcome: BankPaymentOutcome;
  credited_cents: number | string;
  note: string | null;
  imported_at: Date | string;
}

const toRow = (r: RawBankPayment): BankPaymentRow => ({
  bankReference: r.bank_reference,
  message: r.message,
  statementId: r.statement_id,
  amountCents: Number(r.amount_cents),
  currency: r.currency,
  bookedOn: r.booked_on,
  debtorName: r.debtor_name,
  remittance: r.remittance,
  invoiceId: r.invoice_id,
  outcome: r.outcome,
  creditedCents: Number(r.credited_cents),
  note: r.note,
  importedAt: new Date(r.imported_at).getTime(),
});

/**
 * Records a credit by its bank reference; false when one with that reference was recorded
 * before (the statement was imported already), and nothing is changed.
 */
export async function claimBankPayment(
  db: Queryable,
  p: Omit<BankPaymentRow, 'invoiceId' | 'outcome' | 'creditedCents' | 'note'>,
): Promise<boolean> {
  const rows = await db.query<{ bank_reference: string }>(
    `INSERT INTO bank_payments (bank_reference, message, statement_id, amount_cents, currency,
       booked_on, debtor_name, remittance, outcome, imported_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'unmatched', $9)
     ON CONFLICT (bank_reference) DO NOTHING RETURNING bank_reference`,
    [
      p.bankReference,
      p.message,
      p.statementId,
      p.amountCents,
      p.currency,
      p.bookedOn,
      p.debtorName,
      p.remittance,
      new Date(p.importedAt).toISOString(),
    ],
  );
  return rows.length === 1;
}

export async function settleBankPayment(
  db: Queryable,
  bankReference: string,
  s: {
    invoiceId: string | null;
    outcome: BankPaymentOutcome;
    creditedCents: number;
    note: string | null;
  },
): Promise<void> {
  await db.query(
    `UPDATE bank_payments SET invoice_id = $2, outcome = $3, credited_cents = $4, note = $5
      WHERE bank_reference = $1`,
    [bankReference, s.invoiceId, s.outcome, s.creditedCents, s.note],
  );
}

/** Credits that matched no invoice, oldest first: for the operator to assign or return. */
export async function unmatchedBankPayments(db: Queryable): Promise<BankPaymentRow[]> {
  const rows = await db.query<RawBankPayment>(
    `SELECT * FROM bank_payments WHERE outcome = 'unmatched' ORDER BY imported_at, bank_reference`,
  );
  return rows.map(toRow);
}
