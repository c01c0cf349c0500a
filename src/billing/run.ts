import { findAccount, updateAccount, type AccountRow } from '../accounts/index.js';
import { recordAudit } from '../audit/index.js';
import { enqueueNotice } from '../notices/index.js';
import { revokeKeysBeyond, type CredentialCache } from '../keys/index.js';
import type { Clock } from '../lib/clock.js';
import { holderId } from '../lib/ids.js';
import type { Logger } from '../lib/logger.js';
import type { PlanId } from '../plans/index.js';
import { runClaimed, type Db, type Queryable } from '../store/index.js';
import { cycleAt, type Period } from './cycle.js';
import {
  chargedFor,
  DAY_MS,
  GRACE_MS,
  PAYMENT_TERMS_MS,
  issueInvoice,
  issuePlanInvoice,
  type PaymentCollector,
} from './invoicing.js';
import * as repo from './repo.js';
import { pendingCollectionInvoiceIds } from './sepa-repo.js';
import { planOf, type Plans } from './service.js';
import { verifyPendingVatNumbers, type VatNumberVerifier } from './vat-check.js';
import type { Seller } from './vat.js';

/** Renewal invoices are issued this long before the period they charge for. */
export const ADVANCE_INVOICE_MS = 7 * DAY_MS;
export { GRACE_MS } from './invoicing.js';
/** A run stuck longer than this (a crashed instance) no longer blocks the others. */
const RUN_LEASE_MS = 15 * 60_000;

export interface BillingRunResult {
  accounts: number;
  invoicesIssued: number;
  planChanges: { accountId: string; from: PlanId; to: PlanId; reason: string }[];
}

/**
 * The billing clock: rolls periods over (pending downgrades and cancellations take effect),
 * issues renewal invoices in advance, marks overdue accounts past_due and moves them to Free
 * after the grace period. Idempotent: running it twice at the same time changes nothing more.
 * One instance at a time runs it, through the `billing.run` lease in the database; with
 * `everyMs` (the timer of `serve`) it runs once per interval across all instances. Each account
 * is its own transaction.
 */
export async function runBilling(deps: {
  db: Db;
  clock: Clock;
  plans: Plans;
  cache: CredentialCache;
  collector: PaymentCollector;
  logger: Logger;
  /** Who the invoices are from (the operator's SELLER_* settings). */
  seller: Seller;
  /** Verifies again buyers' VAT numbers that VIES could not answer for. */
  vat: VatNumberVerifier;
  /** Lease holder: this instance. */
  holder?: string;
  /** Scheduled run: skipped when any instance ran billing less than this long ago. */
  everyMs?: number;
}): Promise<BillingRunResult | undefined> {
  const { db, clock } = deps;
  const result: BillingRunResult = { accounts: 0, invoicesIssued: 0, planChanges: [] };
  const now = clock.now();
  const claim = {
    name: 'billing.run',
    holder: deps.holder ?? holderId(),
    now,
    leaseMs: RUN_LEASE_MS,
    ...(deps.everyMs === undefined ? {} : { everyMs: deps.everyMs }),
  };
  const ran = await runClaimed(db, claim, async () => {
    await verifyPendingVatNumbers({ db, clock, verifier: deps.vat, logger: deps.logger });
    for (const accountId of await repo.dueSubscriptionIds(db, now, ADVANCE_INVOICE_MS)) {
      const changed = await db.transaction((tx) => settleAccount(tx, deps, accountId, now, result));
      if (changed !== undefined) deps.cache.applyAccount(changed);
      result.accounts++;
    }
    return true;
  });
  if (ran === undefined) return undefined;
  // Keys revoked by a plan change stop working on this instance now, not at the next poll.
  if (result.planChanges.length > 0) await deps.cache.refresh();
  return result;
}

