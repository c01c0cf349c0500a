import { randomBytes } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import { recordAudit } from '../audit/index.js';
import { enqueueNotice } from '../notices/index.js';
import { AppError } from '../errors/index.js';
import type { Clock } from '../lib/clock.js';
import { randomSecret, sha256Hex } from '../lib/crypto.js';
import { prefixedId } from '../lib/ids.js';
import type { SecretBox } from '../lib/secret-box.js';
import type { LimitRule, RateLimiter } from '../limits/index.js';
import type { Db, Queryable } from '../store/index.js';
import { addressBucket } from '../auth/index.js';
import { emailNotVerified } from './lifecycle.js';
import * as repo from './repo-totp.js';
import { findAccount } from './repo.js';

/** How long the step between a correct password and the code may take. */
export const TOTP_CHALLENGE_TTL_MS = 5 * 60_000;
const CHALLENGE_PREFIX = 'tfa_';
const PERIOD_S = 30;
/** Codes of the step before and after the server's own are accepted too (clock drift). */
const WINDOW = 1;
export const RECOVERY_CODE_COUNT = 10;
/** An unconfirmed secret is replaced by a new one when the set-up page is opened after this. */
export const PENDING_SECRET_TTL_MS = 10 * 60_000;
// Code attempts (sign-in, turning two-factor on or off), reserved before the code is checked, a
// good one given back.
const CODE_ACCOUNT: LimitRule = { name: 'totp-account', limit: 5, windowMs: 15 * 60_000 };
const CODE_ADDRESS: LimitRule = { name: 'totp-address', limit: 20, windowMs: 15 * 60_000 };
const ISSUER = 'Salary Data API';
const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

export interface TotpChallenge {
  totp_required: true;
  challenge: string;
  expires_at: string;
}

export interface TotpStatus {
  enabled: boolean;
  enabled_at: string | null;
  recovery_codes_left: number;
}

export interface TotpEnrolment {
  /** Base32, as authenticator apps take it typed in. */
  secret: string;
  /** The `otpauth://totp/…` URI the QR code holds. */
  uri: string;
}

export interface AccountTotp {
  totpStatus(accountId: string): Promise<TotpStatus>;
  /**
   * The secret being set up (a new one when none is): two-factor is on only once `enableTotp`
   * confirms a code of it. Refused while two-factor is on.
   */
  beginTotp(accountId: string): Promise<TotpEnrolment>;
  /** Confirms the enrolment with the password and a current code; the recovery codes, once. */
  enableTotp(
    accountId: string,
    input: { password: string; code: string },
    actor: string,
    ip: string,
  ): Promise<{ recovery_codes: string[] }>;
  /** Turns two-factor off with the password and a current code (or a recovery code). */
  disableTotp(
    accountId: string,
    input: { password: string; code: string },
    actor: string,
    ip: string,
  ): Promise<void>;
  /** The operator's reset for a lost device: two-factor off, audited and mailed. */
  operatorResetTotp(accountId: string, ip: string): Promise<{ was_enabled: boolean }>;
}

/** What the account service asks of two-factor at sign-in. */
export interface TotpSignIn {
  /** A challenge when the account has two-factor on; undefined when the password suffices. */
  challengeFor(tx: Queryable, accountId: string, ip: string): Promise<TotpChallenge | undefined>;
  /**
   * Redeems a challenge with a code or a recovery code and signs in (`signIn`, in the same
   * transaction); an UNAUTHENTICATED AppError that does not say which part was wrong otherwise.
   */
  redeem<T>(
    input: { challenge: string; code: string },
    ip: string,
    signIn: (tx: Queryable, accountId: string) => Promise<T>,
  ): Promise<T>;
}

function recoveryCode(): string {
  const bytes = randomBytes(10);
  const chars = [...bytes].map((b) => BASE32[b % 32] as string).join('');
  return `${chars.slice(0, 5)}-${chars.slice(5)}`;
}

const normalizeRecovery = (code: string): string => code.toLowerCase().replace(/[\s-]/g, '');
const isTotpCode = (code: string): boolean => /^\d{6}$/.test(code.replace(/\s/g, ''));

const WRONG_CODE = 'The code is wrong or used already, or the sign-in has expired.';

