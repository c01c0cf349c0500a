import pino from 'pino';
import { createAccountService } from '../accounts/index.js';
import {
  bankTransferCollector,
  createSubscriptionService,
  runBilling,
  type PaymentCollector,
} from '../billing/index.js';
import { baseUrlOf, resolveSecretKey, type Config } from '../config/index.js';
import { buildApp } from '../http/app.js';
import { databaseCheck, redisCheck } from '../http/health-routes.js';
import { purgeIdempotencyKeys } from '../http/idempotency.js';
import { shutdownGate } from '../http/shutdown-gate.js';
import { CredentialCache, createKeyService, touchKeys } from '../keys/index.js';
import { queueGraceNotices } from '../keys/index.js';
import type { Clock } from '../lib/clock.js';
import { holderId } from '../lib/ids.js';
import { bufferedStdout } from '../lib/log-destination.js';
import type { Logger } from '../lib/logger.js';
import { createSecretBox } from '../lib/secret-box.js';
import {
  createOAuthClientService,
  createOAuthTokenService,
  OAuthTokenAuthority,
  DpopProofs,
  DpopNonces,
  memoryReplayGuard,
  redisReplayGuard,
} from '../oauth/index.js';
import { MemoryRateLimiter, RedisRateLimiter, type RateLimiter } from '../limits/index.js';
import { startBackupSchedule } from '../backup/index.js';
import { Metrics, metricsServer, registerSources } from '../metrics/index.js';
import {
  createNoticeWorker,
  logTransport,
  releaseAllNoticeClaims,
  smtpTransport,
  type MailTransport,
} from '../notices/index.js';
import { resolvePlans } from '../plans/index.js';
import {
  compareReleaseVersions,
  createReleaseService,
  readReleaseFile,
  type ParsedRelease,
  type ReleaseService,
} from '../releases/index.js';
import { createSalaryService, SalaryDataStore } from '../salary/index.js';
import { createSupportService } from '../support/index.js';
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
import {
  AddressCounts,
  admittedFromUsage,
  seedFromUsage,
  createUsageService,
  QuotaEndpoints,
  UsageRecorder,
} from '../usage/index.js';
import {
  createHttpSender,
  createWebhookService,
  createWebhookWorker,
  outboxState,
  accountEventPublisher,
  releaseAllClaims,
  type WebhookSender,
} from '../webhooks/index.js';
import {
  createSlaService,
  createStatusService,
  Heartbeat,
  SlaCounter,
  type SlaParts,
} from '../sla/index.js';
import { serviceEventPublisher } from '../webhooks/index.js';
import {
  createExportService,
  createExportWorker,
  createRunner,
  releaseAllRunClaims,
} from '../exports/index.js';
import { createAccessReviews, createComplianceDocuments, PdfPool } from '../compliance/index.js';
import { CustomEndpointRegistry, createCustomEndpointService } from '../custom-endpoints/index.js';
import { LicenseRegistry } from '../licensing/index.js';
import { createDownloadLinks } from '../exports/index.js';
import { RenderPool } from '../formats/index.js';

