import {
  listAudit,
  listAuditPeriod,
  recordAudit,
  verifyAuditPeriod,
  type AuditRow,
  type ChainVerification,
} from '../audit/index.js';
import { enqueueNotice } from '../notices/index.js';
import { AppError } from '../errors/index.js';
import type { Clock } from '../lib/clock.js';
import {
  dummyPasswordHash,
  hashPassword,
  randomSecret,
  sha256Hex,
  verifyPassword,
} from '../lib/crypto.js';
import { prefixedId } from '../lib/ids.js';
import { HOUR_MS, MemoryRateLimiter, type LimitRule, type RateLimiter } from '../limits/index.js';
import type { Plan, PlanId } from '../plans/index.js';
import type { Db, Queryable } from '../store/index.js';
import { addressBucket, type Principal } from '../auth/index.js';
import { isEmail, normalizeEmail, passwordProblem } from './password-policy.js';
import * as repo from './repo.js';
import { accountSettings } from './settings.js';
import { accountLifecycle, queueVerification, type AccountLifecycle } from './lifecycle.js';
import type { ActionTokens } from '../lib/action-tokens.js';
import { accountDeletion, type AccountDeletion } from './deletion.js';
import type { SecretBox } from '../lib/secret-box.js';
import { accountTotp, type AccountTotp, type TotpChallenge } from './totp.js';
import { deletePendingTotp } from './repo-totp.js';

export type { AccountRow, ResponseSchema } from './repo.js';

export const SESSION_TTL_MS = 30 * 24 * HOUR_MS;
const SESSION_PREFIX = 'sess_';

// Failed log-ins allowed per window. Every attempt is reserved before the password is hashed
// (so parallel attempts cannot all be evaluated) and a successful one is given back.
// Addresses are bucketed as for the Free limit (IPv6 by /64, IPv4-mapped as IPv4).
const ADDRESS_FAILURES: LimitRule = { name: 'login-address', limit: 20, windowMs: 15 * 60_000 };
const ACCOUNT_FAILURES: LimitRule = { name: 'login-account', limit: 10, windowMs: HOUR_MS };
/** Sign-ups per address bucket per UTC hour, each one counted before its password is hashed. */
export const SIGN_UPS: LimitRule = { name: 'sign-ups', limit: 10, windowMs: HOUR_MS };

export interface PublicAccount {
  id: string;
  email: string;
  plan: string;
  status: string;
  allowlist: string[];
  created_at: string;
  /** When the address was verified (a mailed link followed); null until then. */
  email_verified_at: string | null;
}

export interface Session {
  token: string;
  expires_at: string;
}

/** Entries written in [from, to); either end open when absent. */
export interface AuditPeriod {
  from?: Date | undefined;
  to?: Date | undefined;
}

export function publicAccount(a: repo.AccountRow): PublicAccount {
  return {
    id: a.id,
    email: a.email,
    plan: a.plan,
    status: a.status,
    allowlist: a.allowlist,
    created_at: a.createdAt,
    email_verified_at: a.emailVerifiedAt,
  };
}

