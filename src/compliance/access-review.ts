import { verifyAuditPeriod } from '../audit/index.js';
import { actorOf, type Principal } from '../auth/index.js';
import { recordAudit } from '../audit/index.js';
import { AppError } from '../errors/index.js';
import type { Clock } from '../lib/clock.js';
import { prefixedId } from '../lib/ids.js';
import { assertPlanHas, type Plan, type PlanId } from '../plans/index.js';
import { jsonColumn, type Db } from '../store/index.js';
import * as repo from './repo.js';
import type { AccessReview } from './review-schema.js';

export type { AccessReview } from './review-schema.js';

const DAY_MS = 86_400_000;
/** The default review period: the last 90 days. */
export const DEFAULT_PERIOD_DAYS = 90;
/** The longest period one review covers. */
export const MAX_PERIOD_DAYS = 366;

type Time = Date | string | null;
const iso = (t: Time): string | null => (t === null ? null : new Date(t).toISOString());
const ageDays = (from: Time, at: Date): number | null =>
  from === null ? null : Math.floor((at.getTime() - new Date(from).getTime()) / DAY_MS);

/** Parses the review period: `from`/`to` dates or timestamps, at most a year; 90 days to now by default. */
export function reviewPeriod(now: Date, from?: string, to?: string): { from: Date; to: Date } {
  const parse = (name: string, value: string): Date => {
    const date = new Date(/^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value);
    if (Number.isNaN(date.getTime()))
      throw new AppError(
        'INVALID_PARAMETER',
        `${name}: "${value}" is not a date or time (ISO 8601).`,
        {
          extensions: { invalid_params: [{ name, reason: 'not an ISO 8601 date or time' }] },
        },
      );
    return date;
  };
  const end = to === undefined ? now : parse('to', to);
  const start =
    from === undefined
      ? new Date(end.getTime() - DEFAULT_PERIOD_DAYS * DAY_MS)
      : parse('from', from);
  if (start >= end)
    throw new AppError('INVALID_PARAMETER', 'from must be before to.', {
      extensions: { invalid_params: [{ name: 'from', reason: 'not before to' }] },
    });
  if (end.getTime() - start.getTime() > MAX_PERIOD_DAYS * DAY_MS)
    throw new AppError(
      'INVALID_PARAMETER',
      `The period is longer than ${MAX_PERIOD_DAYS} days; review one year at a time.`,
      {
        extensions: {
          invalid_params: [{ name: 'from', reason: `period over ${MAX_PERIOD_DAYS} days` }],
        },
      },
    );
  return { from: start, to: end };
}

/**
 * The user access review (SOC 2 CC6.1–CC6.3) from live data: every credential of the account
 * that existed during the period with what it may do and from where, its age, use and
 * rotation; sessions; where data leaves to (webhooks, export destinations); and whether the
 * audit log's hash chain verifies over the period. Generating one is itself audited.
 */
export function createAccessReviews(deps: {
  db: Db;
  clock: Clock;
  plans: Readonly<Record<PlanId, Plan>>;
}) {
  const { db, clock, plans } = deps;
  return {
    async generate(
      principal: Principal,
      query: { from?: string | undefined; to?: string | undefined; format: string },
      ip: string,
    ): Promise<AccessReview> {
      assertPlanHas(plans, principal.plan, (p) => p.complianceReports, 'Compliance reports');
      const accountId = principal.accountId as string;
      const at = new Date(clock.now());
      const period = reviewPeriod(at, query.from, query.to);
      const [{ account, keys, clients, sessions, webhooks, exports, entries }, verification] =
        await Promise.all([
          repo.accessReviewRows(db, accountId, period),
          verifyAuditPeriod(db, period),
        ]);
      const a = account[0];
      if (a === undefined) throw new AppError('NOT_FOUND', 'The account no longer exists.');
      const actions: Record<string, number> = {};
      let total = 0;
      for (const e of entries) {
        actions[e.action] = Number(e.n);
        total += Number(e.n);
      }
      const review: AccessReview = {
        id: prefixedId('review'),
        generated_at: at.toISOString(),
        generated_by: actorOf(principal),
        period: { from: period.from.toISOString(), to: period.to.toISOString() },
        account: {
          id: a.id,
          email: a.email,
          plan: a.plan,
          status: a.status,
          created_at: iso(a.created_at)!,
          allowlist: a.allowlist,
        },
        api_keys: keys.map((k) => ({
          id: k.id,
          name: k.name,
          prefix: k.prefix,
          scopes: k.scopes,
          allowlist: k.allowlist,
          status:
            k.revoked_at !== null && new Date(k.revoked_at) <= at
              ? 'revoked'
              : k.expires_at !== null && new Date(k.expires_at) <= at
                ? 'expired'
                : k.expires_at !== null
                  ? 'rotating'
                  : 'active',
          created_at: iso(k.created_at)!,
          age_days: ageDays(k.created_at, at)!,
          last_used_at: iso(k.last_used_at),
          rotated_from: k.rotated_from,
          replaced_by: k.replaced_by,
          expires_at: iso(k.expires_at),
          revoked_at: iso(k.revoked_at),
        })),
        oauth_clients: clients.map((c) => {
          const rotated =
            c.previous_secret_expires_at === null
              ? null
              : new Date(new Date(c.previous_secret_expires_at).getTime() - DAY_MS);
          return {
            id: c.id,
            name: c.name,
            auth_method: c.auth_method,
            scopes: c.scopes,
            allowlist: c.allowlist,
            status: c.deleted_at !== null && new Date(c.deleted_at) <= at ? 'deleted' : 'active',
            created_at: iso(c.created_at)!,
            age_days: ageDays(c.created_at, at)!,
            last_used_at: iso(c.last_used),
            secret_rotated_at: rotated === null ? null : rotated.toISOString(),
            secret_age_days:
              c.auth_method === 'private_key_jwt' ? null : ageDays(rotated ?? c.created_at, at),
            deleted_at: iso(c.deleted_at),
          };
        }),
        sessions: sessions.map((s) => ({
          id: s.id,
          status:
            s.revoked_at !== null && new Date(s.revoked_at) <= at
              ? 'revoked'
              : new Date(s.expires_at!) <= at
                ? 'expired'
                : 'active',
          created_at: iso(s.created_at)!,
          expires_at: iso(s.expires_at)!,
          revoked_at: iso(s.revoked_at),
        })),
        webhook_endpoints: webhooks.map((w) => ({
          id: w.id,
          url: w.url,
          events: w.events,
          enabled: w.enabled,
          created_at: iso(w.created_at)!,
        })),
        export_destinations: exports.map((e) => {
          const d = jsonColumn(e.destination) as Record<string, unknown>;
          const text = (v: unknown) => (typeof v === 'string' ? v : null);
          return {
            export_id: e.id,
            name: e.name,
            type: text(d.type) ?? 'sftp',
            host: text(d.host),
            port: typeof d.port === 'number' ? d.port : null,
            username: text(d.username),
            path: text(d.path) ?? text(d.directory),
            created_at: iso(e.created_at)!,
          };
        }),
        audit_log: { entries_in_period: total, actions, verification },
      };
      await db.transaction((tx) =>
        recordAudit(tx, {
          accountId,
          actor: actorOf(principal),
          action: 'compliance.access_review_generated',
          data: {
            review_id: review.id,
            format: query.format,
            from: review.period.from,
            to: review.period.to,
            chain_valid: verification.valid,
          },
          ip,
          at,
        }),
      );
      return review;
    },
  };
}

export type AccessReviews = ReturnType<typeof createAccessReviews>;
