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
import { resolvePlans, type Plan, type PlanId } from '../plans/index.js';
import { coalescedAnnouncer, type ChangeBus, type Db } from '../store/index.js';

/**
 * The account, key and subscription services and the billing run over one database and
 * credential cache: a server's (startAccountServices) and an operator command's
 * (cli-services.ts).
 */
export function accountServices(
  config: Config,
  deps: {
    clock: Clock;
    logger: Logger;
    db: Db;
    plans: Readonly<Record<PlanId, Plan>>;
    cache: CredentialCache;
    collector: PaymentCollector;
    /** The shared limiter, for log-in throttling across instances. */
    limiter?: RateLimiter;
  },
) {
  const { clock, logger, db, plans, cache, collector } = deps;
  const { seller } = config;
  const vat = config.viesUrl === undefined ? checkDigitsVerifier : viesVerifier(config.viesUrl);
  const keys = createKeyService({ db, clock, plans, cache });
  const holder = holderId();
  let mandateBox: SecretBox | undefined;
  let totpBox: SecretBox | undefined;
  return {
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
  deps: {
    clock: Clock;
    logger: Logger;
    db: Db;
    collector?: PaymentCollector;
    /** Announces credential changes to the other instances (Redis pub/sub). */
    bus?: ChangeBus;
    /** The shared limiter, for log-in throttling across instances. */
    limiter?: RateLimiter;
  },
) {
  const { clock, logger, db } = deps;
  const plans = resolvePlans(config.planOverrides);
  const announcer =
    deps.bus === undefined ? undefined : coalescedAnnouncer(deps.bus, 'credentials');
  const cache = new CredentialCache({
    db,
    clock,
    plans,
    logger,
    ...(announcer === undefined ? {} : { onChange: announcer.announce }),
  });
  await cache.load();
  return {
    plans,
    cache,
    ...accountServices(config, {
      clock,
      logger,
      db,
      plans,
      cache,
      collector: deps.collector ?? bankTransferCollector,
      ...(deps.limiter === undefined ? {} : { limiter: deps.limiter }),
    }),
    /** Tells the other instances that credentials changed (nothing without a bus). */
    announcer,
  };
}

export type AccountServices = Awaited<ReturnType<typeof startAccountServices>>;
