import { backoffDelay } from '../lib/queue.js';

/**
 * Delay before each retry, by the number of attempts made so far: 9 retries after the first
 * attempt, about three days in all (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 20 h =
 * 71 h 35 min before jitter). Each delay is moved by up to ±10 % so that receivers that come
 * back are not hit by every sender at once.
 */
export const RETRY_DELAYS_MS = [
  5_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  5 * 3_600_000,
  10 * 3_600_000,
  14 * 3_600_000,
  20 * 3_600_000,
  20 * 3_600_000,
] as const;

export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;

/** An endpoint whose deliveries have failed without a success for this long is disabled. */
export const DISABLE_AFTER_FAILING_MS = 5 * 24 * 3_600_000;

/** The delay before the next attempt after `attempts` failed ones; null: give up. */
export function retryDelay(attempts: number, random: () => number = Math.random): number | null {
  return backoffDelay(RETRY_DELAYS_MS, attempts, 0.1, random);
}