async function settleAccount(
  tx: Queryable,
  deps: { clock: Clock; plans: Plans; seller: Seller },
  accountId: string,
  now: number,
  result: BillingRunResult,
): Promise<AccountRow | undefined> {
  const { clock, plans, seller } = deps;
  let account = await findAccount(tx, accountId, true);
  let sub = await repo.findSubscription(tx, accountId, true);
  if (account === undefined || sub === undefined || sub.status === 'canceled') return undefined;
  const startPlan = account.plan;
  const invoices = await repo.listInvoices(tx, accountId);
  const advanceFor = (start: number) =>
    invoices.find((i) => i.renewalPlan !== null && i.periodStart === start && i.status !== 'void');
  // No invoice is made out to an account that has not said who it is (docs/billing.md).
  const buyerKnown = (await repo.findBillingDetails(tx, accountId)) !== undefined;
  let held: 'grace' | 'ended' | undefined;

  // 1. Period ends: apply what was scheduled. What was invoiced for the new period (a renewal
  // invoiced in advance, upgrade adjustments) is settled against the price of the plan that
  // now applies: an excess is credited to the balance, a shortfall invoiced.
  while (sub.status !== 'canceled' && now >= sub.periodEnd) {
    const nextPlan: PlanId = sub.cancelAtPeriodEnd ? 'free' : (sub.pendingPlan ?? sub.plan);
    // The cycle that starts where the current period ends.
    const next: Period = cycleAt(sub.anchorAt, sub.periodEnd);
    const nextPrice = nextPlan === 'free' ? 0 : (planOf(plans, account, nextPlan).priceCents ?? 0);
    let charged = chargedFor(invoices, next.start);
    const advance = advanceFor(next.start);
    if (advance !== undefined && advance.status === 'open' && charged !== nextPrice) {
      // Not paid yet: withdraw it (returning credit spent on it) rather than credit it back.
      await repo.setInvoiceStatus(tx, advance.id, 'void', null);
      await repo.addLedgerEntry(tx, {
        accountId,
        amountCents: advance.balanceAppliedCents,
        reason: `credit returned from void invoice ${advance.number}`,
        invoiceId: advance.id,
        at: now,
      });
      advance.status = 'void';
      charged -= advance.subtotalCents;
    }
    if (charged < nextPrice && !buyerKnown) {
      // The renewal cannot be invoiced: the period does not roll over. The plan is kept through
      // the grace period; the account moves to Free at its end unless billing details come.
      ({ sub, held } = await holdForBillingDetails(tx, plans, account, sub, now));
      break;
    }
    if (charged > nextPrice) {
      // The excess comes off unpaid invoices first (a credit line on each); only what was
      // actually paid becomes credit on the balance.
      let excess = charged - nextPrice;
      for (const invoice of invoices.filter((i) => i.status === 'open').reverse()) {
        const forPeriod = invoice.lines
          .filter((l) => l.periodStart === next.start)
          .reduce((sum, l) => sum + l.amountCents, 0);
        const reduction = Math.min(excess, forPeriod, invoice.amountDueCents);
        if (reduction <= 0) continue;
        await repo.addCreditLine(
          tx,
          invoice,
          {
            kind: 'credit',
            description: `Not owed after the change of plan from ${new Date(next.start).toISOString().slice(0, 10)}`,
            amountCents: -reduction,
            periodStart: next.start,
            periodEnd: next.end,
          },
          now,
        );
        excess -= reduction;
      }
      if (excess > 0) {
        await repo.addLedgerEntry(tx, {
          accountId,
          amountCents: excess,
          reason: `${nextPlan === 'free' ? 'cancellation' : 'downgrade'}: paid in advance for the period from ${new Date(next.start).toISOString().slice(0, 10)} beyond its price`,
          invoiceId: advance?.id ?? null,
          at: now,
        });
      }
    } else if (charged < nextPrice) {
      const plan = planOf(plans, account, nextPlan);
      invoices.push(
        await issueInvoice(tx, clock, {
          seller,
          accountId,
          lines: [
            {
              kind: charged === 0 ? 'subscription' : 'renewal_adjustment',
              description: `${plan.name} plan`,
              amountCents: nextPrice - charged,
              periodStart: next.start,
              periodEnd: next.end,
            },
          ],
          period: next,
          dueAt: next.start > now ? next.start : now + PAYMENT_TERMS_MS,
          renewalPlan: nextPlan,
        }),
      );
      result.invoicesIssued++;
    }
    if (nextPlan === 'free') {
      sub = { ...sub, status: 'canceled', pendingPlan: null, cancelAtPeriodEnd: false };
      await repo.saveSubscription(tx, sub, now);
      break;
    }
    sub = {
      ...sub,
      plan: nextPlan,
      pendingPlan: null,
      periodStart: next.start,
      periodEnd: next.end,
    };
    await repo.saveSubscription(tx, sub, now);
  }

  // 2. The renewal invoice, a week ahead (once the account has given its billing details).
  if (
    buyerKnown &&
    sub.status !== 'canceled' &&
    !sub.cancelAtPeriodEnd &&
    now >= sub.periodEnd - ADVANCE_INVOICE_MS &&
    advanceFor(sub.periodEnd) === undefined
  ) {
    const plan = planOf(plans, account, sub.pendingPlan ?? sub.plan);
    const period: Period = cycleAt(sub.anchorAt, sub.periodEnd);
    invoices.push(
      await issuePlanInvoice(tx, clock, {
        seller,
        accountId,
        planName: plan.name,
        amountCents: plan.priceCents ?? 0,
        period,
        dueAt: period.start,
        renewalPlan: plan.id,
      }),
    );
    result.invoicesIssued++;
  }

  // 3. Overdue invoices: past_due, then Free after the grace period.
  // An invoice the bank is collecting by direct debit is not overdue until it comes back.
  const collecting = await pendingCollectionInvoiceIds(tx, accountId);
  const overdue = invoices.filter(
    (i) => i.status === 'open' && i.dueAt <= now && !collecting.has(i.id),
  );
  if (sub.status !== 'canceled' && overdue.length > 0) {
    const since = sub.pastDueSince ?? Math.min(...overdue.map((i) => i.dueAt));
    if (now >= since + GRACE_MS) {
      for (const i of overdue) await repo.setInvoiceStatus(tx, i.id, 'uncollectible', null);
      sub = { ...sub, status: 'canceled', pastDueSince: since };
      await repo.saveSubscription(tx, sub, now);
      await recordAudit(tx, {
        accountId,
        actor: 'system',
        action: 'subscriptions.payment_failed',
        data: { invoices: overdue.map((i) => i.id) },
        at: new Date(now),
      });
      await enqueueNotice(
        tx,
        {
          accountId,
          kind: 'subscription.payment_failed',
          data: { from_plan: planOf(plans, account, sub.plan).name },
        },
        new Date(now),
      );
    } else if (sub.status !== 'past_due') {
      sub = { ...sub, status: 'past_due', pastDueSince: since };
      await repo.saveSubscription(tx, sub, now);
      await enqueueNotice(
        tx,
        {
          accountId,
          kind: 'invoice.overdue',
          data: {
            invoice_numbers: overdue.map((i) => String(i.number)),
            grace_ends_at: new Date(since + GRACE_MS).toISOString(),
          },
        },
        new Date(now),
      );
    }
  } else if (held === undefined && sub.status === 'past_due' && overdue.length === 0) {
    // Nothing is overdue any more (a renewal held for billing details is invoiced now, or the
    // bank collects what was overdue): the subscription is in good standing again.
    sub = { ...sub, status: 'active', pastDueSince: null };
    await repo.saveSubscription(tx, sub, now);
  }

  const plan: PlanId = sub.status === 'canceled' ? 'free' : sub.plan;
  const status = sub.status === 'past_due' ? 'past_due' : 'active';
  if (plan === account.plan && status === account.status) return undefined;
  account = await updateAccount(tx, accountId, { plan, status }, new Date(now));
  if (plan !== startPlan) {
    const maxKeys = planOf(plans, account).maxKeys;
    const revoked =
      maxKeys === null ? [] : await revokeKeysBeyond(tx, accountId, maxKeys, new Date(now));
    const reason =
      held === 'ended'
        ? 'billing_details_missing'
        : sub.pastDueSince !== null && sub.status === 'canceled'
          ? 'payment_failed'
          : 'scheduled';
    result.planChanges.push({ accountId, from: startPlan, to: plan, reason });
    await recordAudit(tx, {
      accountId,
      actor: 'system',
      action: 'subscriptions.plan_changed',
      data: { from: startPlan, to: plan, reason, revoked_keys: revoked },
      at: new Date(now),
    });
    const names = { from_plan: plans[startPlan].name, to_plan: planOf(plans, account).name };
    if (reason === 'scheduled')
      await enqueueNotice(tx, { accountId, kind: 'plan.changed', data: names }, new Date(now));
    if (revoked.length > 0)
      await enqueueNotice(
        tx,
        { accountId, kind: 'keys.revoked_by_downgrade', data: { ...names, key_ids: revoked } },
        new Date(now),
      );
  }
  return account;
}

