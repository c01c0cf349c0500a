import { randomBytes } from 'node:crypto';
import { findAccount, updateAccount, type AccountRow } from '../accounts/index.js';
import { recordAudit } from '../audit/index.js';
import { actorOf, type Principal } from '../auth/index.js';
import { AppError } from '../errors/index.js';
import type { CredentialCache } from '../keys/index.js';
import { ibanProblem, maskIban, normalizeIban } from '../lib/bank-account.js';
import type { Clock } from '../lib/clock.js';
import { prefixedId } from '../lib/ids.js';
import type { SecretBox } from '../lib/secret-box.js';
import { enqueueNotice } from '../notices/index.js';
import { lockAccount, type Db, type Queryable } from '../store/index.js';
import { GRACE_MS } from './invoicing.js';
import { parsePain002, type DebitReturn } from './pain002.js';
import { pain008, sepaText, type PaymentGroup } from './pain008.js';
import { collectionDate, PRE_NOTIFICATION_DAYS } from './sepa-dates.js';
import * as repo from './repo.js';
import * as sepa from './sepa-repo.js';
import { invoiceReference } from './transfer.js';
import type { Seller } from './vat.js';

export type { MandateScheme } from './sepa-repo.js';
export const MANDATE_SCHEMES = ['core', 'b2b'] as const;

/** Return reasons after which the mandate cannot be used again (closed or wrong account, no mandate). */
const FINAL_REASONS = new Set(['AC01', 'AC04', 'AC06', 'AC13', 'MD01', 'MD07', 'BE05']);

/** Mandates an account may give in a day: each one is a new reference and a new first collection. */
export const MANDATES_PER_DAY = 10;
const DAY_MS = 86_400_000;

/** Control characters and invisible formatting (bidi overrides, zero-width spaces). */
const HIDDEN_CHARACTERS = /[\p{Cc}\p{Cf}]/u;

/** Why `holder` (trimmed) cannot name the debtor, or undefined when it can. */
function holderProblem(holder: string): string | undefined {
  if (holder === '' || holder.length > 70) return 'must be 1 to 70 characters';
  const hidden = HIDDEN_CHARACTERS.exec(holder)?.[0];
  if (hidden !== undefined)
    return `must not contain control or invisible formatting characters (U+${hidden.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')})`;
  if (sepaText(holder, 70) === '')
    return 'must contain letters or digits that can be written in Latin letters: the bank receives the name in the SEPA character set';
  return undefined;
}

const isoDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/** The mandate text the debtor accepts (EPC's standard wording for each scheme). */
export function mandateText(
  scheme: sepa.MandateScheme,
  creditorName: string,
  creditorId: string,
): string {
  const common =
    `By accepting this mandate, you authorise (A) ${creditorName} (SEPA creditor identifier ${creditorId}) ` +
    `to send instructions to your bank to debit your account and (B) your bank to debit your account ` +
    `in accordance with the instructions from ${creditorName}. `;
  const rights =
    scheme === 'core'
      ? 'As part of your rights, you are entitled to a refund from your bank under the terms and conditions of your agreement with your bank. A refund must be claimed within 8 weeks starting from the date on which your account was debited.'
      : 'This mandate is only intended for business-to-business transactions. You are not entitled to a refund from your bank after your account has been debited, but you are entitled to request your bank not to debit your account up until the day on which the payment is due. Your bank must be told of this mandate before the first collection.';
  return `${common}${rights} You are told the amount and date of each collection at least ${PRE_NOTIFICATION_DAYS} days in advance, with the invoice.`;
}

export interface PublicMandate {
  reference: string;
  scheme: sepa.MandateScheme;
  iban_masked: string;
  account_holder: string;
  creditor_name: string;
  creditor_id: string;
  mandate_text: string;
  signed_at: string;
}

