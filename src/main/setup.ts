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
import type { Clock } from '../lib/clock.js';
import { holderId } from '../lib/ids.js';
import { createActionTokens } from '../lib/action-tokens.js';
import { createSecretBox, type SecretBox } from '../lib/secret-box.js';
import type { Logger } from '../lib/logger.js';
import type { RateLimiter } from '../limits/index.js';
import { resolvePlans, type Plan, type PlanId } from '../plans/index.js';
import {
  migrate,
  openDatabase,
  openRedis,
  RedisChangeBus,
  redisReady,
  type ChangeBus,
  type Db,
  type Redis,
} from '../store/index.js';

/** Opens the database named by the configuration and brings its schema up to date. */
export async function openMigratedDatabase(config: Config, logger: Logger): Promise<Db> {
  const db = await openDatabase(config);
  try {
    const applied = await migrate(db);
    if (applied.length > 0) logger.info({ migrations: applied }, 'migrations applied');
    return db;
  } catch (error) {
    await db.close();
    throw error;
  }
}

/** The services every entry point (server, CLI) builds over one database. */
export async function createServices(
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
  const bus = deps.bus;
  // One announcement per tick, however many keys and accounts one operation touched.
  let announcing: Promise<void> | undefined;
  const onChange =
    bus === undefined
      ? undefined
      : () => {
          announcing ??= Promise.resolve().then(() => {
            announcing = undefined;
            return bus.publish('credentials');
          });
        };
  const cache = new CredentialCache({
    db,
    clock,
    plans,
    logger,
    ...(onChange === undefined ? {} : { onChange }),
  });
  await cache.load();
  const collector = deps.collector ?? bankTransferCollector;
  const { accounts, keys, subscriptions, billing } = serviceSet(config, {
    ...deps,
    plans,
    cache,
    collector,
  });
  return {
    plans,
    accounts,
    cache,
    keys,
    subscriptions,
    billing,
    collector,
    /** Tells the other instances that credentials changed (nothing without a bus). */
    announce: onChange,
    flushChanges: () => announcing,
  };
}

/**
 * The account, key and subscription services and the billing run over one database and
 * credential cache: the server's (createServices) and an operator command's (commandServices).
 */
export function serviceSet(
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

/** The Redis connection and change bus of a server; the server starts even if Redis is down. */
export async function openShared(
  config: Config,
  logger: Logger,
): Promise<{ redis: Redis; bus: ChangeBus; close(): Promise<void> }> {
  const url = config.redisUrl!;
  const redis = openRedis(url, { commandTimeoutMs: config.redisTimeoutMs, name: 'salary-api' });
  await redisReady(redis).catch((error: unknown) =>
    logger.warn(
      { err: error },
      'Redis not reachable at start: limits are per instance until it answers',
    ),
  );
  const bus = new RedisChangeBus(redis, url, config.redisKeyPrefix, logger);
  return {
    redis,
    bus,
    async close() {
      await bus.close();
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
