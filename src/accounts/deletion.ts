import { recordAudit } from '../audit/index.js';
import { AppError } from '../errors/index.js';
import type { Clock } from '../lib/clock.js';
import { verifyPassword } from '../lib/crypto.js';
import type { RateLimiter } from '../limits/index.js';
import { HOUR_MS, type LimitRule } from '../limits/index.js';
import type { Db } from '../store/index.js';
import * as repo from './repo.js';
import { accountData, eraseAccount, type AccountData, type Erasure } from './repo-deletion.js';

/** The word a holder types to confirm a deletion. */
export const DELETE_CONFIRMATION = 'DELETE';

/** The export's attachment name: the account and the day it was made. */
export function exportFileName(accountId: string, exportedAt: string): string {
  return `${accountId}-export-${exportedAt.slice(0, 10)}.json`;
}

/** Wrong passwords given to a deletion per account per hour. */
const DELETE_FAILURES: LimitRule = { name: 'delete-account', limit: 5, windowMs: HOUR_MS };

/** What is kept after a deletion, and why: the answer and the docs say the same. */
export const RETAINED_AFTER_DELETION = [
  'Invoices with their lines, the buyer as printed on them, payments and the balance ledger: kept 10 years from the end of the year of issue (German tax law, § 147 AO and § 14b UStG), then deleted.',
  'The audit log of the account (actions, times, client addresses): kept, since each entry is part of a tamper-evident hash chain, for the period the operator keeps security records.',
  'Usage counts per day, key and endpoint: they name no person and are what invoices and SLA credits were computed from.',
  'A SEPA Direct Debit mandate given (reference, account holder, IBAN encrypted), revoked at the deletion: kept as the evidence of the collections made under it.',
];

export interface DeletionResult {
  account_id: string;
  deleted_at: string;
  api_keys_revoked: number;
  sessions_ended: number;
  subscription_canceled: boolean;
  invoices_voided: number;
  invoices_kept: number;
  retained: string[];
}

/**
 * The account's data export and its deletion (re-authenticated with the password and
 * confirmed). Reached through the account service.
 */
export function accountDeletion(deps: {
  db: Db;
  clock: Clock;
  limiter: RateLimiter;
  cache: { applyAccount(row: repo.AccountRow): void };
}) {
  const { db, clock } = deps;

  async function erase(
    account: repo.AccountRow,
    actor: string,
    ip: string,
    reason: string,
  ): Promise<DeletionResult> {
    const at = new Date(clock.now());
    const { erasure, row } = await db.transaction(async (tx) => {
      const erasure: Erasure = await eraseAccount(tx, account.id, at);
      await recordAudit(tx, {
        accountId: account.id,
        actor,
        action: 'accounts.delete',
        data: {
          reason,
          api_keys_revoked: erasure.keysRevoked,
          sessions_ended: erasure.sessionsEnded,
          subscription_canceled: erasure.subscriptionCanceled,
          invoices_voided: erasure.invoicesVoided,
          invoices_kept: erasure.invoicesKept,
        },
        ip,
        at,
      });
      return { erasure, row: (await repo.findAccount(tx, account.id)) as repo.AccountRow };
    });
    deps.cache.applyAccount(row);
    return {
      account_id: account.id,
      deleted_at: at.toISOString(),
      api_keys_revoked: erasure.keysRevoked,
      sessions_ended: erasure.sessionsEnded,
      subscription_canceled: erasure.subscriptionCanceled,
      invoices_voided: erasure.invoicesVoided,
      invoices_kept: erasure.invoicesKept,
      retained: RETAINED_AFTER_DELETION,
    };
  }

  async function live(accountId: string): Promise<repo.AccountRow> {
    const account = await repo.findAccount(db, accountId);
    if (account === undefined || account.status === 'deleted')
      throw new AppError('NOT_FOUND', 'No such account.');
    return account;
  }

  return {
    /** Everything held about the account, without secrets; the export is audited. */
    async exportData(
      accountId: string,
      actor: string,
      ip: string,
    ): Promise<AccountData & { exported_at: string; retained_after_deletion: string[] }> {
      await live(accountId);
      const at = new Date(clock.now());
      await recordAudit(db, { accountId, actor, action: 'accounts.export', ip, at });
      const data = await accountData(db, accountId);
      return {
        exported_at: at.toISOString(),
        ...data,
        retained_after_deletion: RETAINED_AFTER_DELETION,
      };
    },

    /**
     * Deletes the account of the holder who gives its password and types the confirmation:
     * keys and sessions stop at once, the subscription is canceled, personal data erased.
     */
    async deleteAccount(
      accountId: string,
      input: { password: string; confirm: string },
      actor: string,
      ip: string,
    ): Promise<DeletionResult> {
      const account = await live(accountId);
      if (input.confirm !== DELETE_CONFIRMATION)
        throw AppError.invalidParams([
          { name: 'confirm', reason: `must be the word ${DELETE_CONFIRMATION}` },
        ]);
      const now = clock.now();
      const decision = await deps.limiter.spend(`delete:${accountId}`, [DELETE_FAILURES], now);
      if (!decision.allowed)
        throw AppError.tooManyAttempts(
          'Too many wrong passwords for a deletion; try again later.',
          decision.retryAfterSeconds,
        );
      if (!(await verifyPassword(input.password, account.passwordHash))) {
        await recordAudit(db, {
          accountId,
          actor,
          action: 'accounts.delete_failed',
          ip,
          at: new Date(now),
        });
        throw AppError.invalidParams([
          { name: 'password', reason: "does not match the account's password" },
        ]);
      }
      await deps.limiter.release(`delete:${accountId}`, [DELETE_FAILURES], now);
      return erase(account, actor, ip, 'holder');
    },

    /** The operator's deletion (a written request from the holder): no password. */
    async operatorDeleteAccount(emailOrId: string): Promise<DeletionResult> {
      const account =
        (await repo.findAccount(db, emailOrId)) ?? (await repo.findAccountByEmail(db, emailOrId));
      if (account === undefined || account.status === 'deleted')
        throw new AppError('NOT_FOUND', `No account is ${emailOrId}.`);
      return erase(account, 'operator', 'cli', 'operator');
    },
  };
}

export type AccountDeletion = ReturnType<typeof accountDeletion>;