export const publicMandate = (m: sepa.MandateRow): PublicMandate => ({
  reference: m.reference,
  scheme: m.scheme,
  iban_masked: m.ibanMasked,
  account_holder: m.accountHolder,
  creditor_name: m.creditorName,
  creditor_id: m.creditorId,
  mandate_text: m.mandateText,
  signed_at: new Date(m.signedAt).toISOString(),
});

export interface MandateInput {
  iban: string;
  account_holder: string;
  scheme: sepa.MandateScheme;
  /** The debtor accepted the mandate text shown for the scheme. */
  accept_mandate_text: boolean;
}

export interface AppliedReturn {
  end_to_end_id: string;
  reason_code: string;
  outcome: 'reopened' | 'already_returned' | 'unknown';
  invoice_id: string | null;
  invoice_number: number | null;
}

export interface SepaBatch {
  message_id: string | null;
  /** The pain.008.001.02 file; null when nothing is to be collected. */
  xml: string | null;
  collections: {
    invoice_id: string;
    invoice_number: number;
    end_to_end_id: string;
    mandate_reference: string;
    scheme: sepa.MandateScheme;
    sequence_type: sepa.SequenceType;
    amount_cents: number;
    collection_date: string;
  }[];
}

const newReference = (now: number): string =>
  `SAPI-${isoDay(now).replace(/-/g, '')}-${randomBytes(5).toString('hex').toUpperCase()}`;

/**
 * Puts a returned or rejected direct debit's invoice back to open (reopening it if a credit
 * had already marked it paid), records the reason code, and starts dunning as for any unpaid
 * invoice: an invoice past its due date makes the subscription past_due, with the overdue
 * notice. A debit returned before changes nothing. A return that says the mandate cannot be
 * used (closed account, no mandate) revokes it.
 */
export async function applyDebitReturn(
  tx: Queryable,
  ret: DebitReturn,
  now: number,
  actor: string,
): Promise<{ applied: AppliedReturn; account?: AccountRow }> {
  const base = { end_to_end_id: ret.endToEndId, reason_code: ret.reasonCode };
  const collection = await sepa.findCollection(tx, ret.endToEndId);
  if (collection === undefined)
    return { applied: { ...base, outcome: 'unknown', invoice_id: null, invoice_number: null } };
  const invoice = await repo.findInvoice(tx, collection.invoiceId);
  const known = { invoice_id: collection.invoiceId, invoice_number: invoice?.number ?? null };
  if (collection.status === 'returned' || invoice === undefined)
    return { applied: { ...base, outcome: 'already_returned', ...known } };
  await sepa.markReturned(tx, ret.endToEndId, ret.reasonCode, now);
  if (invoice.status === 'paid') await repo.setInvoiceStatus(tx, invoice.id, 'open', null);
  const mandate = await sepa.findMandate(tx, collection.mandateId);
  const revoke = FINAL_REASONS.has(ret.reasonCode) && mandate?.revokedAt === null;
  if (revoke) await sepa.revokeMandate(tx, collection.mandateId, now);
  await recordAudit(tx, {
    accountId: invoice.accountId,
    actor,
    action: 'invoices.collection_returned',
    data: {
      invoice_id: invoice.id,
      end_to_end_id: ret.endToEndId,
      reason_code: ret.reasonCode,
      reference: ret.reference,
      mandate_revoked: revoke,
    },
    at: new Date(now),
  });
  const account = invoice.dueAt <= now ? await startDunning(tx, invoice, now) : undefined;
  return {
    applied: { ...base, outcome: 'reopened', ...known },
    ...(account === undefined ? {} : { account }),
  };
}

/**
 * The billing run's rule for an overdue invoice, applied at once: the subscription goes
 * past_due (its grace period starting at the invoice's due date), the account is told.
 */