export interface AccountService extends AccountLifecycle, AccountDeletion, AccountTotp {
  /**
   * `throttle: false` for the operator's CLI; sign-ups over HTTP are limited per address.
   * `operatorPlan`: the operator creates the account for a customer, on that plan (its name),
   * and the welcome mail says so instead of inviting a sign-up's choice of plan.
   * `verified`: the address counts as verified at once (the operator's accounts); otherwise a
   * verification link is mailed.
   */
  signUp(
    input: { email: string; password: string },
    ip: string,
    options?: { throttle: boolean; operatorPlan?: string; verified?: boolean },
  ): Promise<{ account: PublicAccount; session: Session }>;
  /** A session, or the challenge of the second step when the account has two-factor on. */
  logIn(input: { email: string; password: string }, ip: string): Promise<Session | TotpChallenge>;
  /** The second step: the challenge and a current code or a recovery code; a session. */
  logInWithCode(input: { challenge: string; code: string }, ip: string): Promise<Session>;
  logOut(sessionId: string): Promise<void>;
  get(accountId: string): Promise<repo.AccountRow>;
  /**
   * Replaces the password after checking the current one (failures throttled like log-ins),
   * ends every other session of the account, and mails the account. `sessionId`: the session
   * used, which stays valid (null when an API key or token made the change: all sessions end).
   */
  changePassword(
    accountId: string,
    sessionId: string | null,
    input: { current_password: string; new_password: string },
    actor: string,
    ip: string,
  ): Promise<{ sessions_revoked: number }>;
  /**
   * Sets the IP allowlist (Business and Enterprise): checked, audited and applied to the
   * credential view at once.
   */
  setAllowlist(principal: Principal, list: string[], ip: string): Promise<repo.AccountRow>;
  /** Sets the custom response schema (null: the standard one), audited and applied at once. */
  setResponseSchema(
    principal: Principal,
    schema: repo.ResponseSchema | null,
    ip: string,
  ): Promise<repo.AccountRow>;
  /** The account's audit entries, newest first: the last `limit`, of the period if one is set. */
  auditLog(accountId: string, period: AuditPeriod, limit: number): Promise<AuditRow[]>;
  /** The account's audit entries of the period, oldest first, at most `limit`. */
  auditExport(accountId: string, period: AuditPeriod, limit: number): Promise<AuditRow[]>;
  /** Verifies the audit chain (one for every account) over the period. */
  verifyAudit(period: AuditPeriod): Promise<ChainVerification>;
}

/**
 * Told of every session this process starts or ends and every account change it makes, once
 * committed (the credential view).
 */
export interface CredentialSink {
  /** `account`: a new account the session belongs to. */
  applySession(row: repo.SessionRow, account?: repo.AccountRow): void;
  applyAccount(row: repo.AccountRow): void;
}

