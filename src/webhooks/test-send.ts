import { setTimeout as sleep } from 'node:timers/promises';
import { AppError } from '../errors/index.js';
import type { Clock } from '../lib/clock.js';
import { HOUR_MS, type LimitRule, type RateLimiter } from '../limits/index.js';

/**
 * Sends on demand (a webhook's test event, an export destination's test) go to any public host
 * and port the customer names, so they share one budget per account (in the shared limiter):
 * enough to debug a receiver or an SFTP server, too few to scan with.
 */
export const TEST_SEND_RULE: LimitRule = { name: 'webhook-tests', limit: 30, windowMs: HOUR_MS };
export const REDELIVERY_RULE: LimitRule = {
  name: 'webhook-redeliveries',
  limit: 100,
  windowMs: HOUR_MS,
};

/**
 * Spends one of the account's `rule` allowance, or throws TOO_MANY_ATTEMPTS (429 with
 * Retry-After) when the window's allowance is used up.
 */
export async function throttleAccount(
  limiter: RateLimiter,
  clock: Clock,
  accountId: string,
  rule: LimitRule,
  what: string,
): Promise<void> {
  const decision = await limiter.spend(`acct:${accountId}`, [rule], clock.now());
  if (decision.allowed) return;
  throw AppError.tooManyAttempts(
    `At most ${rule.limit} ${what} per hour per account; try again in ${decision.retryAfterSeconds} s.`,
    decision.retryAfterSeconds,
    { limit: rule.limit },
  );
}

/**
 * Waits until `timeoutMs` after `started` (a `performance.now()` reading). A test send that
 * failed is answered when its timeout would have ended, whatever happened (refused at once,
 * reset, a server speaking another protocol, or nothing until the timeout): the answer's own
 * latency must not tell a closed port from an open or a filtered one.
 */
export async function untilTimeout(started: number, timeoutMs: number): Promise<void> {
  const left = timeoutMs - (performance.now() - started);
  if (left > 0) await sleep(left);
}
