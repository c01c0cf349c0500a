import { recordAudit } from '../audit/index.js';
import { actorOf, allowlistProblems, type Principal } from '../auth/index.js';
import { AppError } from '../errors/index.js';
import type { Clock } from '../lib/clock.js';
import { assertPlanHas, type Plan, type PlanId } from '../plans/index.js';
import type { Db } from '../store/index.js';
import { updateAccount, type AccountRow } from './repo.js';

/**
 * Sets the account's IP allowlist (Business and Enterprise): checked, audited and applied to
 * the credential view at once. The API's PUT /account/allowlist and the dashboard both use it.
 */
export async function setAllowlist(
  deps: {
    db: Db;
    clock: Clock;
    plans: Readonly<Record<PlanId, Plan>>;
    cache: { applyAccount(row: AccountRow): void };
  },
  principal: Principal,
  list: string[],
  ip: string,
): Promise<AccountRow> {
  assertPlanHas(deps.plans, principal.plan, (p) => p.ipAllowlist, 'IP allowlists');
  const problems = allowlistProblems(list);
  if (problems.length > 0)
    throw AppError.invalidParams([{ name: 'allowlist', reason: problems.join('; ') }]);
  const at = new Date(deps.clock.now());
  const account = await deps.db.transaction(async (tx) => {
    const updated = await updateAccount(tx, principal.accountId as string, { allowlist: list }, at);
    await recordAudit(tx, {
      accountId: updated.id,
      actor: actorOf(principal),
      action: 'accounts.set_allowlist',
      data: { allowlist: list },
      ip,
      at,
    });
    return updated;
  });
  deps.cache.applyAccount(account);
  return account;
}
