import { randomBytes } from 'node:crypto';
import type { Contract } from '../../src/accounts/index.js';
import { operatorPrincipal } from '../../src/billing/index.js';
import type { PlanId } from '../../src/plans/index.js';
import { createActionTokens } from '../../src/lib/action-tokens.js';
import { listNotices } from '../../src/notices/index.js';
import { TEST_SECRET_KEY, type TestApp } from './app.js';

export const ENTERPRISE_CONTRACT: Contract = {
  price_cents: 150_000,
  request_limit: null,
  sla_percent: 99.9,
  formats: ['json', 'csv', 'xlsx', 'xml', 'parquet'],
};

/** An account on `plan` (subscribed as the operator would), with its first API key. */
export async function accountOnPlan(
  t: TestApp,
  plan: PlanId,
  contract: Contract = ENTERPRISE_CONTRACT,
): Promise<{ accountId: string; apiKey: string | null; session: string; email: string }> {
  const email = `${plan}-${randomBytes(4).toString('hex')}@example.com`;
  const { account, session } = await t.services.accounts.signUp(
    { email, password: 'a long enough passphrase' },
    '127.0.0.1',
    // As the operator creates accounts: the address counts as verified (no link to follow).
    { throttle: false, verified: true },
  );
  let apiKey: string | null = null;
  if (plan !== 'free') {
    await giveBillingDetails(t, account.id);
    const result = await t.services.subscriptions.change(
      operatorPrincipal(account.id, t.services.plans.free),
      plan,
      null,
      plan === 'enterprise' ? contract : undefined,
    );
    apiKey = result.api_key?.key ?? null;
  }
  return { accountId: account.id, apiKey, session: session.token, email };
}

/**
 * Billing details as a customer gives them before a paid plan (no invoice is issued without):
 * a Dutch consumer, so a Dutch seller's invoices carry the 21 % they carry for any buyer at home.
 */
export async function giveBillingDetails(t: TestApp, accountId: string): Promise<void> {
  await t.services.subscriptions.details.set(
    operatorPrincipal(accountId, t.services.plans.free),
    {
      company_name: 'Jan de Vries',
      address_lines: ['Damrak 1', '1012 LG Amsterdam'],
      country: 'NL',
    },
    null,
  );
}

/**
 * Confirms the account's address as its holder would: the token of the last verification mail
 * queued for it, redeemed through the service.
 */
export async function verifyEmailOf(t: TestApp, accountId: string): Promise<void> {
  const notice = (await listNotices(t.db, accountId)).findLast((n) => n.kind === 'email.verify');
  if (notice === undefined) throw new Error(`no verification mail was queued for ${accountId}`);
  const token = createActionTokens(TEST_SECRET_KEY).token(
    'email.verify',
    String(notice.data.token_id),
  );
  await t.services.accounts.verifyEmail(token, '127.0.0.1');
}
