import {
  emailNotVerified,
  updateAccount,
  findAccount,
  type AccountRow,
  type Contract,
} from '../accounts/index.js';
import { recordAudit } from '../audit/index.js';
import { enqueueNotice } from '../notices/index.js';
import { actorOf, type Principal } from '../auth/index.js';
import { AppError } from '../errors/index.js';
import {
  revokeKeysBeyond,
  type CredentialCache,
  type KeyService,
  type PublicKey,
} from '../keys/index.js';
import type { Clock } from '../lib/clock.js';
import { applyContract, type Plan, type PlanId } from '../plans/index.js';
import type { Db, Queryable } from '../store/index.js';
import { addMonthsAnchored } from './cycle.js';
import {
  buyerOf,
  chargedFor,
  issueInvoice,
  issuePlanInvoice,
  planLine,
  PAYMENT_TERMS_MS,
  publicInvoice,
  type PaymentCollector,
  type PublicInvoice,
} from './invoicing.js';
import { upgradeCharge } from './proration.js';
import { createBillingDetails } from './details.js';
import * as repo from './repo.js';
import { settleInvoice } from './settle.js';
import { importBankStatement, unmatchedPayments } from './bank-import.js';
import type { VatNumberVerifier } from './vat-check.js';
import type { SecretBox } from '../lib/secret-box.js';
import { createMandateService } from './sepa.js';
import { pendingCollectionInvoiceIds } from './sepa-repo.js';
import { decideVat, vatCents, type Seller, type VatDecision } from './vat.js';

export type Plans = Readonly<Record<PlanId, Plan>>;

export interface BillingDeps {
  db: Db;
  clock: Clock;
  plans: Plans;
  keys: KeyService;
  cache: CredentialCache;
  collector: PaymentCollector;
  /** Who the invoices are from (the operator's SELLER_* settings). */
  seller: Seller;
  /** Checks buyers' VAT numbers (check digits, or VIES when the operator enabled it). */
  vat: VatNumberVerifier;
  /** Seals SEPA mandates' IBANs (SECRET_KEY), made when first needed. */
  mandateBox: () => SecretBox;
}

export interface PublicSubscription {
  plan: PlanId;
  status: repo.SubscriptionStatus | 'none';
  current_period_start: string | null;
  current_period_end: string | null;
  pending_plan: PlanId | null;
  cancel_at_period_end: boolean;
  balance_cents: number;
}

/** A plan change as `preview` shows it before it is confirmed. */
export interface ChangePreview {
  kind: 'subscribe' | 'upgrade' | 'downgrade' | 'cancel';
  /** `now`, or the end of the current period (ms). */
  effective: 'now' | number;
  /** The invoice the change issues now (none for a downgrade or a cancellation). */
  lines: repo.InvoiceLine[];
  netCents: number;
  vat: VatDecision;
  vatCents: number;
  grossCents: number;
  /** False while the account has given no billing details: no invoice can be issued. */
  buyerKnown: boolean;
}

export function planOf(plans: Plans, account: AccountRow, id: PlanId = account.plan): Plan {
  return applyContract(plans[id], account.contract);
}

export function priceOf(plans: Plans, account: AccountRow, id: PlanId): number {
  return planOf(plans, account, id).priceCents ?? 0;
}

export async function subscriptionView(
  db: Queryable,
  account: AccountRow,
): Promise<PublicSubscription> {
  const sub = await repo.findSubscription(db, account.id);
  const live = sub !== undefined && sub.status !== 'canceled';
  const iso = (v: number) => new Date(v).toISOString();
  return {
    plan: account.plan,
    status: live ? sub.status : 'none',
    current_period_start: live ? iso(sub.periodStart) : null,
    current_period_end: live ? iso(sub.periodEnd) : null,
    pending_plan: live ? (sub.cancelAtPeriodEnd ? 'free' : sub.pendingPlan) : null,
    cancel_at_period_end: live ? sub.cancelAtPeriodEnd : false,
    balance_cents: await repo.balanceOf(db, account.id),
  };
}

