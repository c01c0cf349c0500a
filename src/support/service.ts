import {
  emailNotVerified,
  findAccount,
  updateContacts,
  type AccountRow,
} from '../accounts/index.js';
import { recordAudit } from '../audit/index.js';
import { AppError } from '../errors/index.js';
import type { Clock } from '../lib/clock.js';
import { prefixedId } from '../lib/ids.js';
import type { LimitRule, RateLimiter } from '../limits/index.js';
import { enqueueNotice } from '../notices/index.js';
import type { Plan, PlanId } from '../plans/index.js';
import type { Db, Queryable } from '../store/index.js';
import * as repo from './repo.js';

/** Support requests per account per day. */
export const SUPPORT_REQUESTS: LimitRule = {
  name: 'support-requests',
  limit: 10,
  windowMs: 86_400_000,
};

/** The support each plan sells (docs/support.md). */
export const SUPPORT_BY_PLAN = {
  free: { channel: 'community', priority: null, responseTarget: null },
  developer: { channel: 'e-mail', priority: 'P3', responseTarget: '2 business days' },
  business: { channel: 'priority e-mail', priority: 'P2', responseTarget: '1 business day' },
  enterprise: { channel: 'dedicated account manager', priority: 'P1', responseTarget: '4 hours' },
} as const;

export const SEVERITIES = ['low', 'normal', 'high', 'urgent'] as const;
export type Severity = (typeof SEVERITIES)[number];

export interface SupportRequestInput {
  subject: string;
  message: string;
  severity?: Severity;
}

/** Share of the account's requests in the last 24 hours that were answered with an error. */
async function errorRate(db: Queryable, accountId: string, now: number): Promise<string> {
  const { total, failed } = await repo.requestCountsSince(
    db,
    accountId,
    new Date(now - 86_400_000),
  );
  if (total === 0) return 'no requests';
  return `${((100 * failed) / total).toFixed(1)} % of ${total} requests`;
}

export function createSupportService(deps: {
  db: Db;
  clock: Clock;
  plans: Readonly<Record<PlanId, Plan>>;
  limiter: RateLimiter;
  supportEmail: string | undefined;
  communityUrl: string;
}) {
  const { db, clock, plans, limiter } = deps;
  const supportOf = (a: AccountRow) => {
    const support = SUPPORT_BY_PLAN[a.plan];
    return {
      channel: support.channel,
      response_target: support.responseTarget,
      ...(support.priority === null ? { community_url: deps.communityUrl } : {}),
      ...(a.plan === 'enterprise' && a.contacts.managerEmail !== null
        ? { account_manager: { name: a.contacts.managerName, email: a.contacts.managerEmail } }
        : {}),
    };
  };
  const contactsView = (a: AccountRow) => ({
    name: a.contacts.name,
    billing_email: a.contacts.billingEmail,
    technical_email: a.contacts.technicalEmail,
    notices_opt_out: a.contacts.noticesOptOut,
    support: supportOf(a),
  });
  return {
    /** The support channel and response target of the account's plan (GET /api/v1/account). */
    supportOf,

    /** The account's contact addresses, notice opt-out and support channel. */
    async contacts(accountId: string) {
      const account = await findAccount(db, accountId);
      if (account === undefined) throw new AppError('NOT_FOUND', 'No such account.');
      return contactsView(account);
    },

    /** Sets contact addresses, name or opt-out, with its audit entry (who, from where). */
    async updateContacts(
      accountId: string,
      patch: {
        name?: string | null;
        billing_email?: string | null;
        technical_email?: string | null;
        notices_opt_out?: boolean;
      },
      by: { actor: string; ip: string },
    ) {
      const at = new Date(clock.now());
      // Other addresses receive the account's notices only once its own address is confirmed.
      if (
        (patch.billing_email != null || patch.technical_email != null) &&
        (await findAccount(db, accountId))?.emailVerifiedAt === null
      )
        throw emailNotVerified();
      const account = await db.transaction(async (tx) => {
        const updated = await updateContacts(
          tx,
          accountId,
          {
            ...(patch.name === undefined ? {} : { name: patch.name }),
            ...(patch.billing_email === undefined ? {} : { billingEmail: patch.billing_email }),
            ...(patch.technical_email === undefined
              ? {}
              : { technicalEmail: patch.technical_email }),
            ...(patch.notices_opt_out === undefined
              ? {}
              : { noticesOptOut: patch.notices_opt_out }),
          },
          at,
        );
        if (updated !== undefined)
          await recordAudit(tx, {
            accountId,
            actor: by.actor,
            action: 'accounts.update_contacts',
            data: { ...patch },
            ip: by.ip,
            at,
          });
        return updated;
      });
      if (account === undefined) throw new AppError('NOT_FOUND', 'No such account.');
      return contactsView(account);
    },

    /** Records a request and mails it to support (and the account manager) and the customer. */
    async submit(accountId: string, input: SupportRequestInput) {
      const account = await findAccount(db, accountId);
      if (account === undefined) throw new AppError('NOT_FOUND', 'No such account.');
      const support = SUPPORT_BY_PLAN[account.plan];
      if (support.priority === null) {
        throw new AppError(
          'FEATURE_NOT_IN_PLAN',
          `E-mail support starts with the Developer plan; the Free plan is supported in the community at ${deps.communityUrl}.`,
          { extensions: { community_url: deps.communityUrl } },
        );
      }
      const now = clock.now();
      const decision = await limiter.spend(`support:${accountId}`, [SUPPORT_REQUESTS], now);
      if (!decision.allowed) {
        throw AppError.tooManyAttempts(
          `At most ${SUPPORT_REQUESTS.limit} support requests can be sent per day; try again later.`,
          decision.retryAfterSeconds,
        );
      }
      const at = new Date(now);
      const id = prefixedId('sup');
      const severity = input.severity ?? 'normal';
      const data = {
        request_id: id,
        account_id: accountId,
        account_email: account.email,
        plan_name: plans[account.plan].name,
        priority: support.priority,
        response_target: support.responseTarget,
        severity,
        subject: input.subject,
        message: input.message,
        error_rate: await errorRate(db, accountId, now),
      };
      const staff = [
        ...(deps.supportEmail === undefined ? [] : [deps.supportEmail]),
        ...(account.plan === 'enterprise' && account.contacts.managerEmail !== null
          ? [account.contacts.managerEmail]
          : []),
      ];
      await db.transaction(async (tx) => {
        await repo.insertSupportRequest(tx, {
          id,
          accountId,
          subject: input.subject,
          message: input.message,
          severity,
          priority: support.priority,
          createdAt: at,
        });
        if (staff.length > 0)
          await enqueueNotice(
            tx,
            { accountId, kind: 'support.request', data, recipients: staff },
            at,
          );
        await enqueueNotice(tx, { accountId, kind: 'support.confirmation', data }, at);
      });
      return {
        id,
        priority: support.priority,
        response_target: support.responseTarget,
        created_at: at.toISOString(),
      };
    },
  };
}
export type SupportService = ReturnType<typeof createSupportService>;
