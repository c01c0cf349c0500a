import { setTimeout as sleep } from 'node:timers/promises';
import { recordAudit } from '../audit/index.js';
import { addressBucket } from '../auth/index.js';
import { AppError } from '../errors/index.js';
import { enqueueNotice } from '../notices/index.js';
import type { ActionTokens } from '../lib/action-tokens.js';
import type { Clock } from '../lib/clock.js';
import { hashPassword } from '../lib/crypto.js';
import { prefixedId } from '../lib/ids.js';
import { HOUR_MS, type LimitRule, type RateLimiter } from '../limits/index.js';
import type { Db, Queryable } from '../store/index.js';
import { isEmail, normalizeEmail, passwordProblem } from './password-policy.js';
import * as repo from './repo.js';
import * as tokens from './repo-tokens.js';
import { deletePendingTotp } from './repo-totp.js';

/**
 * The refusal of what only the address's owner may set up (a paid plan, a key, two-factor
 * sign-in, contact addresses) while the account's address is not confirmed: until then, anyone
 * could have signed up with it.
 */
export function emailNotVerified(): AppError {
  return new AppError(
    'EMAIL_NOT_VERIFIED',
    'Confirm the account’s e-mail address first: follow the link mailed to it, or have a new one sent (POST /api/v1/account/email-verification).',
  );
}

/** How long a mailed link works. */
export const RESET_TTL_MS = HOUR_MS;
export const VERIFY_TTL_MS = 7 * 24 * HOUR_MS;

/** Reset requests per address bucket and per e-mail address, counted whether it exists or not. */
const RESET_ADDRESS: LimitRule = { name: 'reset-address', limit: 10, windowMs: HOUR_MS };
const RESET_EMAIL: LimitRule = { name: 'reset-email', limit: 3, windowMs: HOUR_MS };
/** Verification links an account may have sent per hour. */
const VERIFY_SENDS: LimitRule = { name: 'verify-sends', limit: 5, windowMs: HOUR_MS };

/**
 * A reset request is answered no sooner than this after it arrived, whether a mail was queued
 * or not, so the answer's timing does not tell whether the address has an account. It is
 * elapsed time on the process's monotonic timer, not a time of day (so not the clock's).
 */
export const RESET_ANSWER_FLOOR_MS = 400;

const INVALID_TOKEN = 'is not valid, was used already, or has expired';

export interface LifecycleDeps {
  db: Db;
  clock: Clock;
  limiter: RateLimiter;
  actionTokens: ActionTokens;
  cache: { applyAccount(row: repo.AccountRow): void; applySession(row: repo.SessionRow): void };
  answerFloorMs?: number;
}

/** Queues a verification mail for the account's current address, in the caller's transaction. */
export async function queueVerification(
  tx: Queryable,
  account: { id: string; email: string },
  at: Date,
): Promise<void> {
  await queueLink(tx, account, 'email.verify', VERIFY_TTL_MS, at);
}

/** A single-use link of `purpose` for the account's address: its token stored, its mail queued. */
async function queueLink(
  tx: Queryable,
  account: { id: string; email: string },
  purpose: 'email.verify' | 'password.reset',
  ttlMs: number,
  at: Date,
): Promise<string> {
  const id = prefixedId('tok');
  const expiresAt = new Date(at.getTime() + ttlMs);
  await tokens.insertToken(tx, {
    id,
    accountId: account.id,
    purpose,
    email: account.email,
    at,
    expiresAt,
  });
  await enqueueNotice(
    tx,
    {
      accountId: account.id,
      kind: purpose,
      data: { token_id: id, expires_at: expiresAt.toISOString() },
    },
    at,
  );
  return id;
}

/**
 * E-mail verification and password reset by mailed single-use links (`lib/action-tokens.ts`).
 * Reached through the account service.
 */
