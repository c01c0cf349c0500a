import { updateAccount, type AccountRow } from '../accounts/index.js';
import { recordAudit } from '../audit/index.js';
import type { Queryable } from '../store/index.js';
import * as repo from './repo.js';

/**
 * Marks an open (or written-off) invoice paid in the caller's transaction, audited, and puts a
 * `past_due` subscription back to active once nothing else is overdue. Answers the account when
 * it changed, for the caller to announce after the commit.
 */
export async function settleInvoice(
  tx: Queryable,
  invoice: repo.InvoiceRow,
  now: number,
  actor: string,
  data: Record<string, unknown> = {},
): Promise<AccountRow | undefined> {
  await repo.setInvoiceStatus(tx, invoice.id, 'paid', now);
  await recordAudit(tx, {
    accountId: invoice.accountId,
    actor,
    action: 'invoices.mark_paid',
    data: { invoice_id: invoice.id, ...data },
    at: new Date(now),
  });
  const sub = await repo.findSubscription(tx, invoice.accountId, true);
  const stillOverdue = (await repo.listInvoices(tx, invoice.accountId)).some(
    (i) => i.id !== invoice.id && i.status === 'open' && i.dueAt <= now,
  );
  if (sub?.status !== 'past_due' || stillOverdue) return undefined;
  await repo.saveSubscription(tx, { ...sub, status: 'active', pastDueSince: null }, now);
  return updateAccount(tx, invoice.accountId, { status: 'active' }, new Date(now));
}
