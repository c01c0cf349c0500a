import { findAccount, type AccountRow } from '../accounts/index.js';
import { recordAudit } from '../audit/index.js';
import { addLedgerEntry, planOf } from '../billing/index.js';
import { AppError } from '../errors/index.js';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import { enqueueNotice } from '../notices/index.js';
import type { Plan, PlanId } from '../plans/index.js';
import { runClaimed, type Db, type Queryable } from '../store/index.js';
import type { SlaCounter } from './counter.js';
import {
  INTERVAL_MS,
  businessBands,
  creditCents,
  creditPercent,
  enterpriseBands,
  formatPercent,
  measure,
  monthName,
  monthOf,
  monthRange,
  type CreditBand,
  type IntervalCounts,
  type Measurement,
} from './measure.js';
import * as repo from './repo.js';

/** A month is closed this long after it ended, so late counts and buffered beats are in. */
export const CLOSE_DELAY_MS = 60 * 60_000;
const CLOSE_LEASE_MS = 15 * 60_000;

/** Records an account's webhook event in the caller's transaction (sla.credit_issued). */
export type AccountEventPublisher = (
  tx: Queryable,
  event: { type: 'sla.credit_issued'; accountId: string; data: unknown },
) => Promise<number>;

export interface MonthFigures {
  month: string;
  target: number;
  measurement: Measurement;
  bands: CreditBand[];
}

export interface CloseResult {
  month: string;
  accounts: number;
  credits: { accountId: string; cents: number; uptime: number }[];
}

/** The plan's target and bands for an account, with its contract's own bands if any. */
async function termsOf(
  db: Queryable,
  plan: Plan,
  accountId: string,
): Promise<{ target: number; bands: CreditBand[] } | undefined> {
  if (plan.slaPercent === null) return undefined;
  const target = plan.slaPercent;
  if (plan.id === 'enterprise') {
    const own = await repo.contractBands(db, accountId);
    return { target, bands: own ?? enterpriseBands(target) };
  }
  return { target, bands: businessBands(target) };
}

function subscribedSince(since: number): number {
  return Math.ceil(since / INTERVAL_MS) * INTERVAL_MS;
}