/**
 * A renewal that cannot be invoiced because the account has given no billing details: the
 * subscription is past due from the period's end and keeps its plan through the grace period,
 * then ends (the account moves to Free). Each step is audited and mailed once.
 */
async function holdForBillingDetails(
  tx: Queryable,
  plans: Plans,
  account: AccountRow,
  sub: repo.SubscriptionRow,
  now: number,
): Promise<{ sub: repo.SubscriptionRow; held: 'grace' | 'ended' }> {
  const since = sub.pastDueSince ?? sub.periodEnd;
  const at = new Date(now);
  const planName = planOf(plans, account, sub.plan).name;
  if (now >= since + GRACE_MS) {
    const ended = { ...sub, status: 'canceled' as const, pastDueSince: since };
    await repo.saveSubscription(tx, ended, now);
    await recordAudit(tx, {
      accountId: account.id,
      actor: 'system',
      action: 'subscriptions.ended_without_billing_details',
      data: { plan: sub.plan },
      at,
    });
    await enqueueNotice(
      tx,
      {
        accountId: account.id,
        kind: 'subscription.ended_without_billing_details',
        data: { from_plan: planName },
      },
      at,
    );
    return { sub: ended, held: 'ended' };
  }
  if (sub.status === 'past_due') return { sub, held: 'grace' };
  const waiting = { ...sub, status: 'past_due' as const, pastDueSince: since };
  await repo.saveSubscription(tx, waiting, now);
  await recordAudit(tx, {
    accountId: account.id,
    actor: 'system',
    action: 'subscriptions.renewal_held',
    data: { plan: sub.plan, reason: 'billing_details_missing' },
    at,
  });
  await enqueueNotice(
    tx,
    {
      accountId: account.id,
      kind: 'billing_details.required',
      data: { plan_name: planName, grace_ends_at: new Date(since + GRACE_MS).toISOString() },
    },
    at,
  );
  return { sub: waiting, held: 'grace' };
}
