import type { Queryable } from '../store/index.js';
import { insertNotice } from './repo.js';
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

export { listNotices, releaseAllNoticeClaims, type NoticeRow } from './repo.js';
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
  smtpTransport,
  verifySmtp,
  SMTP_TIMEOUT_MS,
  type MailTransport,
  type OutgoingMail,
} from './transport.js';