export function createSlaService(deps: {
  db: Db;
  clock: Clock;
  plans: Readonly<Record<PlanId, Plan>>;
  logger: Logger;
  publish: AccountEventPublisher;
  /** This instance's counts not yet written, added to its reports. */
  counter?: SlaCounter;
  holder?: string;
}) {
  const { db, clock, plans } = deps;
  let closedThrough: string | undefined;

  /** The account's measurement over [from, until) with this instance's unwritten counts. */
  async function measureSpan(accountId: string, from: number, until: number): Promise<Measurement> {
    if (until <= from)
      return { intervals: 0, excluded: { maintenance: 0, ownReasons: 0 }, down: [], uptime: 100 };
    const [counts, alive, heartbeatsFrom, probes, maintenance] = await Promise.all([
      repo.countsOf(db, accountId, from, until),
      repo.aliveIntervals(db, from, until),
      repo.firstHeartbeat(db),
      repo.probesOf(db, from, until),
      repo.maintenanceBetween(db, from - 31 * 86_400_000, until + 31 * 86_400_000),
    ]);
    const pending = deps.counter?.pending(accountId);
    const merged = new Map<number, IntervalCounts>(counts);
    if (pending !== undefined)
      for (const [start, c] of pending) {
        const stored = merged.get(start) ?? { served: 0, failed: 0, refused: 0 };
        merged.set(start, {
          served: stored.served + c.served,
          failed: stored.failed + c.failed,
          refused: stored.refused + c.refused,
        });
      }
    return measure({ from, until, counts: merged, alive, heartbeatsFrom, probes, maintenance });
  }

  /** The span of `month` measured for an account: from its subscription, up to now. */
  async function monthFor(account: AccountRow, month: string): Promise<MonthFigures | undefined> {
    const range = monthRange(month);
    const plan = planOf(plans, account);
    const terms = await termsOf(db, plan, account.id);
    if (range === undefined || terms === undefined) return undefined;
    const since = await repo.subscriptionStart(db, account.id);
    const from = Math.max(range.start, subscribedSince(since));
    const until = Math.min(range.end, Math.floor(clock.now() / INTERVAL_MS) * INTERVAL_MS);
    return { month, ...terms, measurement: await measureSpan(account.id, from, until) };
  }

  async function closeAccount(
    account: AccountRow,
    month: string,
    now: number,
  ): Promise<{ cents: number; uptime: number } | undefined> {
    const figures = await monthFor(account, month);
    if (figures === undefined) return undefined;
    const plan = planOf(plans, account);
    const fee = plan.priceCents ?? 0;
    const { measurement, target, bands } = figures;
    const percent = creditPercent(measurement.uptime, bands);
    const cents = creditCents(fee, percent);
    const uptime = Math.floor(measurement.uptime * 10_000) / 10_000;
    // Not subscribed during the month: nothing to record.
    if (
      measurement.intervals + measurement.excluded.maintenance + measurement.excluded.ownReasons ===
      0
    )
      return undefined;
    return db.transaction(async (tx) => {
      const recorded = await repo.insertMonth(tx, account.id, {
        month,
        plan: plan.id,
        targetPercent: target,
        uptimePercent: uptime,
        intervals: measurement.intervals,
        excludedIntervals: measurement.excluded.maintenance + measurement.excluded.ownReasons,
        downIntervals: measurement.down.length,
        feeCents: fee,
        creditPercent: percent,
        creditCents: cents,
        computedAt: now,
      });
      if (!recorded || cents === 0) return undefined;
      const line = `SLA credit, ${monthName(month)}: uptime ${formatPercent(measurement.uptime)} (target ${formatPercent(target)})`;
      await addLedgerEntry(tx, {
        accountId: account.id,
        amountCents: cents,
        reason: line,
        invoiceId: null,
        at: now,
      });
      const data = {
        month,
        uptime_percent: uptime,
        target_percent: target,
        credit_percent: percent,
        fee_cents: fee,
        amount_cents: cents,
        description: line,
      };
      await recordAudit(tx, {
        accountId: account.id,
        actor: 'system',
        action: 'sla.credit_issued',
        data,
        at: new Date(now),
      });
      await enqueueNotice(
        tx,
        {
          accountId: account.id,
          kind: 'sla.credit_issued',
          data: {
            month: monthName(month),
            availability: formatPercent(measurement.uptime),
            target: formatPercent(target),
            amount_cents: cents,
            currency: 'EUR',
          },
        },
        new Date(now),
      );
      await deps.publish(tx, { type: 'sla.credit_issued', accountId: account.id, data });
      return { cents, uptime };
    });
  }

  return {
    monthFor,

    /** The account's figures of `month`; NOT_FOUND without the account or without figures. */
    async accountMonth(accountId: string, month: string): Promise<MonthFigures> {
      const account = await findAccount(db, accountId);
      if (account === undefined) throw new AppError('NOT_FOUND', 'The account no longer exists.');
      const f = await monthFor(account, month);
      if (f === undefined) throw new AppError('NOT_FOUND', `No SLA figures for ${month}.`);
      return f;
    },

    /**
     * Month close: every Business and Enterprise account gets the previous month's uptime
     * computed and, on a miss, its credit. Once per account and month across instances (the
     * sla_months key, written with the credit); undefined when not due or another instance
     * holds the run.
     */
    async closeMonth(): Promise<CloseResult | undefined> {
      const now = clock.now();
      const current = monthRange(monthOf(now))!;
      const month = monthOf(current.start - 1);
      if (now < current.start + CLOSE_DELAY_MS || closedThrough === month) return undefined;
      const result: CloseResult = { month, accounts: 0, credits: [] };
      const ran = await runClaimed(
        db,
        { name: 'sla.close', holder: deps.holder ?? 'sla', now, leaseMs: CLOSE_LEASE_MS },
        async () => {
          const withSla = Object.values(plans)
            .filter((p) => p.slaPercent !== null)
            .map((p) => p.id);
          for (const id of await repo.slaAccounts(db, withSla)) {
            const account = await findAccount(db, id);
            if (account === undefined) continue;
            const credit = await closeAccount(account, month, now);
            result.accounts++;
            if (credit !== undefined) result.credits.push({ accountId: id, ...credit });
          }
          return true;
        },
      );
      if (ran === undefined) return undefined;
      closedThrough = month;
      if (result.credits.length > 0)
        deps.logger.info({ month, credits: result.credits.length }, 'SLA credits issued');
      return result;
    },

    months: (accountId: string) => repo.monthsOf(db, accountId),
  };
}

export type SlaService = ReturnType<typeof createSlaService>;
