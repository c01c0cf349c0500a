import { recordAudit } from '../audit/index.js';
import { actorOf, allowlistProblems, type Principal } from '../auth/index.js';
import { AppError } from '../errors/index.js';
import type { Clock } from '../lib/clock.js';
import { assertPlanHas, type Plan, type PlanId } from '../plans/index.js';
import type { Db } from '../store/index.js';
import { updateAccount, type AccountRow, type ResponseSchema } from './repo.js';

/**
 * The settings an account changes itself (IP allowlist, response schema): each change written
 * with its audit entry in one transaction, then applied to the credential view at once. The
 * API and the dashboard both reach them through the account service.
 */
export function accountSettings(deps: {
  db: Db;
  clock: Clock;
  plans: Readonly<Record<PlanId, Plan>>;
  cache: { applyAccount(row: AccountRow): void };
}) {
  async function change(
    principal: Principal,
    changes: Parameters<typeof updateAccount>[2],
    action: string,
    data: Record<string, unknown>,
    ip: string,
  ): Promise<AccountRow> {
    const at = new Date(deps.clock.now());
    const account = await deps.db.transaction(async (tx) => {
      const updated = await updateAccount(tx, principal.accountId as string, changes, at);
      await recordAudit(tx, {
        accountId: updated.id,
        actor: actorOf(principal),
        action,
        data,
        ip,
        at,
      });
      return updated;
    });
    deps.cache.applyAccount(account);
    return account;
  }

  return {
    /** Sets the account's IP allowlist (Business and Enterprise), checked first. */
    async setAllowlist(principal: Principal, list: string[], ip: string): Promise<AccountRow> {
      assertPlanHas(deps.plans, principal.plan, (p) => p.ipAllowlist, 'IP allowlists');
      const problems = allowlistProblems(list);
      if (problems.length > 0)
        throw AppError.invalidParams([{ name: 'allowlist', reason: problems.join('; ') }]);
      return change(
        principal,
        { allowlist: list },
        'accounts.set_allowlist',
        { allowlist: list },
        ip,
      );
    },

    /** Sets the custom response schema, or with null goes back to the standard one. */
    setResponseSchema(
      principal: Principal,
      schema: ResponseSchema | null,
      ip: string,
    ): Promise<AccountRow> {
      return change(
        principal,
        { responseSchema: schema },
        'accounts.set_response_schema',
        { schema },
        ip,
      );
    },
  };
}
