import type { AccountRow } from '../accounts/index.js';
import { recordAudit } from '../audit/index.js';
import type { CredentialCache } from '../keys/index.js';
import type { Clock } from '../lib/clock.js';
import type { Db, Queryable } from '../store/index.js';
import { parseCamt, type BankCredit } from './camt.js';
import * as payments from './payments-repo.js';
import * as repo from './repo.js';
import { settleInvoice } from './settle.js';
import { applyDebitReturn, type AppliedReturn } from './sepa.js';
import { invoiceNumberIn } from './transfer.js';

export interface ImportedCredit {
  bank_reference: string;
  amount_cents: number;
  outcome: payments.BankPaymentOutcome;
  invoice_id: string | null;
  invoice_number: number | null;
  /** What went to the account's balance (an overpayment). */
  credited_cents: number;
  /** What the invoice still has to be paid (a partial payment). */
  remaining_cents: number | null;
  note: string | null;
}

export interface StatementImport {
  message: 'camt.053' | 'camt.054';
  /** Booked credits in the file. */
  credits: number;
  /** Credits recorded by an earlier import of the same entries: nothing changed for them. */
  already_imported: number;
  /** Entries that are no booked credit (debits, pending, reversals). */
  skipped: number;
  applied: ImportedCredit[];
  /** Direct debits the file returns (booked debits with a return reason code). */
  returns: AppliedReturn[];
}

/**
 * The invoice a credit pays: the one its RF reference names, else the one owed invoice of
 * exactly that amount whose number the remittance text mentions.
 */
async function invoiceFor(tx: Queryable, credit: BankCredit): Promise<repo.InvoiceRow | undefined> {
  const number = invoiceNumberIn(credit.remittance);
  if (number !== undefined) return repo.findInvoiceByNumber(tx, number);
  const words = new Set(credit.remittance.split(/[^0-9]+/).filter((w) => w !== ''));
  const candidates = (await repo.owedInvoicesOf(tx, credit.amountCents)).filter((i) =>
    words.has(String(i.number)),
  );
  return candidates.length === 1 ? repo.findInvoiceByNumber(tx, candidates[0]!.number) : undefined;
}

/**
 * Applies the booked credits of a camt.053/camt.054 file to the invoices they pay, each in its
 * own transaction with its audit entry; a credit whose bank reference was imported before is
 * left alone, so importing a statement twice changes nothing.
 */
export async function importBankStatement(
  deps: { db: Db; clock: Clock; cache: CredentialCache },
  xml: string,
  actor: string,
): Promise<StatementImport> {
  const statement = parseCamt(xml);
  const applied: ImportedCredit[] = [];
  let already = 0;
  for (const credit of statement.credits) {
    const now = deps.clock.now();
    const result = await deps.db.transaction(async (tx) => {
      const claimed = await payments.claimBankPayment(tx, { ...credit, importedAt: now });
      if (!claimed) return undefined;
      return applyCredit(tx, credit, now, actor);
    });
    if (result === undefined) {
      already++;
      continue;
    }
    if (result.account !== undefined) deps.cache.applyAccount(result.account);
    applied.push(result.credit);
  }
  const returns: AppliedReturn[] = [];
  for (const ret of statement.returns) {
    const now = deps.clock.now();
    const r = await deps.db.transaction((tx) => applyDebitReturn(tx, ret, now, actor));
    if (r.account !== undefined) deps.cache.applyAccount(r.account);
    returns.push(r.applied);
  }
  await deps.db.transaction((tx) =>
    recordAudit(tx, {
      accountId: null,
      actor,
      action: 'payments.import',
      data: {
        message: statement.message,
        credits: statement.credits.length,
        already_imported: already,
        skipped: statement.skipped,
        bank_references: applied.map((a) => a.bank_reference),
        outcomes: applied.map((a) => a.outcome),
        returns: returns.map((r) => [r.end_to_end_id, r.reason_code, r.outcome]),
      },
      at: new Date(deps.clock.now()),
    }),
  );
  return {
    message: statement.message,
    credits: statement.credits.length,
    already_imported: already,
    skipped: statement.skipped,
    applied,
    returns,
  };
}

async function applyCredit(
  tx: Queryable,
  credit: BankCredit,
  now: number,
  actor: string,
): Promise<{ credit: ImportedCredit; account?: AccountRow }> {
  const record = async (
    invoice: repo.InvoiceRow | undefined,
    outcome: payments.BankPaymentOutcome,
    credited: number,
    remaining: number | null,
    note: string | null,
  ): Promise<ImportedCredit> => {
    await payments.settleBankPayment(tx, credit.bankReference, {
      invoiceId: outcome === 'unmatched' ? null : (invoice?.id ?? null),
      outcome,
      creditedCents: credited,
      note,
    });
    return {
      bank_reference: credit.bankReference,
      amount_cents: credit.amountCents,
      outcome,
      invoice_id: outcome === 'unmatched' ? null : (invoice?.id ?? null),
      invoice_number: outcome === 'unmatched' ? null : (invoice?.number ?? null),
      credited_cents: credited,
      remaining_cents: remaining,
      note,
    };
  };

  if (credit.currency !== 'EUR')
    return {
      credit: await record(undefined, 'unmatched', 0, null, `in ${credit.currency}, not EUR`),
    };
  const invoice = await invoiceFor(tx, credit);
  if (invoice === undefined)
    return { credit: await record(undefined, 'unmatched', 0, null, 'no invoice matches') };
  if (invoice.status !== 'open' && invoice.status !== 'uncollectible')
    return {
      credit: await record(
        undefined,
        'unmatched',
        0,
        null,
        `invoice ${invoice.number} is ${invoice.status}`,
      ),
    };

  const due = invoice.amountDueCents;
  const audit = { bank_reference: credit.bankReference, amount_cents: credit.amountCents };
  if (credit.amountCents < due) {
    await repo.reduceAmountDue(tx, invoice.id, credit.amountCents);
    await recordAudit(tx, {
      accountId: invoice.accountId,
      actor,
      action: 'invoices.part_paid',
      data: { invoice_id: invoice.id, ...audit, remaining_cents: due - credit.amountCents },
      at: new Date(now),
    });
    return { credit: await record(invoice, 'partial', 0, due - credit.amountCents, null) };
  }
  const account = await settleInvoice(tx, invoice, now, actor, audit);
  const excess = credit.amountCents - due;
  if (excess > 0)
    await repo.addLedgerEntry(tx, {
      accountId: invoice.accountId,
      amountCents: excess,
      reason: `overpayment of invoice ${invoice.number}`,
      invoiceId: invoice.id,
      at: now,
    });
  return {
    credit: await record(invoice, excess > 0 ? 'overpaid' : 'paid', excess, 0, null),
    ...(account === undefined ? {} : { account }),
  };
}

/** Credits that matched no invoice, for the operator. */
export const unmatchedPayments = payments.unmatchedBankPayments;