export function createAccountService(deps: {
  db: Db;
  clock: Clock;
  plans: Readonly<Record<PlanId, Plan>>;
  /** Counts failed log-ins; the shared (Redis) limiter when several instances run. */
  failures?: RateLimiter;
  /** The credential view, told of sessions and account changes once committed. */
  cache: CredentialSink;
  /** Signs the tokens of mailed links (verification, password reset). */
  actionTokens: ActionTokens;
  /** Least time a password reset request takes to answer (tests shorten it). */
  resetAnswerFloorMs?: number;
  /** Seals the two-factor secrets; read when first needed. */
  totpBox: () => SecretBox;
}): AccountService {
  const { db, clock, plans } = deps;
  const failures = deps.failures ?? new MemoryRateLimiter();

  /** A session row in the transaction; `started` tells the credential view after commit. */
  async function newSession(
    tx: Queryable,
    accountId: string,
    ip: string | null,
    noticeNewAddress: boolean,
  ): Promise<{ session: Session; row: repo.SessionRow }> {
    const token = randomSecret(SESSION_PREFIX);
    const at = new Date(clock.now());
    const expiresAt = new Date(at.getTime() + SESSION_TTL_MS);
    const row = await repo.insertSession(tx, {
      id: prefixedId('ses'),
      accountId,
      tokenHash: sha256Hex(token),
      at,
      expiresAt,
      ip,
      noticeNewAddress,
    });
    return { session: { token, expires_at: expiresAt.toISOString() }, row };
  }

  async function signedIn(tx: Queryable, accountId: string, ip: string, at: Date) {
    await recordAudit(tx, {
      accountId,
      actor: `account:${accountId}`,
      action: 'sessions.create',
      ip,
      at,
    });
    return newSession(tx, accountId, ip, true);
  }

  function started(
    created: { session: Session; row: repo.SessionRow },
    account?: repo.AccountRow,
  ): Session {
    deps.cache.applySession(created.row, account);
    return created.session;
  }

  /**
   * Takes one attempt from the address's and the account's budgets (both, or the 429 and
   * neither); returns what gives it back.
   */
  async function reserveAttempt(ip: string, email: string): Promise<() => Promise<void>> {
    const now = clock.now();
    const address = addressBucket(ip);
    const account = `email:${email}`;
    let blocked = await failures.spend(address, [ADDRESS_FAILURES], now);
    if (blocked.allowed) {
      blocked = await failures.spend(account, [ACCOUNT_FAILURES], now);
      if (blocked.allowed) {
        return async () => {
          await failures.release(address, [ADDRESS_FAILURES], now);
          await failures.release(account, [ACCOUNT_FAILURES], now);
        };
      }
      await failures.release(address, [ADDRESS_FAILURES], now);
    }
    throw AppError.tooManyAttempts(
      'Too many failed log-in attempts; try again later.',
      blocked.retryAfterSeconds,
    );
  }

  const totp = accountTotp({
    db,
    clock,
    box: deps.totpBox,
    limiter: failures,
    async checkPassword(accountId, password, actor, ip) {
      const account = await repo.findAccount(db, accountId);
      if (account === undefined) throw new AppError('NOT_FOUND', 'No such account.');
      const giveBack = await reserveAttempt(ip, account.email);
      if (!(await verifyPassword(password, account.passwordHash))) {
        await recordAudit(db, {
          accountId,
          actor,
          action: 'accounts.password_check_failed',
          ip,
          at: new Date(clock.now()),
        });
        throw AppError.invalidParams([
          { name: 'password', reason: "does not match the account's password" },
        ]);
      }
      await giveBack();
      return account.email;
    },
  });

  return {
    async signUp(
      { email: raw, password },
      ip,
      { throttle, operatorPlan, verified = false } = { throttle: true },
    ) {
      const email = normalizeEmail(raw);
      if (!isEmail(email)) {
        throw AppError.invalidParams([{ name: 'email', reason: 'is not a valid e-mail address' }]);
      }
      const problem = passwordProblem(password, email);
      if (problem !== undefined) {
        throw new AppError('WEAK_PASSWORD', `The password is too weak: ${problem}.`, {
          extensions: { invalid_params: [{ name: 'password', reason: problem }] },
        });
      }
      if (throttle) {
        const decision = await failures.spend(addressBucket(ip), [SIGN_UPS], clock.now());
        if (!decision.allowed) {
          throw AppError.tooManyAttempts(
            `At most ${SIGN_UPS.limit} accounts can be created per hour from one address; try again later.`,
            decision.retryAfterSeconds,
          );
        }
      }
      const passwordHash = await hashPassword(password);
      const created = await db.transaction(async (tx) => {
        const at = new Date(clock.now());
        const account = await repo.insertAccount(tx, {
          id: prefixedId('acct'),
          email,
          passwordHash,
          plan: 'free',
          at,
          verified,
        });
        if (account === undefined)
          throw new AppError('EMAIL_TAKEN', 'An account with this e-mail address exists already.');
        await recordAudit(tx, {
          accountId: account.id,
          actor: `account:${account.id}`,
          action: 'accounts.create',
          ip,
          at,
        });
        await enqueueNotice(
          tx,
          {
            accountId: account.id,
            kind: 'account.welcome',
            data:
              operatorPlan === undefined ? {} : { created_by: 'operator', plan_name: operatorPlan },
          },
          at,
        );
        if (!verified) await queueVerification(tx, account, at);
        return { account, ...(await newSession(tx, account.id, ip, false)) };
      });
      return {
        account: publicAccount(created.account),
        session: started(created, created.account),
      };
    },

    async logIn({ email: raw, password }, ip) {
      const email = normalizeEmail(raw);
      const giveBack = await reserveAttempt(ip, email);
      const account = await repo.findAccountByEmail(db, email);
      const ok = await verifyPassword(
        password,
        account?.passwordHash ?? (await dummyPasswordHash()),
      );
      const at = new Date(clock.now());
      if (account === undefined || !ok) {
        if (account !== undefined) {
          await recordAudit(db, {
            accountId: account.id,
            actor: 'anonymous',
            action: 'sessions.create_failed',
            ip,
            at,
          });
        }
        throw new AppError('UNAUTHENTICATED', 'The e-mail address or the password is wrong.');
      }
      await giveBack();
      const created = await db.transaction(async (tx) => {
        const challenge = await totp.challengeFor(tx, account.id, ip);
        if (challenge !== undefined) return challenge;
        return signedIn(tx, account.id, ip, at);
      });
      return 'totp_required' in created ? created : started(created);
    },

    async logInWithCode(input, ip) {
      const created = await totp.redeem(input, ip, (tx, accountId) =>
        signedIn(tx, accountId, ip, new Date(clock.now())),
      );
      return started(created);
    },

    async logOut(sessionId) {
      const ended = await repo.revokeSession(db, sessionId, new Date(clock.now()));
      if (ended !== undefined) deps.cache.applySession(ended);
    },

    async changePassword(accountId, sessionId, input, actor, ip) {
      const account = await repo.findAccount(db, accountId);
      if (account === undefined) throw new AppError('NOT_FOUND', 'No such account.');
      const giveBack = await reserveAttempt(ip, account.email);
      if (!(await verifyPassword(input.current_password, account.passwordHash))) {
        await recordAudit(db, {
          accountId,
          actor,
          action: 'accounts.change_password_failed',
          ip,
          at: new Date(clock.now()),
        });
        throw AppError.invalidParams([
          { name: 'current_password', reason: "does not match the account's password" },
        ]);
      }
      await giveBack();
      const problem =
        passwordProblem(input.new_password, account.email) ??
        (input.new_password === input.current_password
          ? 'is the same as the current password'
          : undefined);
      if (problem !== undefined) {
        throw new AppError('WEAK_PASSWORD', `The new password is not accepted: ${problem}.`, {
          extensions: { invalid_params: [{ name: 'new_password', reason: problem }] },
        });
      }
      const passwordHash = await hashPassword(input.new_password);
      const at = new Date(clock.now());
      const ended = await db.transaction(async (tx) => {
        await repo.setPasswordHash(tx, accountId, passwordHash);
        const revoked = await repo.revokeOtherSessions(tx, accountId, sessionId, at);
        // A two-factor set-up begun before the change is begun again with a new secret.
        await deletePendingTotp(tx, accountId);
        await recordAudit(tx, {
          accountId,
          actor,
          action: 'accounts.change_password',
          data: { sessions_revoked: revoked.length },
          ip,
          at,
        });
        await enqueueNotice(
          tx,
          { accountId, kind: 'password.changed', data: { at: at.toISOString(), ip } },
          at,
        );
        return revoked;
      });
      for (const row of ended) deps.cache.applySession(row);
      return { sessions_revoked: ended.length };
    },

    async get(accountId) {
      const account = await repo.findAccount(db, accountId);
      if (account === undefined) throw new AppError('NOT_FOUND', 'No such account.');
      return account;
    },

    totpStatus: (accountId) => totp.totpStatus(accountId),
    beginTotp: (accountId) => totp.beginTotp(accountId),
    enableTotp: (accountId, input, actor, ip) => totp.enableTotp(accountId, input, actor, ip),
    disableTotp: (accountId, input, actor, ip) => totp.disableTotp(accountId, input, actor, ip),
    operatorResetTotp: (accountId, ip) => totp.operatorResetTotp(accountId, ip),
    ...accountSettings({ db, clock, plans, cache: deps.cache }),
    ...accountDeletion({ db, clock, limiter: failures, cache: deps.cache }),
    ...accountLifecycle({
      db,
      clock,
      limiter: failures,
      actionTokens: deps.actionTokens,
      cache: deps.cache,
      ...(deps.resetAnswerFloorMs === undefined ? {} : { answerFloorMs: deps.resetAnswerFloorMs }),
    }),

    auditLog: (accountId, period, limit) =>
      period.from === undefined && period.to === undefined
        ? listAudit(db, accountId, limit)
        : listAuditPeriod(db, accountId, period, limit, 'newest'),
    auditExport: (accountId, period, limit) => listAuditPeriod(db, accountId, period, limit),
    verifyAudit: (period) => verifyAuditPeriod(db, period),
  };
}
