export interface BalanceApplication {
  applied: number;
  due: number;
  remainingBalance: number;
}

function assertNonNegativeCents(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`${name} must be a non-negative integer number of cents`);
  }
}

/**
 * Spends credit (a positive balance owed TO the customer, the opposite of Stripe's sign) on an
 * invoice, up to its amount: an invoice is never negative, the surplus stays on the balance.
 */
export function applyBalance(
  amountDueCents: number,
  creditBalanceCents: number,
): BalanceApplication {
  assertNonNegativeCents('amountDueCents', amountDueCents);
  assertNonNegativeCents('creditBalanceCents', creditBalanceCents);
  const applied = Math.min(amountDueCents, creditBalanceCents);
  return {
    applied,
    due: amountDueCents - applied,
    remainingBalance: creditBalanceCents - applied,
  };
}
