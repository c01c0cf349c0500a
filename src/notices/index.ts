import type { Plan } from '../plans/index.js';
import type { Queryable } from '../store/index.js';
import { insertNotice, insertNoticeForPlans } from './repo.js';
import type { NoticeKind } from './templates.js';

/**
 * Records a notice in the caller's transaction, so it is sent exactly when what caused it
 * commits. `data` holds only what the kind's template names (docs/notices.md); never a secret.
 */
export function enqueueNotice(
  tx: Queryable,
  notice: {
    accountId: string | null;
    kind: NoticeKind;
    data?: Record<string, unknown>;
    recipients?: readonly string[];
  },
  at: Date,
): Promise<string> {
  return insertNotice(tx, { ...notice, data: notice.data ?? {} }, at);
}

/**
 * Records one notice of `kind` for every active account on one of `plans` (each sent to the
 * account's contact for the kind's category), in the caller's transaction.
 */
export function enqueueNoticeForPlans(
  tx: Queryable,
  notice: { kind: NoticeKind; data: Record<string, unknown>; plans: readonly string[] },
  at: Date,
): Promise<number> {
  return insertNoticeForPlans(tx, notice.kind, notice.data, notice.plans, at);
}

/**
 * Announces a newly loaded data release by e-mail (`data.updated`) to every account whose plan
 * reaches the previous release too, so it can pin that one while it reviews the changes.
 */
export function dataUpdateAnnouncer(plans: readonly Plan[]) {
  const reaching = plans.filter((p) => p.releasesBack !== 0).map((p) => p.id);
  return (tx: Queryable, event: object, at: Date): Promise<number> =>
    enqueueNoticeForPlans(tx, { kind: 'data.updated', data: { ...event }, plans: reaching }, at);
}

export { listNotices, type NoticeRow } from './repo.js';
export { NOTICE_KINDS, TEMPLATES, renderNotice, type NoticeKind } from './templates.js';
export {
  createNoticeWorker,
  recipientsOf,
  NOTICE_LEASE_MS,
  NOTICE_RETRY_DELAYS_MS,
  type NoticeWorker,
} from './worker.js';
export {
  logTransport,
  mailTransport,
  smtpTransport,
  verifySmtp,
  SMTP_TIMEOUT_MS,
  type MailTransport,
  type OutgoingMail,
} from './transport.js';