async function startDunning(
  tx: Queryable,
  invoice: repo.InvoiceRow,
  now: number,
): Promise<AccountRow | undefined> {
  const sub = await repo.findSubscription(tx, invoice.accountId, true);
  if (sub === undefined || sub.status !== 'active') return undefined;
  const since = invoice.dueAt;
  await repo.saveSubscription(tx, { ...sub, status: 'past_due', pastDueSince: since }, now);
  await enqueueNotice(
    tx,
    {
      accountId: invoice.accountId,
      kind: 'invoice.overdue',
      data: {
        invoice_numbers: [String(invoice.number)],
        grace_ends_at: new Date(since + GRACE_MS).toISOString(),
      },
    },
    new Date(now),
  );
  const account = await findAccount(tx, invoice.accountId);
  if (account === undefined) return undefined;
  return updateAccount(tx, invoice.accountId, { status: 'past_due' }, new Date(now));
}

/** SEPA Direct Debit: mandates accounts give, the pain.008 batches, returns and rejections. */
export function createMandateService(deps: {
  db: Db;
  clock: Clock;
  seller: Seller;
  cache: CredentialCache;
  /** Seals debtors' IBANs (SECRET_KEY); asked for only when one is stored or read. */
  box: () => SecretBox;
}) {
  const { db, clock, seller, cache } = deps;
  const creditorId = seller.sepaCreditorId ?? null;
  const offered = creditorId !== null && (seller.iban ?? null) !== null;

  function terms() {
    if (!offered) return null;
    return {
      creditor_name: seller.name,
      creditor_id: creditorId,
      pre_notification_days: PRE_NOTIFICATION_DAYS,
      mandate_texts: {
        core: mandateText('core', seller.name, creditorId),
        b2b: mandateText('b2b', seller.name, creditorId),
      },
    };
  }

  async function applyReturns(returns: DebitReturn[], actor: string): Promise<AppliedReturn[]> {
    const out: AppliedReturn[] = [];
    for (const ret of returns) {
      const now = clock.now();
      const r = await db.transaction((tx) => applyDebitReturn(tx, ret, now, actor));
      if (r.account !== undefined) cache.applyAccount(r.account);
      out.push(r.applied);
    }
    return out;
  }

  return {
    terms,

    /** The mandate in force, with what giving one means. */
    async get(accountId: string) {
      const m = await sepa.activeMandate(db, accountId);
      return { offered, terms: terms(), mandate: m === undefined ? null : publicMandate(m) };
    },

    /**
     * Gives a mandate (replacing one in force); its reference is generated here. The same IBAN,
     * holder and scheme as the mandate in force answer that mandate unchanged, so a retried
     * request neither replaces it nor makes the next collection a first one again.
     */
    async give(principal: Principal, input: MandateInput, ip: string | null) {
      const accountId = principal.accountId;
      if (accountId === null) throw new AppError('UNAUTHENTICATED', 'Sign in first.');
      if (!offered)
        throw new AppError('CONFLICT', 'Payment by SEPA Direct Debit is not offered here.');
      const iban = normalizeIban(input.iban);
      const problems = [];
      const ibanWrong = ibanProblem(iban);
      if (ibanWrong !== undefined)
        problems.push({ name: 'iban', reason: ibanWrong, allowed: ['an IBAN of a SEPA country'] });
      const holder = input.account_holder.trim();
      const holderWrong = holderProblem(holder);
      if (holderWrong !== undefined) problems.push({ name: 'account_holder', reason: holderWrong });
      if (!MANDATE_SCHEMES.includes(input.scheme))
        problems.push({ name: 'scheme', reason: 'is not a scheme', allowed: [...MANDATE_SCHEMES] });
      if (input.accept_mandate_text !== true)
        problems.push({
          name: 'accept_mandate_text',
          reason: 'must be true: the mandate text has to be accepted',
          allowed: ['true'],
        });
      if (problems.length > 0) throw AppError.invalidParams(problems);
      const now = clock.now();
      const row: sepa.MandateRow = {
        id: prefixedId('mdt'),
        accountId,
        reference: newReference(now),
        scheme: input.scheme,
        ibanSealed: deps.box().seal(iban),
        ibanMasked: maskIban(iban),
        accountHolder: holder,
        creditorId: creditorId,
        creditorName: seller.name,
        mandateText: mandateText(input.scheme, seller.name, creditorId),
        signedAt: now,
        revokedAt: null,
      };
      return db.transaction(async (tx) => {
        // One change of mandate at a time per account: the second waits, then replaces or repeats.
        await lockAccount(tx, accountId);
        const before = await sepa.activeMandate(tx, accountId, true);
        if (
          before !== undefined &&
          before.scheme === row.scheme &&
          before.accountHolder === holder &&
          deps.box().open(before.ibanSealed) === iban
        )
          return publicMandate(before);
        const recent = await sepa.mandatesSignedSince(tx, accountId, now - DAY_MS);
        if (recent.length >= MANDATES_PER_DAY)
          throw AppError.tooManyAttempts(
            `At most ${MANDATES_PER_DAY} mandates can be given in 24 hours; try again later.`,
            Math.max(1, Math.ceil((recent[0]! + DAY_MS - now) / 1000)),
          );
        if (before !== undefined) await sepa.revokeMandate(tx, before.id, now);
        await sepa.insertMandate(tx, row);
        await recordAudit(tx, {
          accountId,
          actor: actorOf(principal),
          action: 'mandates.give',
          data: {
            reference: row.reference,
            scheme: row.scheme,
            iban_masked: row.ibanMasked,
            replaced: before?.reference ?? null,
          },
          ip,
          at: new Date(now),
        });
        return publicMandate(row);
      });
    },

    /** Revokes the mandate in force: nothing more is collected under it. */
    async revoke(principal: Principal, ip: string | null): Promise<PublicMandate> {
      const accountId = principal.accountId;
      if (accountId === null) throw new AppError('UNAUTHENTICATED', 'Sign in first.');
      const now = clock.now();
      return db.transaction(async (tx) => {
        const m = await sepa.activeMandate(tx, accountId, true);
        if (m === undefined) throw new AppError('NOT_FOUND', 'No SEPA mandate is in force.');
        await sepa.revokeMandate(tx, m.id, now);
        await recordAudit(tx, {
          accountId,
          actor: actorOf(principal),
          action: 'mandates.revoke',
          data: { reference: m.reference },
          ip,
          at: new Date(now),
        });
        return publicMandate(m);
      });
    },

    /**
     * The pain.008.001.02 file collecting the open invoices of mandated accounts not sent
     * before, and marks them pending collection; a second batch leaves them out. FRST for a
     * mandate's first collection (and again after its first was returned), RCUR after.
     */
    async batch(actor: string): Promise<SepaBatch> {
      if (!offered)
        throw new AppError(
          'CONFLICT',
          'SEPA Direct Debit needs SELLER_SEPA_CREDITOR_ID and SELLER_IBAN to be set.',
        );
      const now = clock.now();
      const messageId = `SAPI-${isoDay(now).replace(/-/g, '')}-${randomBytes(6).toString('hex').toUpperCase()}`;
      return db.transaction(async (tx) => {
        const groups = new Map<string, PaymentGroup>();
        const collections: SepaBatch['collections'] = [];
        const firstUse = new Map<string, boolean>();
        for (const { invoiceId, mandateId } of await sepa.collectableInvoices(tx)) {
          const invoice = await repo.findInvoice(tx, invoiceId);
          const mandate = await sepa.findMandate(tx, mandateId);
          if (invoice === undefined || mandate === undefined) continue;
          // A stored holder the SEPA character set cannot write at all: its invoice stays open
          // (paid by transfer) rather than the bank refusing the whole file for an empty name.
          if (sepaText(mandate.accountHolder, 70) === '') continue;
          const seq: sepa.SequenceType =
            (firstUse.get(mandateId) ?? !(await sepa.mandateUsed(tx, mandateId))) ? 'FRST' : 'RCUR';
          firstUse.set(mandateId, false);
          const date = collectionDate(invoice, mandate.scheme, now);
          const key = `${mandate.scheme}/${seq}/${date}`;
          const group = groups.get(key) ?? {
            id: `${messageId}-${groups.size + 1}`,
            scheme: mandate.scheme,
            sequenceType: seq,
            collectionDate: date,
            debits: [],
          };
          groups.set(key, group);
          const endToEndId = `${invoice.number}-${randomBytes(6).toString('hex').toUpperCase()}`;
          group.debits.push({
            endToEndId,
            amountCents: invoice.amountDueCents,
            mandateReference: mandate.reference,
            signedOn: isoDay(mandate.signedAt),
            debtorName: mandate.accountHolder,
            debtorIban: deps.box().open(mandate.ibanSealed),
            creditorReference: invoiceReference(invoice.number),
          });
          await sepa.insertCollection(tx, {
            endToEndId,
            invoiceId,
            mandateId,
            batchId: messageId,
            scheme: mandate.scheme,
            sequenceType: seq,
            amountCents: invoice.amountDueCents,
            collectionDate: date,
            status: 'pending',
            reasonCode: null,
            createdAt: now,
            returnedAt: null,
          });
          await recordAudit(tx, {
            accountId: invoice.accountId,
            actor,
            action: 'invoices.collection_sent',
            data: {
              invoice_id: invoice.id,
              end_to_end_id: endToEndId,
              mandate_reference: mandate.reference,
              sequence_type: seq,
              amount_cents: invoice.amountDueCents,
              collection_date: date,
            },
            at: new Date(now),
          });
          collections.push({
            invoice_id: invoice.id,
            invoice_number: invoice.number,
            end_to_end_id: endToEndId,
            mandate_reference: mandate.reference,
            scheme: mandate.scheme,
            sequence_type: seq,
            amount_cents: invoice.amountDueCents,
            collection_date: date,
          });
        }
        await recordAudit(tx, {
          accountId: null,
          actor,
          action: 'payments.sepa_batch',
          data: {
            message_id: collections.length === 0 ? null : messageId,
            debits: collections.length,
            amount_cents: collections.reduce((s, c) => s + c.amount_cents, 0),
          },
          at: new Date(now),
        });
        if (collections.length === 0) return { message_id: null, xml: null, collections };
        const xml = pain008({
          messageId,
          createdAt: new Date(now),
          creditor: {
            name: seller.name,
            iban: seller.iban as string,
            bic: seller.bic ?? null,
            creditorId: creditorId,
          },
          groups: [...groups.values()],
        });
        return { message_id: messageId, xml, collections };
      });
    },

    applyReturns,

    /** Applies a pain.008 status report (pain.002): its rejections reopen their invoices. */
    async importStatusReport(xml: string, actor: string) {
      const report = parsePain002(xml);
      const returns = [...report.rejections];
      if (report.groupRejected !== null && report.originalMessageId !== null)
        for (const c of await sepa.collectionsOfBatch(db, report.originalMessageId))
          if (!returns.some((r) => r.endToEndId === c.endToEndId))
            returns.push({
              endToEndId: c.endToEndId,
              reasonCode: report.groupRejected.reasonCode,
              reference: report.originalMessageId,
            });
      const applied = await applyReturns(returns, actor);
      await db.transaction((tx) =>
        recordAudit(tx, {
          accountId: null,
          actor,
          action: 'payments.import',
          data: {
            message: 'pain.002',
            original_message_id: report.originalMessageId,
            rejections: applied.map((a) => [a.end_to_end_id, a.reason_code, a.outcome]),
          },
          at: new Date(clock.now()),
        }),
      );
      return {
        message: 'pain.002' as const,
        original_message_id: report.originalMessageId,
        returns: applied,
      };
    },
  };
}

export type MandateService = ReturnType<typeof createMandateService>;
