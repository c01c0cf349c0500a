import type pino from 'pino';
import type { PaymentCollector } from '../billing/index.js';
import { baseUrlOf, releaseFilesFor, resolveSecretKey, type Config } from '../config/index.js';
import { createDownloadLinks, createExportService } from '../exports/index.js';
import type { Clock } from '../lib/clock.js';
import { closing, intervalJob, type Job } from '../lib/job.js';
import { createSecretBox } from '../lib/secret-box.js';
import { LicenseRegistry } from '../licensing/index.js';
import { MemoryRateLimiter, RedisRateLimiter, type RateLimiter } from '../limits/index.js';
import { Metrics } from '../metrics/index.js';
import { dataUpdateAnnouncer, type MailTransport } from '../notices/index.js';
import type { Plan, PlanId } from '../plans/index.js';
import { createReleaseCatalog, createReleaseService, ensureRelease } from '../releases/index.js';
import { createSalaryService, SalaryDataStore } from '../salary/index.js';
import { createSla } from '../sla/index.js';
import { ChangeHandlers, openSharedRedis, type Db, type SharedRedis } from '../store/index.js';
import {
  accountEventPublisher,
  createHttpSender,
  createWebhookService,
  serviceEventPublisher,
  type WebhookSender,
} from '../webhooks/index.js';
import { startAccountServices } from './account-services.js';

/** What a server process is given; tests pass their own clock, database and outside parts. */
export interface ProcessDeps {
  clock: Clock;
  logger: pino.Logger;
  db: Db;
  limiter?: RateLimiter;
  collector?: PaymentCollector;
  /** Outbound HTTP for webhooks and exports; the real sender unless a test passes one. */
  webhookSender?: WebhookSender;
  /** Where notices go; SMTP_URL's server (or the log) unless a test passes one. */
  mailTransport?: MailTransport;
}

/** What every part of a process is built over. */
export interface Base {
  readonly config: Config;
  readonly clock: Clock;
  readonly logger: pino.Logger;
  readonly db: Db;
  readonly plans: Readonly<Record<PlanId, Plan>>;
  /** SECRET_KEY, resolved: the keys of every secret box and signature derive from it. */
  readonly secretKey: string;
  /** This service's public base URL: links in mails and files, the OAuth issuer. */
  readonly issuer: string;
  /** Request counts and the rest, with METRICS_TOKEN or METRICS_PORT. */
  readonly metrics: Metrics | undefined;
}

/** What the instances sharing a database share beside it. */
export interface Shared {
  readonly limiter: RateLimiter;
  /** Redis and the change bus on it, with REDIS_URL. */
  readonly redis: SharedRedis | undefined;
  /** What this process re-reads when another instance announces a change. */
  readonly changes: ChangeHandlers;
}

/** Licences change by the operator's hand and are announced; the poll is only the backstop. */
const LICENSE_POLL_MS = 10_000;

/**
 * What both roles (API and worker) of a process stand on, built in this order: the shared
 * store and limiter, the account services (credentials loaded), licences, webhooks, the data
 * release (loaded when the bundled one is newer) in memory, exports and the SLA. Its jobs poll
 * the release and the licences and, stopped in reverse, close what it opened.
 */
export async function createCore(config: Config, deps: ProcessDeps) {
  const { clock, logger, db } = deps;
  const redis =
    config.redisUrl === undefined
      ? undefined
      : await openSharedRedis(
          config.redisUrl,
          {
            name: 'salary-api',
            prefix: config.redisKeyPrefix,
            commandTimeoutMs: config.redisTimeoutMs,
            unreachable: 'Redis not reachable at start: limits are per instance until it answers',
          },
          logger,
        );
  const limiter =
    deps.limiter ??
    (redis === undefined
      ? new MemoryRateLimiter()
      : new RedisRateLimiter(redis.redis, { prefix: config.redisKeyPrefix, logger }));
  const changes = new ChangeHandlers(logger);
  await redis?.bus.subscribe(changes.dispatch);
  const shared: Shared = { limiter, redis, changes };

  const accounts = await startAccountServices(config, {
    clock,
    logger,
    db,
    limiter,
    ...(deps.collector === undefined ? {} : { collector: deps.collector }),
    ...(redis === undefined ? {} : { bus: redis.bus }),
  });
  const { plans } = accounts;
  const base: Base = {
    config,
    clock,
    logger,
    db,
    plans,
    secretKey: resolveSecretKey(config),
    issuer: baseUrlOf(config),
    metrics:
      config.metricsToken === undefined && config.metricsPort === undefined
        ? undefined
        : new Metrics(),
  };
  const licenses = new LicenseRegistry({ db });
  await licenses.refresh();

  const allowPrivateTargets = config.outboundAllowPrivateTargets;
  const sender = deps.webhookSender ?? createHttpSender({ allowPrivate: allowPrivateTargets });
  const webhookBox = createSecretBox(base.secretKey, 'webhook-secrets');
  const webhooks = {
    box: webhookBox,
    sender,
    service: createWebhookService({
      db,
      clock,
      plans,
      box: webhookBox,
      sender,
      allowPrivateTargets,
      limiter,
      labelling: licenses.labelling,
    }),
  };

  const releases = createReleaseService({
    db,
    clock,
    onEvent: webhooks.service.publish,
    announce: dataUpdateAnnouncer(Object.values(plans)),
  });
  await ensureRelease(releases, releaseFilesFor(config.releaseFile), logger);
  const store = new SalaryDataStore(releases, logger);
  await store.refresh();
  const data = {
    releases,
    catalog: createReleaseCatalog({ releases, plans }),
    store,
    salary: createSalaryService({ data: store, plans }),
  };

  const exportBox = createSecretBox(base.secretKey, 'export-destinations');
  const exportLinks = createDownloadLinks(base.secretKey, base.issuer);
  const exports = {
    box: exportBox,
    links: exportLinks,
    service: createExportService({
      db,
      clock,
      box: exportBox,
      plans,
      allowPrivateTargets,
      sender,
      links: exportLinks,
      limiter,
    }),
  };
  const sla = createSla({
    db,
    clock,
    logger,
    plans,
    publishAccount: accountEventPublisher(plans, clock),
    publishService: serviceEventPublisher(plans, clock),
  });

  // Another instance changed a key, plan or allowlist, or the CLI loaded a release: each role
  // looks at once at what it keeps in memory (the polls are only the backstop).
  changes.on('release', () => store.refresh());
  changes.on('credentials', () => accounts.cache.refresh());
  changes.on('enterprise', () => licenses.refresh());

  const jobs: Job[] = [
    closing('store.redis', () => redis?.close()),
    closing('keys.announce', () => accounts.announcer?.flush()),
    closing('limits.limiter', () => limiter.close()),
    intervalJob('releases.poll', config.releasePollMs, () => store.refresh(), logger),
    intervalJob('licensing.refresh', LICENSE_POLL_MS, () => licenses.refresh(), logger),
  ];
  return { base, shared, accounts, licenses, data, webhooks, exports, sla, jobs };
}

export type Core = Awaited<ReturnType<typeof createCore>>;
