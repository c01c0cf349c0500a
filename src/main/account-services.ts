import { createAccountService } from '../accounts/index.js';
import {
  bankTransferCollector,
  checkDigitsVerifier,
  createSubscriptionService,
  runBilling,
  viesVerifier,
  type PaymentCollector,
} from '../billing/index.js';
import { resolveSecretKey, type Config } from '../config/index.js';
import { CredentialCache, createKeyService } from '../keys/index.js';
import { createActionTokens } from '../lib/action-tokens.js';
import type { Clock } from '../lib/clock.js';
import { holderId } from '../lib/ids.js';
import type { Logger } from '../lib/logger.js';
import { createSecretBox, type SecretBox } from '../lib/secret-box.js';
import type { RateLimiter } from '../limits/index.js';
import { resolvePlans } from '../plans/index.js';
import { coalescedAnnouncer, type ChangeBus, type Db } from '../store/index.js';

export interface AccountServiceDeps {
  clock: Clock;
  logger: Logger;
  db: Db;
  collector?: PaymentCollector;
  /** The shared limiter, for log-in throttling across instances. */
  limiter?: RateLimiter;
  onChange?: () => void;
}

/**
 * The account, key and subscription services and the billing run over one database and a
 * credential cache of their own (not loaded here): a server's (startAccountServices) and an
 * operator command's (cli-services.ts). `onChange` hears every change made through them.
 */
export function accountServices(config: Config, deps: AccountServiceDeps) {
  const { clock, logger, db } = deps;
  const { seller } = config;
  const plans = resolvePlans(config.planOverrides);
  const cache = new CredentialCache({
    db,
    clock,
    plans,
    logger,
    ...(deps.onChange === undefined ? {} : { onChange: deps.onChange }),
  });
  const collector = deps.collector ?? bankTransferCollector;
  const vat = config.viesUrl === undefined ? checkDigitsVerifier : viesVerifier(config.viesUrl);
  const keys = createKeyService({ db, clock, plans, cache });
  const holder = holderId();
  let mandateBox: SecretBox | undefined;
  let totpBox: SecretBox | undefined;
  return {
    plans,
    cache,
    accounts: createAccountService({
      db,
      clock,
      plans,
      ...(deps.limiter === undefined ? {} : { failures: deps.limiter }),
      cache,
      // Read when a link is first signed or checked: processes that never mail one need no key.
      actionTokens: createActionTokens(() => resolveSecretKey(config)),
      totpBox: () => (totpBox ??= createSecretBox(resolveSecretKey(config), 'totp-secrets')),
    }),
    keys,
    subscriptions: createSubscriptionService({
      db,
      clock,
      plans,
      keys,
      cache,
      collector,
      seller,
      vat,
      mandateBox: () => (mandateBox ??= createSecretBox(resolveSecretKey(config), 'sepa-mandates')),
    }),
    billing: (everyMs?: number) =>
      runBilling({
        db,
        clock,
        plans,
        cache,
        collector,
        logger,
        seller,
        vat,
        holder,
        ...(everyMs === undefined ? {} : { everyMs }),
      }),
  };
}

/**
 * A server's account services: the credential cache loaded whole, its changes announced on
 * `bus` (once per tick) for the other instances.
 */
export async function startAccountServices(
  config: Config,
  deps: Omit<AccountServiceDeps, 'onChange'> & {
    /** Announces credential changes to the other instances (Redis pub/sub). */
    bus?: ChangeBus;
  },
) {
  const { bus, ...rest } = deps;
  const announcer = bus === undefined ? undefined : coalescedAnnouncer(bus, 'credentials');
  const services = accountServices(config, {
    ...rest,
    ...(announcer === undefined ? {} : { onChange: announcer.announce }),
  });
  await services.cache.load();
  /** `announcer` tells the other instances that credentials changed (none without a bus). */
  return { ...services, announcer };
}

export type AccountServices = Awaited<ReturnType<typeof startAccountServices>>;