export function accountTotp(deps: {
  db: Db;
  clock: Clock;
  /** Seals the secrets; read when first needed. */
  box: () => SecretBox;
  limiter: RateLimiter;
  /** Checks the account's password (failures throttled as log-ins); throws when it is wrong. */
  checkPassword(accountId: string, password: string, actor: string, ip: string): Promise<string>;
}): AccountTotp & TotpSignIn {
  const { db, clock } = deps;

  const totpOf = (sealed: string, label = ''): TOTP =>
    new TOTP({
      issuer: ISSUER,
      label,
      algorithm: 'SHA1',
      digits: 6,
      period: PERIOD_S,
      secret: Secret.fromBase32(deps.box().open(sealed)),
    });

  /** The step of a good code at this time, or null. */
  function stepOf(row: repo.TotpRow, code: string): number | null {
    const token = code.replace(/\s/g, '');
    if (!isTotpCode(token)) return null;
    const now = clock.now();
    const delta = totpOf(row.secretSealed).validate({ token, timestamp: now, window: WINDOW });
    return delta === null ? null : Math.floor(now / 1000 / PERIOD_S) + delta;
  }

  /**
   * A current code (used up) or an unused recovery code (used up, audited, mailed): whether it
   * was good. Within the caller's transaction.
   */
  async function useCode(
    tx: Queryable,
    row: repo.TotpRow,
    code: string,
    actor: string,
    ip: string,
  ): Promise<boolean> {
    const at = new Date(clock.now());
    if (isTotpCode(code)) {
      const step = stepOf(row, code);
      return step !== null && (await repo.useTotpStep(tx, row.accountId, step));
    }
    const normalized = normalizeRecovery(code);
    if (!/^[a-z2-7]{10}$/.test(normalized)) return false;
    const left = await repo.useRecoveryCode(tx, row.accountId, sha256Hex(normalized), at);
    if (left === null) return false;
    await recordAudit(tx, {
      accountId: row.accountId,
      actor,
      action: 'totp.recovery_code_used',
      data: { recovery_codes_left: left },
      ip,
      at,
    });
    await enqueueNotice(
      tx,
      {
        accountId: row.accountId,
        kind: 'totp.recovery_code_used',
        data: { at: at.toISOString(), ip, left },
      },
      at,
    );
    return true;
  }

  async function audited(
    tx: Queryable,
    accountId: string,
    kind: 'totp.enabled' | 'totp.disabled' | 'totp.reset',
    actor: string,
    ip: string,
    at: Date,
  ): Promise<void> {
    await recordAudit(tx, { accountId, actor, action: kind, ip, at });
    await enqueueNotice(tx, { accountId, kind, data: { at: at.toISOString(), ip } }, at);
  }

  /**
   * Reserves one code attempt of the account and of the address (429 past either limit) and
   * returns what gives it back, for a good code.
   */
  async function reserveCodeAttempt(accountId: string, ip: string, at: number) {
    const address = addressBucket(ip);
    const account = `totp:${accountId}`;
    let decision = await deps.limiter.spend(address, [CODE_ADDRESS], at);
    if (decision.allowed) {
      decision = await deps.limiter.spend(account, [CODE_ACCOUNT], at);
      if (!decision.allowed) await deps.limiter.release(address, [CODE_ADDRESS], at);
    }
    if (!decision.allowed)
      throw AppError.tooManyAttempts(
        'Too many wrong codes; try again later.',
        decision.retryAfterSeconds,
      );
    return async () => {
      await deps.limiter.release(address, [CODE_ADDRESS], at);
      await deps.limiter.release(account, [CODE_ACCOUNT], at);
    };
  }

  const codeFailed = (accountId: string, actor: string, ip: string, at: Date) =>
    recordAudit(db, { accountId, actor, action: 'totp.code_failed', ip, at });

  return {
    async totpStatus(accountId) {
      const row = await repo.findTotp(db, accountId);
      const enabled = row?.enabledAt != null;
      return {
        enabled,
        enabled_at: row?.enabledAt ?? null,
        recovery_codes_left: enabled ? await repo.countRecoveryCodes(db, accountId) : 0,
      };
    },

    async beginTotp(accountId) {
      // Only the address's owner sets up a second factor: otherwise whoever signed up first with
      // someone else's address could keep its owner out after a password reset.
      const account = await findAccount(db, accountId);
      if (account?.emailVerifiedAt === null) throw emailNotVerified();
      const row = await repo.findTotp(db, accountId);
      if (row?.enabledAt != null)
        throw new AppError('CONFLICT', 'Two-factor sign-in is on already; turn it off first.');
      const stale =
        row !== undefined && clock.now() - Date.parse(row.createdAt) > PENDING_SECRET_TTL_MS;
      let sealed = stale ? undefined : row?.secretSealed;
      if (sealed === undefined) {
        sealed = deps.box().seal(new Secret({ size: 20 }).base32);
        if (!(await repo.upsertPendingTotp(db, accountId, sealed, new Date(clock.now()))))
          throw new AppError('CONFLICT', 'Two-factor sign-in is on already; turn it off first.');
      }
      const totp = totpOf(sealed, account?.email ?? accountId);
      return { secret: totp.secret.base32, uri: totp.toString() };
    },

    async enableTotp(accountId, input, actor, ip) {
      await deps.checkPassword(accountId, input.password, actor, ip);
      if ((await findAccount(db, accountId))?.emailVerifiedAt === null) throw emailNotVerified();
      const row = await repo.findTotp(db, accountId);
      if (row === undefined)
        throw new AppError('CONFLICT', 'Start the set-up first: no secret was made for it.');
      if (row.enabledAt !== null)
        throw new AppError('CONFLICT', 'Two-factor sign-in is on already.');
      const giveBack = await reserveCodeAttempt(accountId, ip, clock.now());
      const step = stepOf(row, input.code);
      if (step === null) {
        await codeFailed(accountId, actor, ip, new Date(clock.now()));
        throw AppError.invalidParams([
          {
            name: 'code',
            reason: 'is not the current 6-digit code of the authenticator app for this secret',
          },
        ]);
      }
      await giveBack();
      const codes = Array.from({ length: RECOVERY_CODE_COUNT }, recoveryCode);
      const at = new Date(clock.now());
      await db.transaction(async (tx) => {
        if (!(await repo.enableTotp(tx, accountId, step, at)))
          throw new AppError('CONFLICT', 'Two-factor sign-in is on already.');
        await repo.insertRecoveryCodes(
          tx,
          accountId,
          codes.map((c) => sha256Hex(normalizeRecovery(c))),
        );
        await audited(tx, accountId, 'totp.enabled', actor, ip, at);
      });
      return { recovery_codes: codes };
    },

    async disableTotp(accountId, input, actor, ip) {
      await deps.checkPassword(accountId, input.password, actor, ip);
      const giveBack = await reserveCodeAttempt(accountId, ip, clock.now());
      const done = await db.transaction(async (tx) => {
        const row = await repo.findTotp(tx, accountId);
        if (row?.enabledAt == null) throw new AppError('CONFLICT', 'Two-factor sign-in is off.');
        if (!(await useCode(tx, row, input.code, actor, ip))) return false;
        await repo.deleteTotp(tx, accountId);
        await audited(tx, accountId, 'totp.disabled', actor, ip, new Date(clock.now()));
        return true;
      });
      if (!done) {
        await codeFailed(accountId, actor, ip, new Date(clock.now()));
        throw AppError.invalidParams([
          { name: 'code', reason: 'is not a current code nor an unused recovery code' },
        ]);
      }
      await giveBack();
    },

    async operatorResetTotp(accountId, ip) {
      return db.transaction(async (tx) => {
        const wasEnabled = await repo.deleteTotp(tx, accountId);
        if (wasEnabled)
          await audited(tx, accountId, 'totp.reset', 'operator', ip, new Date(clock.now()));
        return { was_enabled: wasEnabled };
      });
    },

    async challengeFor(tx, accountId, ip) {
      const row = await repo.findTotp(tx, accountId);
      if (row?.enabledAt == null) return undefined;
      const token = randomSecret(CHALLENGE_PREFIX);
      const at = new Date(clock.now());
      const expiresAt = new Date(at.getTime() + TOTP_CHALLENGE_TTL_MS);
      await repo.insertChallenge(tx, {
        id: prefixedId('tfa'),
        tokenHash: sha256Hex(token),
        accountId,
        ip,
        at,
        expiresAt,
      });
      return { totp_required: true, challenge: token, expires_at: expiresAt.toISOString() };
    },

    async redeem(input, ip, signIn) {
      const at = new Date(clock.now());
      const tokenHash = sha256Hex(input.challenge);
      const live = input.challenge.startsWith(CHALLENGE_PREFIX)
        ? await repo.findLiveChallenge(db, tokenHash, at)
        : undefined;
      if (live === undefined) throw new AppError('UNAUTHENTICATED', WRONG_CODE);
      const { accountId } = live;
      const giveBack = await reserveCodeAttempt(accountId, ip, at.getTime());
      const result = await db.transaction(async (tx) => {
        // Locked and checked again: two requests with one challenge are one after the other.
        const challenge = await repo.findLiveChallenge(tx, tokenHash, at, true);
        const row = await repo.findTotp(tx, accountId);
        if (challenge === undefined || row?.enabledAt == null) return undefined;
        if (!(await useCode(tx, row, input.code, `account:${accountId}`, ip))) return undefined;
        await repo.useChallenge(tx, challenge.id, at);
        return { value: await signIn(tx, accountId) };
      });
      if (result === undefined) {
        await codeFailed(accountId, 'anonymous', ip, at);
        throw new AppError('UNAUTHENTICATED', WRONG_CODE);
      }
      await giveBack();
      return result.value;
    },
  };
}
