import pino from 'pino';
import { createAccountService } from '../accounts/index.js';
import {
  bankTransferCollector,
  createSubscriptionService,
  runBilling,
  type PaymentCollector,
} from '../billing/index.js';
import { resolveSecretKey, type Config } from '../config/index.js';
import { buildApp } from '../http/app.js';
import { databaseCheck } from '../http/health-routes.js';
import { CredentialCache, createKeyService, touchKeys } from '../keys/index.js';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import { createSecretBox } from '../lib/secret-box.js';
import { MemoryRateLimiter, type RateLimiter } from '../limits/index.js';
import { resolvePlans } from '../plans/index.js';
import { createReleaseService, readReleaseFile, type ReleaseService } from '../releases/index.js';
import { createSalaryService, SalaryDataStore } from '../salary/index.js';
import { migrate, openDatabase, type Db } from '../store/index.js';
import { createUsageService, UsageRecorder } from '../usage/index.js';
import {
  createHttpSender,
  createWebhookService,
  createWebhookWorker,
  releaseAllClaims,
  type WebhookSender,
} from '../webhooks/index.js';

export function createLogger(config: Config): pino.Logger {
  return pino({ level: config.logLevel, base: { service: 'salary-api' } });
}

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

/** On first start (no release in the database yet) the bundled release is loaded. */
export async function ensureRelease(
  releases: ReleaseService,
  file: string,
  logger: Logger,
): Promise<void> {
  if ((await releases.activeId()) !== undefined) return;
  const parsed = await readReleaseFile(file);
  const result = await releases.load(parsed);
  logger.info(
    { release: result.release.version, records: parsed.records.length, file },
    'bundled data release loaded',
  );
}

/** The services every entry point (server, CLI) builds over one database. */
export async function createServices(
  config: Config,
  deps: { clock: Clock; logger: Logger; db: Db; collector?: PaymentCollector },
) {
  const { clock, logger, db } = deps;
  const plans = resolvePlans(config.planOverrides);
  const accounts = createAccountService({ db, clock });
  const cache = new CredentialCache({ db, clock, plans, accounts, logger });
  await cache.load();
  const keys = createKeyService({ db, clock, plans, cache });
  const collector = deps.collector ?? bankTransferCollector;
  const subscriptions = createSubscriptionService({ db, clock, plans, keys, cache, collector });
  const billing = () => runBilling({ db, clock, plans, cache, collector, logger });
  return { plans, accounts, cache, keys, subscriptions, billing, collector };
}

/** Wires every part of the API process together over one database. */
export async function createServer(
  config: Config,
  deps: {
    clock: Clock;
    logger: pino.Logger;
    db: Db;
    limiter?: RateLimiter;
    collector?: PaymentCollector;
    /** Outbound HTTP for webhooks; the real sender unless a test or benchmark passes one. */
    webhookSender?: WebhookSender;
  },
) {
  const { clock, logger, db } = deps;
  const services = await createServices(config, deps);
  const { plans, cache } = services;
  const box = createSecretBox(resolveSecretKey(config), 'webhook-secrets');
  const sender =
    deps.webhookSender ?? createHttpSender({ allowPrivate: config.webhookAllowPrivateTargets });
  const webhooks = createWebhookService({
    db,
    clock,
    plans,
    box,
    sender,
    allowPrivateTargets: config.webhookAllowPrivateTargets,
  });
  const worker = createWebhookWorker({
    db,
    clock,
    box,
    sender,
    logger,
    concurrency: config.webhookConcurrency,
  });
  if (config.databaseUrl === undefined && db.kind === 'pglite') {
    // Embedded mode: this process holds the data directory's lock, so claims in the table are
    // left from a process that stopped mid-delivery; they are due again now, not after the lease.
    const released = await releaseAllClaims(db);
    if (released > 0) logger.info({ deliveries: released }, 'webhook deliveries resumed');
  }
  if (config.webhookPollMs > 0) worker.start(config.webhookPollMs);
  const releases = createReleaseService({
    db,
    clock,
    onEvent: (tx, event) => webhooks.publish(tx, event),
  });
  await ensureRelease(releases, config.releaseFile, logger);
  const data = new SalaryDataStore(releases, logger);
  await data.refresh();
  data.watch(config.releasePollMs);
  cache.watch(config.credentialRefreshMs);
  const limiter = deps.limiter ?? new MemoryRateLimiter();
  if (config.redisUrl !== undefined) {
    logger.warn(
      'REDIS_URL is set, but this version keeps limits in process (exact for one instance; shared limits come with the Redis limiter)',
    );
  }
  const recorder = new UsageRecorder(db, logger, (target) =>
    touchKeys(target, cache.takeLastUsed()),
  );
  recorder.start(config.usageFlushMs);
  const billingTimer = setInterval(() => {
    services
      .billing()
      .catch((error: unknown) =>
        logger.warn({ err: error }, 'billing run failed; retried next interval'),
      );
  }, config.billingIntervalMs);
  billingTimer.unref();

  const app = await buildApp({
    config,
    clock,
    plans,
    limiter,
    credentials: cache,
    data,
    salary: createSalaryService({ data, plans }),
    readiness: [databaseCheck(db)],
    logger,
    db,
    accounts: services.accounts,
    cache,
    keys: services.keys,
    subscriptions: services.subscriptions,
    usage: createUsageService({ db, clock, limiter, recorder, plans }),
    recorder,
    webhooks,
  });
  return {
    app,
    services,
    recorder,
    webhooks,
    worker,
    releases,
    listen: () => app.listen({ port: config.port, host: config.host }),
    async close() {
      clearInterval(billingTimer);
      await worker.stop();
      data.stop();
      cache.stop();
      recorder.stop();
      await app.close();
      await recorder.flush();
      await limiter.close();
    },
  };
}
