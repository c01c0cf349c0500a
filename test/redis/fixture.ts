import { randomBytes } from 'node:crypto';
import pino from 'pino';
import type { Contract } from '../../src/accounts/index.js';
import { operatorPrincipal } from '../../src/billing/index.js';
import { BUNDLED_RELEASE, loadConfig } from '../../src/config/index.js';
import { systemClock } from '../../src/lib/clock.js';
import { startAccountServices } from '../../src/main/account-services.js';
import type { PlanId } from '../../src/plans/index.js';
import { createReleaseService, readReleaseFile } from '../../src/releases/index.js';
import type { Db } from '../../src/store/index.js';

export const UNLIMITED: Contract = {
  price_cents: 150_000,
  request_limit: null,
  sla_percent: 99.9,
  formats: ['json', 'csv'],
};

/** Loads the bundled release, as the first `serve` would, so instances can start together. */
export async function loadBundledRelease(db: Db): Promise<void> {
  await createReleaseService({ db, clock: systemClock }).load(
    await readReleaseFile(BUNDLED_RELEASE),
  );
}

export type Services = Awaited<ReturnType<typeof startAccountServices>>;

/** The services over the test's database, as the operator's CLI would use them. */
export async function operatorServices(db: Db, env: Record<string, string>): Promise<Services> {
  const config = loadConfig({ LOG_LEVEL: 'silent', ...env });
  return startAccountServices(config, {
    clock: systemClock,
    logger: pino({ level: 'silent' }),
    db,
  });
}

/** A Free account, signed up as a person would (without the sign-up throttle). */
export async function freeAccount(s: Services, email: string, verified = false) {
  return s.accounts.signUp({ email, password: 'a long enough passphrase' }, '127.0.0.1', {
    throttle: false,
    verified,
  });
}

/** Moves a Free account to `plan`, as the operator would: the account's first API key. */
export async function upgrade(
  s: Services,
  accountId: string,
  plan: PlanId,
  contract: Contract = UNLIMITED,
): Promise<{ key: string; id: string }> {
  await s.subscriptions.details.set(
    operatorPrincipal(accountId, s.plans.free),
    { company_name: 'Load Test B.V.', address_lines: ['Damrak 1'], country: 'NL' },
    null,
  );
  const result = await s.subscriptions.change(
    operatorPrincipal(accountId, s.plans.free),
    plan,
    null,
    plan === 'enterprise' ? contract : undefined,
  );
  const key = result.api_key;
  if (key === undefined || key === null) throw new Error('no first key');
  return key;
}

/** An account on `plan` with its first API key and a session token. */
export async function paidAccount(
  s: Services,
  plan: PlanId,
  contract: Contract = UNLIMITED,
): Promise<{ accountId: string; apiKey: string; keyId: string; session: string; email: string }> {
  const email = `${plan}-${randomBytes(4).toString('hex')}@example.com`;
  // Its address confirmed, so that its holder may create keys of its own.
  const { account, session } = await freeAccount(s, email, true);
  const key = await upgrade(s, account.id, plan, contract);
  return { accountId: account.id, apiKey: key.key, keyId: key.id, session: session.token, email };
}
