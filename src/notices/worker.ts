import type { ActionTokens } from '../lib/action-tokens.js';
import type { Clock } from '../lib/clock.js';
import { backoffDelay, createQueue, type Queue } from '../lib/queue.js';
import type { Logger } from '../lib/logger.js';
import type { Db } from '../store/index.js';
import * as repo from './repo.js';
import { isNoticeKind, renderNotice, TEMPLATES } from './templates.js';
import { SMTP_TIMEOUT_MS, type MailTransport, type OutgoingMail } from './transport.js';

/**
 * Delay before each retry, by the attempts made so far: about two days in all (30 s, 2 min,
 * 10 min, 30 min, 1 h, 3 h, 6 h, 12 h, 24 h), each moved by up to ±10 %.
 */
export const NOTICE_RETRY_DELAYS_MS = [
  30_000,
  2 * 60_000,
  10 * 60_000,
  30 * 60_000,
  3_600_000,
  3 * 3_600_000,
  6 * 3_600_000,
  12 * 3_600_000,
  24 * 3_600_000,
] as const;

/** A claim outlives the longest SMTP conversation (three 15 s limits) by a wide margin. */
export const NOTICE_LEASE_MS = 8 * SMTP_TIMEOUT_MS;

/** The `notices.send` queue: `runOnce` claims and sends due notices until none is due. */
export type NoticeWorker = Queue;

/** Who a claimed notice goes to; empty when nobody should get it (opted out, no account). */
export function recipientsOf(n: repo.ClaimedNotice): string[] {
  if (n.recipients !== null) return n.recipients;
  if (n.account === null || !isNoticeKind(n.kind)) return [];
  const a = n.account;
  switch (TEMPLATES[n.kind].category) {
    case 'billing':
      return [a.billingEmail ?? a.email];
    case 'technical':
      return a.optOut ? [] : [a.technicalEmail ?? a.email];
    case 'security':
      return [...new Set([a.email, a.technicalEmail ?? a.email])];
    default:
      return [a.email];
  }
}

/**
 * The `notices.send` job: claims due notices from the outbox (each claimed by one worker,
 * however many processes share the database), renders and sends them, and records the
 * outcome: sent, a retry with backoff, or failed after the last retry.
 */
export function createNoticeWorker(deps: {
  db: Db;
  clock: Clock;
  transport: MailTransport;
  from: string;
  /** The server's public URL: links in messages start with it. */
  baseUrl: string;
  logger: Logger;
  /** Turns the `token_id` of a mailed link's notice into its token (the kind is its purpose). */
  actionTokens: ActionTokens;
  random?: () => number;
  /** Notices this process sends at once (1 unless told). */
  concurrency?: number;
}): NoticeWorker {
  const { db, clock, transport, logger } = deps;
  const domain = deps.from.replace(/^.*@/, '').replace(/>.*$/, '') || 'localhost';

  // The outbox keeps a link's token id only; the token is signed here, as the mail is written.
  const withToken = (kind: string, data: Record<string, unknown>): Record<string, unknown> =>
    typeof data.token_id === 'string'
      ? { ...data, token: deps.actionTokens.token(kind, data.token_id) }
      : data;

  async function deliver(n: repo.ClaimedNotice, id: string): Promise<void> {
    const to = recipientsOf(n);
    let outcome: Parameters<typeof repo.settleNotice>[3];
    if (!isNoticeKind(n.kind) || to.length === 0) {
      const error = isNoticeKind(n.kind) ? 'no recipient (opted out)' : `unknown kind ${n.kind}`;
      outcome = { status: 'skipped', nextAttemptAt: null, error };
    } else {
      const name = n.recipients !== null ? null : (n.account?.name ?? n.account?.email ?? null);
      const mail: OutgoingMail = {
        from: deps.from,
        to,
        ...renderNotice(n.kind, withToken(n.kind, n.data), name, deps.baseUrl),
        messageId: `<${n.id}@${domain}>`,
      };
      try {
        await transport.send(mail);
        outcome = { status: 'sent', nextAttemptAt: null, error: null };
      } catch (error) {
        const delay = backoffDelay(NOTICE_RETRY_DELAYS_MS, n.attempts, 0.1, deps.random);
        const message = (error as Error).message.slice(0, 500);
        logger.info({ notice: n.id, kind: n.kind, err: message }, 'mail attempt failed');
        outcome =
          delay === null
            ? { status: 'failed', nextAttemptAt: null, error: message }
            : { status: 'pending', nextAttemptAt: new Date(clock.now() + delay), error: message };
      }
    }
    const settled = await repo.settleNotice(db, n.id, id, outcome, new Date(clock.now()));
    if (!settled)
      logger.warn({ notice: n.id }, 'notice claim lost before its outcome was recorded');
    logger.info(
      { notice: n.id, kind: n.kind, attempt: n.attempts, status: outcome.status },
      'notice processed',
    );
  }

  const queue = createQueue<repo.ClaimedNotice>({
    name: 'notices.send',
    concurrency: deps.concurrency ?? 1,
    leaseMs: NOTICE_LEASE_MS,
    clock,
    logger,
    claim: (holder, now, leaseUntil, limit) => repo.claimDue(db, holder, now, leaseUntil, limit),
    handle: deliver,
    releaseClaims: () => repo.releaseAllNoticeClaims(db),
  });
  return queue;
}