/** The principal the operator's CLI acts as on an account (audited as `operator`). */
export function operatorPrincipal(accountId: string, plan: Plan): Principal {
  return {
    kind: 'anonymous',
    plan,
    accountId,
    keyId: null,
    sessionId: null,
    scopes: null,
    allowlists: [],
    responseSchema: null,
    limitBucket: `acct:${accountId}`,
  };
}

/** Changes of plan an account makes itself, and the operator's contract changes. */
export function createSubscriptionService(deps: BillingDeps) {
  const { db, clock, plans, keys, cache, collector, seller } = deps;

  async function lockAccount(tx: Queryable, accountId: string): Promise<AccountRow> {
    const account = await findAccount(tx, accountId, true);
    if (account === undefined) throw new AppError('NOT_FOUND', 'No such account.');
    return account;
  }

  async function collect(invoices: repo.InvoiceRow[]): Promise<void> {
    for (const invoice of invoices.filter((i) => i.status === 'open')) {
      const outcome = await collector.collect(invoice);
      if (outcome === 'paid') await markPaid(invoice.id, 'collector');
    }
  }

  async function markPaid(invoiceId: string, actor: string): Promise<PublicInvoice> {
    const result = await db.transaction(async (tx) => {
      const invoice = await repo.findInvoice(tx, invoiceId);
      if (invoice === undefined) throw new AppError('NOT_FOUND', `No invoice ${invoiceId}.`);
      if (invoice.status === 'paid') return { invoice, account: undefined };
      if (invoice.status !== 'open' && invoice.status !== 'uncollectible') {
        throw new AppError('CONFLICT', `Invoice ${invoiceId} is ${invoice.status}.`);
      }
      const now = clock.now();
      const account = await settleInvoice(tx, invoice, now, actor);
      return { invoice: { ...invoice, status: 'paid' as const, paidAt: now }, account };
    });
    if (result.account !== undefined) cache.applyAccount(result.account);
    return publicInvoice(result.invoice);
  }

  /**
   * An account that left a paid plan owing money (an invoice past its due date, or written off
   * as uncollectible) starts no new paid subscription until it pays: otherwise a paid plan could
   * be had for free, grace period after grace period. The operator may still subscribe it.
   * An invoice the bank is collecting by direct debit is not owed until the debit comes back.
   */
  async function assertNothingOverdue(tx: Queryable, accountId: string, now: number) {
    const collecting = await pendingCollectionInvoiceIds(tx, accountId);
    const owed = (await repo.listInvoices(tx, accountId)).filter(
      (i) =>
        i.status === 'uncollectible' ||
        (i.status === 'open' && i.dueAt <= now && !collecting.has(i.id)),
    );
    if (owed.length === 0) return;
    const due = owed.reduce((sum, i) => sum + i.amountDueCents, 0);
    throw new AppError(
      'PAYMENT_OVERDUE',
      `Pay the overdue invoice${owed.length === 1 ? '' : 's'} ${owed.map((i) => i.id).join(', ')} (${due} cents) before subscribing to a paid plan again.`,
      { extensions: { overdue_invoices: owed.map((i) => i.id), amount_due_cents: due } },
    );
  }

  /** No invoice is made out to an account that has not said who it is (docs/billing.md). */
  async function assertBillingDetails(tx: Queryable, accountId: string): Promise<void> {
    if ((await repo.findBillingDetails(tx, accountId)) !== undefined) return;
    throw new AppError(
      'BILLING_DETAILS_REQUIRED',
      'This change issues an invoice, and the account has no billing details: give the name, address and country invoices are made out to first (PUT /api/v1/account/billing-details, or the dashboard’s Billing page).',
    );
  }

  /**
   * What an upgrade invoices now: the difference in price for the rest of the current period,
   * and the top-up of a renewal already invoiced in advance to the new plan's price.
   */
  async function upgradeLines(
    tx: Queryable,
    account: AccountRow,
    live: repo.SubscriptionRow,
    next: Plan,
    now: number,
  ): Promise<repo.InvoiceLine[]> {
    const lines: repo.InvoiceLine[] = [];
    const charge = upgradeCharge(
      priceOf(plans, { ...account, plan: live.plan }, live.plan),
      next.priceCents ?? 0,
      { start: live.periodStart, end: live.periodEnd },
      now,
    );
    if (charge > 0)
      lines.push({
        kind: 'proration',
        description: `Upgrade from ${plans[live.plan].name} to ${next.name}, rest of the period`,
        amountCents: charge,
        periodStart: now,
        periodEnd: live.periodEnd,
      });
    const existing = await repo.listInvoices(tx, account.id);
    const advance = existing.find(
      (i) => i.renewalPlan !== null && i.periodStart === live.periodEnd && i.status !== 'void',
    );
    const alreadyCharged = chargedFor(existing, live.periodEnd);
    if (advance !== undefined && alreadyCharged < (next.priceCents ?? 0))
      lines.push({
        kind: 'renewal_adjustment',
        description: `${next.name} plan for the next period (${alreadyCharged} cents invoiced in advance)`,
        amountCents: (next.priceCents ?? 0) - alreadyCharged,
        periodStart: advance.periodStart,
        periodEnd: advance.periodEnd,
      });
    return lines;
  }

  /** One invoice of the account; another account's is as unknown as a missing one. */
  async function invoiceOf(accountId: string, invoiceId: string): Promise<repo.InvoiceRow> {
    const invoice = await repo.findInvoice(db, invoiceId, accountId);
    if (invoice === undefined)
      throw new AppError('NOT_FOUND', `No invoice ${invoiceId} on this account.`);
    return invoice;
  }

  return {
    markPaid,

    /** Applies a camt.053/camt.054 file's credits to the invoices they pay (idempotent). */
    importBankStatement: (xml: string, actor: string) =>
      importBankStatement({ db, clock, cache }, xml, actor),

    /** Credits of imported statements that matched no invoice. */
    unmatchedPayments: () => unmatchedPayments(db),

    /** SEPA Direct Debit: mandates, pain.008 batches, returns and rejections (docs/billing.md). */
    mandates: createMandateService({ db, clock, seller, cache, box: deps.mandateBox }),

    /** The account's billing details, which invoices issued from now on name as the buyer. */
    details: createBillingDetails({ db, clock, vat: deps.vat }),

    /**
     * What an invoice of `netCents` to the account would carry now: the VAT its billing details
     * decide (as issuing does) and the total; `buyerKnown` false when it has given none.
     */
    async quote(
      accountId: string,
      netCents: number,
    ): Promise<{
      netCents: number;
      vat: VatDecision;
      vatCents: number;
      grossCents: number;
      buyerKnown: boolean;
    }> {
      const buyer = await buyerOf(db, accountId);
      const vat = decideVat(seller, buyer);
      const tax = vatCents(netCents, vat.rateBp);
      return {
        netCents,
        vat,
        vatCents: tax,
        grossCents: netCents + tax,
        buyerKnown: buyer !== null,
      };
    },

    /**
     * What changing to `target` would do, before it is confirmed: its kind, when it takes
     * effect, and the lines of the invoice it would issue now, priced as that invoice will be.
     */
    async preview(accountId: string, target: PlanId): Promise<ChangePreview> {
      const account = await findAccount(db, accountId);
      if (account === undefined) throw new AppError('NOT_FOUND', 'No such account.');
      const sub = await repo.findSubscription(db, accountId);
      const live = sub !== undefined && sub.status !== 'canceled' ? sub : undefined;
      const now = clock.now();
      const next = planOf(plans, account, target);
      const change: Pick<ChangePreview, 'kind' | 'effective' | 'lines'> =
        live === undefined
          ? {
              kind: 'subscribe',
              effective: 'now',
              lines: [
                planLine(next.name, next.priceCents ?? 0, {
                  start: now,
                  end: addMonthsAnchored(now, 1),
                }),
              ],
            }
          : target === 'free'
            ? { kind: 'cancel', effective: live.periodEnd, lines: [] }
            : next.rank > planOf(plans, account).rank
              ? {
                  kind: 'upgrade',
                  effective: 'now',
                  lines: await upgradeLines(db, account, live, next, now),
                }
              : { kind: 'downgrade', effective: live.periodEnd, lines: [] };
      const net = change.lines.reduce((sum, line) => sum + line.amountCents, 0);
      return { ...change, ...(await this.quote(accountId, net)) };
    },

    /** The account's invoices, oldest first. */
    async invoices(accountId: string): Promise<PublicInvoice[]> {
      return (await repo.listInvoices(db, accountId)).map(publicInvoice);
    },

    /** The account's balance ledger, oldest first (the balance is the sum of its amounts). */
    ledger: (accountId: string) => repo.ledger(db, accountId),

    async invoice(accountId: string, invoiceId: string): Promise<PublicInvoice> {
      return publicInvoice(await invoiceOf(accountId, invoiceId));
    },

    /** The invoice as a PDF, with the seller and buyer it was issued with. */
    async invoicePdf(
      accountId: string,
      invoiceId: string,
    ): Promise<{ bytes: Uint8Array; fileName: string }> {
      const invoice = await invoiceOf(accountId, invoiceId);
      // pdf-lib is loaded on the first invoice asked for, not with the server.
      const { renderInvoicePdf } = await import('./invoice-pdf.js');
      return { bytes: await renderInvoicePdf(invoice), fileName: `invoice-${invoice.number}.pdf` };
    },

    async view(accountId: string): Promise<PublicSubscription> {
      const account = await findAccount(db, accountId);
      if (account === undefined) throw new AppError('NOT_FOUND', 'No such account.');
      return subscriptionView(db, account);
    },

    /**
     * Subscribe (from Free), upgrade (now, prorated), downgrade (at the period end) or, with
     * `free`, cancel at the period end. Subscribing issues the first API key in the result.
     */
    async change(principal: Principal, target: PlanId, ip: string | null, contract?: Contract) {
      const accountId = principal.accountId;
      if (accountId === null) throw new AppError('UNAUTHENTICATED', 'Sign in first.');
      const actor = actorOf(principal);
      const outcome = await db.transaction(async (tx) => {
        let account = await lockAccount(tx, accountId);
        if (contract !== undefined)
          account = await updateAccount(tx, accountId, { contract }, new Date(clock.now()));
        const now = clock.now();
        const at = new Date(now);
        const sub = await repo.findSubscription(tx, accountId, true);
        const live = sub !== undefined && sub.status !== 'canceled' ? sub : undefined;
        const current = planOf(plans, account);
        const next = planOf(plans, account, target);
        const invoices: repo.InvoiceRow[] = [];
        let apiKey: (PublicKey & { key: string }) | undefined;

        if (live === undefined) {
          if (target === 'free')
            throw new AppError('CONFLICT', 'The account is on the Free plan already.');
          if (actor !== 'operator') {
            if (account.emailVerifiedAt === null) throw emailNotVerified();
            await assertNothingOverdue(tx, accountId, now);
          }
          await assertBillingDetails(tx, accountId);
          const period = { start: now, end: addMonthsAnchored(now, 1) };
          await repo.saveSubscription(
            tx,
            {
              accountId,
              plan: target,
              status: 'active',
              anchorAt: now,
              periodStart: period.start,
              periodEnd: period.end,
              pendingPlan: null,
              cancelAtPeriodEnd: false,
              pastDueSince: null,
            },
            now,
          );
          account = await updateAccount(tx, accountId, { plan: target, status: 'active' }, at);
          invoices.push(
            await issuePlanInvoice(tx, clock, {
              seller,
              accountId,
              planName: next.name,
              amountCents: next.priceCents ?? 0,
              period,
              dueAt: now + PAYMENT_TERMS_MS,
              renewalPlan: null,
            }),
          );
          if ((await keys.countActive(tx, accountId)) === 0)
            apiKey = await keys.issue(tx, accountId, next, {}, actor, ip);
          await enqueueNotice(
            tx,
            {
              accountId,
              kind: 'subscription.confirmed',
              data: { plan_name: next.name, period_end: new Date(period.end).toISOString() },
            },
            at,
          );
        } else if (target === 'free') {
          await repo.saveSubscription(
            tx,
            { ...live, cancelAtPeriodEnd: true, pendingPlan: null },
            now,
          );
          await scheduledNotice(tx, accountId, current.name, next.name, live.periodEnd, at);
        } else if (next.rank > current.rank) {
          if (live.status === 'past_due')
            throw new AppError('CONFLICT', 'Settle the overdue invoice before upgrading.');
          const period = { start: live.periodStart, end: live.periodEnd };
          const lines = await upgradeLines(tx, account, live, next, now);
          if (lines.length > 0) {
            await assertBillingDetails(tx, accountId);
            invoices.push(
              await issueInvoice(tx, clock, {
                seller,
                accountId,
                lines,
                period: { start: now, end: period.end },
                dueAt: now + PAYMENT_TERMS_MS,
                renewalPlan: null,
              }),
            );
          }
          await repo.saveSubscription(
            tx,
            { ...live, plan: target, pendingPlan: null, cancelAtPeriodEnd: false },
            now,
          );
          account = await updateAccount(tx, accountId, { plan: target }, at);
          await enqueueNotice(
            tx,
            {
              accountId,
              kind: 'plan.changed',
              data: { from_plan: current.name, to_plan: next.name },
            },
            at,
          );
        } else if (target === live.plan) {
          // A new contract on the same plan changes limits now and the price from the next period.
          if (live.pendingPlan === null && !live.cancelAtPeriodEnd && contract === undefined) {
            throw new AppError('CONFLICT', `The account is on the ${next.name} plan already.`);
          }
          await repo.saveSubscription(
            tx,
            { ...live, pendingPlan: null, cancelAtPeriodEnd: false },
            now,
          );
        } else {
          await repo.saveSubscription(
            tx,
            { ...live, pendingPlan: target, cancelAtPeriodEnd: false },
            now,
          );
          await scheduledNotice(tx, accountId, current.name, next.name, live.periodEnd, at);
        }
        await recordAudit(tx, {
          accountId,
          actor,
          action: 'subscriptions.change',
          data: { from: live?.plan ?? 'free', to: target, contract: contract ?? null },
          ip,
          at,
        });
        return { account, invoices, apiKey };
      });
      cache.applyAccount(outcome.account);
      await collect(outcome.invoices);
      return {
        subscription: await subscriptionView(db, (await findAccount(db, accountId)) as AccountRow),
        invoices: outcome.invoices.map(publicInvoice),
        api_key: outcome.apiKey,
      };
    },
  };
}
/** A downgrade or cancellation takes effect at the period end; the account is told now. */
function scheduledNotice(
  tx: Queryable,
  accountId: string,
  from: string,
  to: string,
  effectiveAt: number,
  at: Date,
): Promise<string> {
  return enqueueNotice(
    tx,
    {
      accountId,
      kind: 'plan.change_scheduled',
      data: { from_plan: from, to_plan: to, effective_at: new Date(effectiveAt).toISOString() },
    },
    at,
  );
}

export type SubscriptionService = ReturnType<typeof createSubscriptionService>;

export { revokeKeysBeyond };