export function accountLifecycle(deps: LifecycleDeps) {
  const { db, clock, limiter, actionTokens } = deps;
  const floorMs = deps.answerFloorMs ?? RESET_ANSWER_FLOOR_MS;

  const queueReset = (tx: Queryable, account: repo.AccountRow, at: Date): Promise<string> =>
    queueLink(tx, account, 'password.reset', RESET_TTL_MS, at);

  /** The live token row of the purpose a mailed token names (locked), or the 400. */
  async function redeem(
    tx: Queryable,
    purpose: tokens.TokenPurpose,
    token: string,
    now: number,
  ): Promise<{ row: tokens.AccountToken; account: repo.AccountRow }> {
    const id = actionTokens.idOf(purpose, token);
    const row = id === null ? undefined : await tokens.lockToken(tx, id);
    const account = row === undefined ? undefined : await repo.findAccount(tx, row.accountId, true);
    if (
      row === undefined ||
      account === undefined ||
      row.purpose !== purpose ||
      row.usedAt !== null ||
      row.expiresAt.getTime() <= now ||
      row.email.toLowerCase() !== account.email.toLowerCase()
    )
      throw AppError.invalidParams([{ name: 'token', reason: INVALID_TOKEN }]);
    return { row, account };
  }

  return {
    /**
     * Mails a reset link when the address has an account; the same answer, no sooner than the
     * floor, when it has none. Limited per address and per e-mail address (429 either way).
     */
    async requestPasswordReset(raw: string, ip: string): Promise<void> {
      const started = performance.now();
      const email = normalizeEmail(raw);
      if (!isEmail(email))
        throw AppError.invalidParams([{ name: 'email', reason: 'is not a valid e-mail address' }]);
      const now = clock.now();
      for (const [bucket, rule] of [
        [addressBucket(ip), RESET_ADDRESS],
        [`reset:${email}`, RESET_EMAIL],
      ] as const) {
        const decision = await limiter.spend(bucket, [rule], now);
        if (!decision.allowed)
          throw AppError.tooManyAttempts(
            'Too many password reset requests; try again later.',
            decision.retryAfterSeconds,
          );
      }
      const account = await repo.findAccountByEmail(db, email);
      if (account !== undefined) {
        const at = new Date(now);
        await db.transaction(async (tx) => {
          await queueReset(tx, account, at);
          await recordAudit(tx, {
            accountId: account.id,
            actor: 'anonymous',
            action: 'accounts.password_reset_requested',
            ip,
            at,
          });
        });
      }
      const left = floorMs - (performance.now() - started);
      if (left > 0) await sleep(left);
    },

    /** The operator's reset: a link mailed to the account (or only returned, to hand over). */
    async operatorPasswordReset(
      raw: string,
      options: { mail: boolean },
    ): Promise<{ accountId: string; token: string; expiresAt: string }> {
      const account = await repo.findAccountByEmail(db, normalizeEmail(raw));
      if (account === undefined)
        throw new AppError('NOT_FOUND', `No account has the address ${raw}.`);
      const at = new Date(clock.now());
      const id = await db.transaction(async (tx) => {
        let tokenId: string;
        if (options.mail) tokenId = await queueReset(tx, account, at);
        else {
          tokenId = prefixedId('tok');
          await tokens.insertToken(tx, {
            id: tokenId,
            accountId: account.id,
            purpose: 'password.reset',
            email: account.email,
            at,
            expiresAt: new Date(at.getTime() + RESET_TTL_MS),
          });
        }
        await recordAudit(tx, {
          accountId: account.id,
          actor: 'operator',
          action: 'accounts.password_reset_requested',
          data: { mailed: options.mail },
          ip: 'cli',
          at,
        });
        return tokenId;
      });
      return {
        accountId: account.id,
        token: actionTokens.token('password.reset', id),
        expiresAt: new Date(at.getTime() + RESET_TTL_MS).toISOString(),
      };
    },

    /**
     * Sets a new password with a mailed reset token: the token and every other reset token of
     * the account are used up, every session ends, the address counts as verified (the mail
     * reached it) and the account is told.
     */
    async resetPassword(
      input: { token: string; new_password: string },
      ip: string,
    ): Promise<{ sessions_revoked: number }> {
      const now = clock.now();
      const at = new Date(now);
      const found = await db.transaction((tx) => redeem(tx, 'password.reset', input.token, now));
      const problem = passwordProblem(input.new_password, found.account.email);
      if (problem !== undefined)
        throw new AppError('WEAK_PASSWORD', `The new password is not accepted: ${problem}.`, {
          extensions: { invalid_params: [{ name: 'new_password', reason: problem }] },
        });
      const passwordHash = await hashPassword(input.new_password);
      const { ended, account } = await db.transaction(async (tx) => {
        // Again under the lock: a second use that raced this one finds the token used.
        const { account } = await redeem(tx, 'password.reset', input.token, now);
        await tokens.useTokens(tx, account.id, 'password.reset', at);
        await repo.setPasswordHash(tx, account.id, passwordHash);
        await tokens.markEmailVerified(tx, account.id, at);
        const ended = await repo.revokeOtherSessions(tx, account.id, null, at);
        await deletePendingTotp(tx, account.id);
        await recordAudit(tx, {
          accountId: account.id,
          actor: 'anonymous',
          action: 'accounts.password_reset',
          data: { sessions_revoked: ended.length },
          ip,
          at,
        });
        await enqueueNotice(
          tx,
          { accountId: account.id, kind: 'password.changed', data: { at: at.toISOString(), ip } },
          at,
        );
        return { ended, account: await repo.findAccount(tx, account.id) };
      });
      for (const row of ended) deps.cache.applySession(row);
      if (account !== undefined) deps.cache.applyAccount(account);
      return { sessions_revoked: ended.length };
    },

    /** Mails a new verification link (limited per account); false when verified already. */
    async sendVerification(accountId: string, actor: string, ip: string): Promise<boolean> {
      const account = await repo.findAccount(db, accountId);
      if (account === undefined) throw new AppError('NOT_FOUND', 'No such account.');
      if (account.emailVerifiedAt !== null) return false;
      const now = clock.now();
      const decision = await limiter.spend(`verify:${accountId}`, [VERIFY_SENDS], now);
      if (!decision.allowed)
        throw AppError.tooManyAttempts(
          `At most ${VERIFY_SENDS.limit} verification mails are sent per hour; try again later.`,
          decision.retryAfterSeconds,
        );
      const at = new Date(now);
      await db.transaction(async (tx) => {
        await queueVerification(tx, account, at);
        await recordAudit(tx, {
          accountId,
          actor,
          action: 'accounts.verification_sent',
          data: { email: account.email },
          ip,
          at,
        });
      });
      return true;
    },

    /** Marks the address a mailed verification token was sent to as verified. */
    async verifyEmail(token: string, ip: string): Promise<repo.AccountRow> {
      const now = clock.now();
      const at = new Date(now);
      const account = await db.transaction(async (tx) => {
        const { account } = await redeem(tx, 'email.verify', token, now);
        await tokens.useTokens(tx, account.id, 'email.verify', at);
        await tokens.markEmailVerified(tx, account.id, at);
        await recordAudit(tx, {
          accountId: account.id,
          actor: `account:${account.id}`,
          action: 'accounts.email_verified',
          data: { email: account.email },
          ip,
          at,
        });
        return (await repo.findAccount(tx, account.id)) as repo.AccountRow;
      });
      deps.cache.applyAccount(account);
      return account;
    },
  };
}

export type AccountLifecycle = ReturnType<typeof accountLifecycle>;
