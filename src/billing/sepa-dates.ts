import { addTarget2Days, target2OnOrAfter } from '../lib/target2.js';
import type { MandateScheme } from './sepa-repo.js';

/** The debtor is told of each collection (amount and date) at least this many days before. */
export const PRE_NOTIFICATION_DAYS = 5;
/**
 * TARGET2 days between the day the file reaches the bank and the collection date, per scheme
 * (SEPA Core and B2B rulebooks: D-1 for every sequence type).
 */
export const LEAD_DAYS: Record<MandateScheme, number> = { core: 1, b2b: 1 };
const DAY_MS = 86_400_000;
const isoDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/**
 * The day an invoice is collected: its due date, but not before the debtor was told
 * (PRE_NOTIFICATION_DAYS after the invoice was issued) nor before the scheme's lead time from
 * `now`, moved to a TARGET2 day.
 */
export function collectionDate(
  invoice: { dueAt: number; createdAt: number },
  scheme: MandateScheme,
  now: number,
): string {
  const candidates = [
    isoDay(invoice.dueAt),
    isoDay(invoice.createdAt + PRE_NOTIFICATION_DAYS * DAY_MS),
    addTarget2Days(isoDay(now), LEAD_DAYS[scheme]),
  ].sort();
  return target2OnOrAfter(candidates[candidates.length - 1]!);
}