/** `buffered`: the server's lines leave in batches (bufferedStdout); commands write at once. */
export function createLogger(config: Config, buffered = false): pino.Logger {
  const options = { level: config.logLevel, base: { service: 'salary-api' } };
  return buffered ? pino(options, bufferedStdout()) : pino(options);
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

/**
 * On first start (no release in the database yet) the bundled release is loaded. Later starts
 * load it only when it is newer than the active release (a deployment that ships a new release),
 * which records its data.updated event; an older or equal bundled release is left alone, and an
 * unreadable one leaves the active release serving.
 */
export async function ensureRelease(
  releases: ReleaseService,
  file: string,
  logger: Logger,
): Promise<void> {
  const active = await releases.activeVersion();
  if (active === undefined) {
    const parsed = await readReleaseFile(file);
    const result = await loadUnlessRaced(releases, parsed);
    if (result === undefined) return;
    logger.info(
      { release: result.release.version, records: parsed.records.length, file },
      'bundled data release loaded',
    );
    return;
  }
  let parsed: ParsedRelease;
  try {
    parsed = await readReleaseFile(file);
  } catch (error) {
    logger.warn({ err: error, file, active }, 'bundled data release not read; active release kept');
    return;
  }
  if (compareReleaseVersions(parsed.header.version, active) <= 0) return;
  const result = await loadUnlessRaced(releases, parsed);
  if (result === undefined) return;
  logger.info(
    { release: result.release.version, previous: active, event: result.eventId, file },
    'newer bundled data release loaded',
  );
}

/**
 * Loads the release; undefined when another instance starting at the same time (on an empty
 * database too, as `serve --workers N` and orchestrators start them) loaded it or a newer one
 * first: the version is unique, so the loser's insert fails and it serves the winner's.
 */
async function loadUnlessRaced(
  releases: ReleaseService,
  parsed: ParsedRelease,
): Promise<Awaited<ReturnType<ReleaseService['load']>> | undefined> {
  try {
    return await releases.load(parsed);
  } catch (error) {
    const now = await releases.activeVersion();
    if (now !== undefined && compareReleaseVersions(now, parsed.header.version) >= 0)
      return undefined;
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
  const accounts = createAccountService({
    db,
    clock,
    ...(deps.limiter === undefined ? {} : { failures: deps.limiter }),
    sessions: cache,
  });
  const keys = createKeyService({ db, clock, plans, cache });
  const collector = deps.collector ?? bankTransferCollector;
  const subscriptions = createSubscriptionService({ db, clock, plans, keys, cache, collector });
  const holder = holderId();
  const billing = (everyMs?: number) =>
    runBilling({
      db,
      clock,
      plans,
      cache,
      collector,
      logger,
      holder,
      ...(everyMs === undefined ? {} : { everyMs }),
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

/** Licences change by the operator's hand and are announced; the poll is only the backstop. */
const LICENSE_POLL_MS = 10_000;

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
    /** Where notices go; SMTP_URL's server (or the log) unless a test passes one. */
    mailTransport?: MailTransport;
  },
) {
  const { clock, logger, db } = deps;
  const shared = config.redisUrl === undefined ? undefined : await openShared(config, logger);
  const limiter =
    deps.limiter ??
    (shared === undefined
      ? new MemoryRateLimiter()
      : new RedisRateLimiter(shared.redis, { prefix: config.redisKeyPrefix, logger }));
  const services = await createServices(config, {
    ...deps,
    limiter,
    ...(shared === undefined ? {} : { bus: shared.bus }),
  });
  const { plans, cache } = services;
  // Data licences and licensees' host names: in memory, re-read when announced.
  const licenses = new LicenseRegistry({ db, logger });
  await licenses.refresh();
  licenses.watch(LICENSE_POLL_MS);
  const labelling = (accountId: string) => licenses.labelling(accountId);
  const metrics =
    config.metricsToken === undefined && config.metricsPort === undefined
      ? undefined
      : new Metrics();
  const secretKey = resolveSecretKey(config);
  const box = createSecretBox(secretKey, 'webhook-secrets');
  const sender =
    deps.webhookSender ?? createHttpSender({ allowPrivate: config.webhookAllowPrivateTargets });
  const webhooks = createWebhookService({
    db,
    clock,
    plans,
    box,
    sender,
    allowPrivateTargets: config.webhookAllowPrivateTargets,
    limiter,
    labelling,
  });
  const worker = createWebhookWorker({
    db,
    clock,
    box,
    sender,
    logger,
    concurrency: config.webhookConcurrency,
    labelling,
    ...(metrics === undefined
      ? {}
      : {
          onAttempt: (ok: boolean) => metrics.webhookAttempts.inc({ result: ok ? 'ok' : 'failed' }),
        }),
  });
  if (config.databaseUrl === undefined && db.kind === 'pglite') {
    // Embedded mode: this process holds the data directory's lock, so claims in the table are
    // left from a process that stopped mid-delivery; they are due again now, not after the lease.
    const released = await releaseAllClaims(db);
    if (released > 0) logger.info({ deliveries: released }, 'webhook deliveries resumed');
    const runs = await releaseAllRunClaims(db);
    if (runs > 0) logger.info({ runs }, 'export runs resumed');
  }
  if (config.webhookPollMs > 0) worker.start(config.webhookPollMs);
  const transport =
    deps.mailTransport ??
    (config.smtpUrl === undefined ? logTransport(logger) : smtpTransport(config.smtpUrl));
  const notices = createNoticeWorker({ db, clock, transport, from: config.mailFrom, logger });
  if (config.databaseUrl === undefined && db.kind === 'pglite') {
    const released = await releaseAllNoticeClaims(db);
    if (released > 0) logger.info({ notices: released }, 'notices resumed');
  }
  if (config.noticePollMs > 0) notices.start(config.noticePollMs);
  const issuer = baseUrlOf(config);
  const oauth = new OAuthTokenAuthority({
    db,
    clock,
    box: createSecretBox(secretKey, 'oauth-signing-keys'),
    logger,
    issuer,
    audience: `${issuer}/api/v1`,
    lifetimeS: config.oauthTokenTtlSeconds,
    account: (id) => cache.account(id),
    fallback: cache,
    // DPoP proofs: a proof's jti is refused again on every instance when Redis is shared.
    dpop: new DpopProofs({
      clock,
      issuer,
      nonces: new DpopNonces(secretKey, config.dpopNonce),
      replay:
        shared === undefined
          ? memoryReplayGuard()
          : redisReplayGuard(shared.redis, config.redisKeyPrefix),
    }),
    ...(services.announce === undefined ? {} : { onChange: services.announce }),
  });
  await oauth.load();
  oauth.watch(config.credentialRefreshMs);
  const releases = createReleaseService({ db, clock, onEvent: webhooks.publish });
  await ensureRelease(releases, config.releaseFile, logger);
  const data = new SalaryDataStore(releases, logger);
  await data.refresh();
  data.watch(config.releasePollMs);
  cache.watch(config.credentialRefreshMs);
  // Custom endpoints (Enterprise): in memory, re-read when announced.
  const customEndpointRegistry = new CustomEndpointRegistry({ db, logger });
  await customEndpointRegistry.load();
  customEndpointRegistry.watch(config.credentialRefreshMs);
  const refreshEnterprise = (): void => {
    Promise.all([customEndpointRegistry.refresh(), licenses.refresh()]).catch((error: unknown) =>
      logger.warn({ err: error }, 'enterprise refresh after a change failed; the poll retries'),
    );
  };
  // Another instance changed a key, plan or allowlist, or the CLI loaded a release: look now.
  // A release also brought webhook deliveries (written with it): send them now, not at the
  // next poll; the claim lets exactly one instance have each.
  await shared?.bus.subscribe((topic) => {
    if (topic === 'enterprise') return refreshEnterprise();
    const refreshed =
      topic === 'credentials' ? Promise.all([cache.refresh(), oauth.refresh()]) : data.refresh();
    refreshed.catch((error: unknown) =>
      logger.warn({ err: error, topic }, 'refresh after a change failed; the poll retries'),
    );
    if (topic === 'release' && config.webhookPollMs > 0) {
      worker
        .runOnce()
        .catch((error: unknown) =>
          logger.warn({ err: error }, 'webhook run after a release failed; the poll retries'),
        );
    }
  });
  // Without Redis, anonymous callers' counts are kept in the database too (across a restart).
  const addressCounts =
    limiter instanceof MemoryRateLimiter
      ? new AddressCounts({ clock, limiter, secretKey })
      : undefined;
  const recorder = new UsageRecorder(
    db,
    logger,
    (target) => touchKeys(target, cache.takeLastUsed()),
    addressCounts,
  );
  recorder.start(config.usageFlushMs);
  // Shared counters lost with a Redis restart are rebuilt from the usage instances wrote,
  // weighted by the costs the routes declare (filled as buildApp registers them).
  const quotaEndpoints = new QuotaEndpoints();
  if (limiter instanceof RedisRateLimiter)
    limiter.reconcileWith(admittedFromUsage(db, recorder, quotaEndpoints));
  const billingTimer = setInterval(() => {
    services
      .billing(config.billingIntervalMs)
      .catch((error: unknown) =>
        logger.warn({ err: error }, 'billing run failed; retried next interval'),
      );
    // Idempotency rows past their 24 hours; every instance may do it, the delete is the same.
    purgeIdempotencyKeys(db, clock.now()).catch((error: unknown) =>
      logger.warn({ err: error }, 'idempotency purge failed; retried next interval'),
    );
    // Rotated keys about to stop working, still in use: their accounts are told once.
    queueGraceNotices(db, new Date(clock.now())).catch((error: unknown) =>
      logger.warn({ err: error }, 'rotation grace notices failed; retried next interval'),
    );
  }, config.billingIntervalMs);
  billingTimer.unref();

  // Uptime SLA (docs/sla.md): per-interval counts flushed like usage, the heartbeat, month close.
  const slaCounter = new SlaCounter(db, logger);
  slaCounter.start(config.usageFlushMs);
  const slaHolder = holderId();
  const heartbeat = new Heartbeat({ db, clock, logger, instanceId: slaHolder });
  if (config.slaHeartbeatMs > 0) heartbeat.start(config.slaHeartbeatMs);
  const sla: SlaParts = {
    counter: slaCounter,
    service: createSlaService({
      db,
      clock,
      plans,
      logger,
      publish: accountEventPublisher(plans, clock),
      counter: slaCounter,
      holder: slaHolder,
    }),
    status: createStatusService({ db, clock, publish: serviceEventPublisher(plans, clock) }),
  };
  const slaTimer = setInterval(() => {
    sla.service
      .closeMonth()
      .catch((error: unknown) =>
        logger.warn({ err: error }, 'SLA month close failed; retried next interval'),
      );
  }, config.billingIntervalMs);
  slaTimer.unref();

  if (metrics !== undefined) {
    registerSources(metrics, {
      release: () => data.index?.release.version,
      credentials: () => cache.stats(),
      outbox: () => outboxState(db, new Date(clock.now())),
      usageFlushLagMs: () => Date.now() - recorder.flushedAt,
      database: () => db.query('SELECT 1'),
      ...(shared === undefined ? {} : { redis: () => shared.redis.ping() }),
    });
  }
  const salary = createSalaryService({ data, plans });
  const exportBox = createSecretBox(secretKey, 'export-destinations');
  const exportLinks = createDownloadLinks(secretKey, issuer);
  const exports = createExportService({
    db,
    clock,
    box: exportBox,
    plans,
    allowPrivateTargets: config.webhookAllowPrivateTargets,
    sender,
    links: exportLinks,
    limiter,
    costOf: (endpoint) => quotaEndpoints.costOf(endpoint),
  });
  // Export files are written in a worker thread of their own (runs go one at a time), so an
  // export never holds the main thread that serves lookups.
  const exportRenderer = new RenderPool(1);
  const exportWorker = createExportWorker({
    db,
    clock,
    logger,
    publish: accountEventPublisher(plans, clock),
    heartbeatMs: config.exportHeartbeatMs,
    runner: createRunner({
      db,
      clock,
      box: exportBox,
      salary,
      plans,
      allowPrivateTargets: config.webhookAllowPrivateTargets,
      labelling,
      sender,
      links: exportLinks,
      pool: exportRenderer,
      limiter,
      costOf: (endpoint) => quotaEndpoints.costOf(endpoint),
    }),
    ...(metrics === undefined
      ? {}
      : {
          onAttempt: (result, destination, seconds) => {
            metrics.exportRuns.inc({ result, destination });
            metrics.exportRunSeconds.observe({ destination }, seconds);
          },
        }),
  });
  if (config.exportPollMs > 0) exportWorker.start(config.exportPollMs);

  const pdf = new PdfPool();
  const compliance = {
    documents: createComplianceDocuments({ db, clock, plans, pdf }),
    reviews: createAccessReviews({ db, clock, plans }),
    pdf,
  };

  const app = await buildApp({
    quotaEndpoints,
    config,
    clock,
    plans,
    limiter,
    credentials: oauth,
    data,
    salary,
    readiness:
      shared === undefined ? [databaseCheck(db)] : [databaseCheck(db), redisCheck(shared.redis)],
    logger,
    db,
    accounts: services.accounts,
    cache,
    keys: services.keys,
    subscriptions: services.subscriptions,
    usage: createUsageService({ db, clock, limiter, recorder, plans }),
    recorder,
    webhooks,
    support: createSupportService({
      db,
      clock,
      plans,
      limiter,
      supportEmail: config.supportEmail,
      communityUrl: config.communityUrl,
    }),
    exports,
    oauthClients: createOAuthClientService({ db, clock, plans, authority: oauth }),
    oauthTokens: createOAuthTokenService({
      db,
      clock,
      limiter,
      authority: oauth,
      lifetimeS: config.oauthTokenTtlSeconds,
    }),
    oauthAuthority: oauth,
    secretKey,
    customEndpoints: createCustomEndpointService({
      db,
      clock,
      plans,
      registry: customEndpointRegistry,
      ...(shared === undefined ? {} : { announce: () => void shared.bus.publish('enterprise') }),
    }),
    customEndpointRegistry,
    licenses,
    ...(metrics === undefined ? {} : { metrics }),
    sla,
    compliance,
  });
  const metricsPort =
    metrics === undefined || config.metricsPort === undefined
      ? undefined
      : metricsServer(metrics, config.metricsToken);
  const stopBackups =
    config.backupDir === undefined || db.snapshot === undefined
      ? undefined
      : startBackupSchedule({
          db,
          clock,
          logger,
          dir: config.backupDir,
          schedule: config.backupSchedule,
          keep: config.backupKeep,
          release: () => data.index?.release.version ?? null,
          metrics,
        });
  if (config.backupDir !== undefined && db.snapshot === undefined)
    logger.warn('BACKUP_DIR is ignored on PostgreSQL: back it up with pg_dump');
  // The routes are registered (their quota costs known): an in-process limiter starts from what
  // today's usage already spent, not from zero.
  if (limiter instanceof MemoryRateLimiter) {
    const seeded = await seedFromUsage(db, quotaEndpoints, limiter, clock.now());
    if (seeded > 0) logger.info({ accounts: seeded }, "limit counters raised to today's usage");
    const addresses = await addressCounts?.seed(db);
    if (addresses !== undefined && addresses > 0)
      logger.info({ addresses }, 'anonymous limit counters kept from before the restart');
  }
  const gate = shutdownGate(app.server);
  return {
    app,
    services,
    recorder,
    webhooks,
    worker,
    notices,
    exports,
    exportWorker,
    releases,
    oauth,
    metrics,
    sla,
    heartbeat,
    licenses,
    quotaEndpoints,
    async listen() {
      const address = await app.listen({ port: config.port, host: config.host });
      if (metricsPort !== undefined) {
        await new Promise<void>((resolve, reject) => {
          metricsPort.once('error', reject);
          metricsPort.listen(config.metricsPort, '127.0.0.1', () => resolve());
        });
        logger.info({ port: config.metricsPort }, 'metrics served on the loopback address');
      }
      return address;
    },
    /** The first step of a graceful stop: requests already sent are read and answered. */
    drain: () => gate.drain(),
    async close() {
      clearInterval(billingTimer);
      clearInterval(slaTimer);
      heartbeat.stop();
      slaCounter.stop();
      stopBackups?.();
      await worker.stop();
      await notices.stop();
      transport.close();
      await exportWorker.stop();
      await exportRenderer.close();
      data.stop();
      cache.stop();
      customEndpointRegistry.stop();
      licenses.stop();
      oauth.stop();
      recorder.stop();
      gate.refuse();
      if (metricsPort?.listening === true)
        await new Promise((resolve) => metricsPort.close(resolve));
      await app.close();
      await recorder.flush();
      await slaCounter.flush();
      await heartbeat.write().catch(() => undefined);
      await limiter.close();
      await services.flushChanges();
      await shared?.close();
    },
  };
}

/** The Redis connection and change bus of a server; the server starts even if Redis is down. */
async function openShared(
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
