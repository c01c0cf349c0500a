/** A half-open span of time [start, end) in epoch milliseconds (UTC). */
export interface Period {
  start: number;
  end: number;
}

/** The index-th billing period after the anchor; index 0 starts at the anchor. */
export interface BillingCycle extends Period {
  index: number;
}

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

function daysInMonth(year: number, month: number): number {
  if (month === 1) return isLeapYear(year) ? 29 : 28;
  return month === 3 || month === 5 || month === 8 || month === 10 ? 30 : 31;
}

function assertEpochMs(name: string, value: number): void {
  if (!Number.isSafeInteger(value)) throw new RangeError(`${name} must be integer epoch ms`);
}

/**
 * The instant `months` calendar months after the anchor, on the anchor's day of month (clamped to
 * the month's last day) and time of day, as Stripe's billing_cycle_anchor does. Always counted from
 * the anchor itself: chaining one month at a time would lose the 31st after the first short month.
 */
export function addMonthsAnchored(anchorMs: number, months: number): number {
  assertEpochMs('anchorMs', anchorMs);
  if (!Number.isSafeInteger(months)) throw new RangeError('months must be an integer');
  const anchor = new Date(anchorMs);
  const monthsSinceYear0 = anchor.getUTCFullYear() * 12 + anchor.getUTCMonth() + months;
  const year = Math.floor(monthsSinceYear0 / 12);
  const month = monthsSinceYear0 - year * 12;
  const day = Math.min(anchor.getUTCDate(), daysInMonth(year, month));
  // setUTCFullYear rather than Date.UTC: Date.UTC maps years 0–99 to 1900–1999.
  const result = new Date(anchorMs).setUTCFullYear(year, month, day);
  if (Number.isNaN(result)) throw new RangeError('result is outside the representable dates');
  return result;
}

/** The billing period that contains `atMs` (start inclusive, end exclusive). */
export function cycleAt(anchorMs: number, atMs: number): BillingCycle {
  assertEpochMs('anchorMs', anchorMs);
  assertEpochMs('atMs', atMs);
  if (atMs < anchorMs) throw new RangeError('atMs is before the billing cycle anchor');
  const anchor = new Date(anchorMs);
  const at = new Date(atMs);
  let index =
    (at.getUTCFullYear() - anchor.getUTCFullYear()) * 12 +
    (at.getUTCMonth() - anchor.getUTCMonth());
  let start = addMonthsAnchored(anchorMs, index);
  // The estimate's period starts in atMs's own calendar month, so it is either the right one or,
  // when atMs comes earlier in that month than the anchor's day and time, one too far. The period
  // before it starts in the previous month, and every period ends in a later month than it starts,
  // so one step back always suffices.
  if (start > atMs) {
    index -= 1;
    start = addMonthsAnchored(anchorMs, index);
  }
  return { index, start, end: addMonthsAnchored(anchorMs, index + 1) };
}
