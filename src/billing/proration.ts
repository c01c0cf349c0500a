import type { Period } from './cycle.js';

function assertPeriod(period: Period): void {
  if (!Number.isSafeInteger(period.start) || !Number.isSafeInteger(period.end)) {
    throw new RangeError('period bounds must be integer epoch ms');
  }
  if (period.end <= period.start) throw new RangeError('period must end after it starts');
}

function assertCents(name: string, value: number): void {
  if (!Number.isSafeInteger(value)) throw new RangeError(`${name} must be integer cents`);
}

function remainingMs(period: Period, atMs: number): number {
  if (!Number.isSafeInteger(atMs)) throw new RangeError('atMs must be integer epoch ms');
  return Math.min(Math.max(period.end - atMs, 0), period.end - period.start);
}

/**
 * The share of the period still to come at `atMs`, in [0, 1]: 1 at or before the start, 0 at or
 * after the end. Proration counts milliseconds, not days, so a change at `start + 10 days` in a
 * 30-day period leaves 20/30 of it.
 */
export function unusedFraction(period: Period, atMs: number): number {
  assertPeriod(period);
  return remainingMs(period, atMs) / (period.end - period.start);
}

/**
 * `amountCents` × the unused fraction, rounded half away from zero to whole cents, so a credit
 * (negative amount) is the exact mirror of the same charge.
 */
export function prorate(amountCents: number, period: Period, atMs: number): number {
  assertCents('amountCents', amountCents);
  assertPeriod(period);
  // Exact rational arithmetic: cents × milliseconds passes 2^53 for ordinary prices and months,
  // and a float quotient can land on the wrong side of a half cent.
  const numerator = BigInt(amountCents) * BigInt(remainingMs(period, atMs));
  const denominator = BigInt(period.end - period.start);
  const quotient = numerator / denominator;
  const remainder = numerator % denominator;
  const twiceRemainder = remainder < 0n ? -2n * remainder : 2n * remainder;
  if (twiceRemainder < denominator) return Number(quotient);
  return Number(quotient) + (numerator < 0n ? -1 : 1);
}

/** What an upgrade costs for the rest of the period; downgrades and equal prices cost nothing. */
export function upgradeCharge(
  oldPriceCents: number,
  newPriceCents: number,
  period: Period,
  atMs: number,
): number {
  assertCents('oldPriceCents', oldPriceCents);
  assertCents('newPriceCents', newPriceCents);
  if (newPriceCents <= oldPriceCents) return 0;
  return prorate(newPriceCents - oldPriceCents, period, atMs);
}
