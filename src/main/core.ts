import type pino from 'pino';
import type { PaymentCollector } from '../billing/index.js';
import { baseUrlOf, releaseFilesFor, resolveSecretKey, type Config } from '../config/index.js';
import { createDownloadLinks, createExportService } from '../exports/index.js';
import type { Clock } from '../lib/clock.js';
import { holderId } from '../lib/ids.js';
import { createSecretBox } from '../lib/secret-box.js';
import { LicenseRegistry } from '../licensing/index.js';
import { MemoryRateLimiter, RedisRateLimiter, type RateLimiter } from '../limits/index.js';
import { Metrics } from '../metrics/index.js';
import { dataUpdateAnnouncer, type MailTransport } from '../notices/index.js';
import { createReleaseCatalog, createReleaseService, ensureRelease } from '../releases/index.js';
import { createSalaryService, SalaryDataStore } from '../salary/index.js';
import { createSlaService, createStatusService, SlaCounter } from '../sla/index.js';
import type { Db } from '../store/index.js';
import { QuotaEndpoints } from '../usage/index.js';
import {
  accountEventPublisher,
  createHttpSender,
  createWebhookService,
  serviceEventPublisher,
  type WebhookSender,
} from '../webhooks/index.js';
import { createServices, openShared } from './setup.js';

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

/** Licences change by the operator's hand and are announced; the poll is only the backstop. */
const LICENSE_POLL_MS = 10_000;

type TopicHandler = () => Promise<unknown> | void;

/**
 * What both roles (API and worker) of a process stand on: the shared store and limiter, the
 * account services, licences, the data release (loaded when the bundled one is newer) in
 * memory, webhooks, exports and the SLA's services.
 */
export async function createCore(config: Config, deps: ProcessDeps) {
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
  const { plans } = services;
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
  const webhookBox = createSecretBox(secretKey, 'webhook-secrets');
  const sender =
    deps.webhookSender ?? createHttpSender({ allowPrivate: config.outboundAllowPrivateTargets });
  const webhooks = createWebhookService({
    db,
    clock,
    plans,
    box: webhookBox,
    sender,
    allowPrivateTargets: config.outboundAllowPrivateTargets,
    limiter,
    labelling,
  });
  const releases = createReleaseService({
    db,
    clock,
    onEvent: webhooks.publish,
    announce: dataUpdateAnnouncer(Object.values(plans)),
  });
  await ensureRelease(releases, releaseFilesFor(config.releaseFile), logger);
  const data = new SalaryDataStore(releases, logger);
  await data.refresh();
  data.watch(config.releasePollMs);
  const salary = createSalaryService({ data, plans });
  const releaseCatalog = createReleaseCatalog({ releases, plans });
  const issuer = baseUrlOf(config);
  const exportBox = createSecretBox(secretKey, 'export-destinations');
  const exportLinks = createDownloadLinks(secretKey, issuer);
  // Each route's declared quota cost, filled as the API role registers its routes.
  const quotaEndpoints = new QuotaEndpoints();
  const exports = createExportService({
    db,
    clock,
    box: exportBox,
    plans,
    allowPrivateTargets: config.outboundAllowPrivateTargets,
    sender,
    links: exportLinks,
    limiter,
  });
  // Uptime SLA (docs/sla.md): per-interval counts flushed like usage, the month close.
  const slaCounter = new SlaCounter(db, logger);
  const slaHolder = holderId();
  const sla = {
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

  // Another instance changed a key, plan or allowlist, or the CLI loaded a release: each role
  // looks at once at what it keeps in memory (the polls are only the backstop).
  const handlers = new Map<string, TopicHandler[]>();
  const onTopic = (topic: string, handler: TopicHandler): void => {
    handlers.set(topic, [...(handlers.get(topic) ?? []), handler]);
  };
  onTopic('release', () => data.refresh());
  onTopic('credentials', () => services.cache.refresh());
  onTopic('enterprise', () => licenses.refresh());
  const listen = async (): Promise<void> => {
    await shared?.bus.subscribe((topic) => {
      for (const handler of handlers.get(topic) ?? []) {
        Promise.resolve(handler()).catch((error: unknown) =>
          logger.warn({ err: error, topic }, 'refresh after a change failed; the poll retries'),
        );
      }
    });
  };

  return {
    config,
    clock,
    logger,
    db,
    shared,
    limiter,
    services,
    plans,
    licenses,
    labelling,
    metrics,
    secretKey,
    issuer,
    webhookBox,
    sender,
    webhooks,
    releases,
    releaseCatalog,
    data,
    salary,
    exportBox,
    exportLinks,
    exports,
    quotaEndpoints,
    sla,
    slaHolder,
    onTopic,
    /** Subscribes to the change bus once every role has said what it refreshes. */
    listen,
    /** Stops the watchers and closes the shared store and limiter (after both roles stopped). */
    async close() {
      data.stop();
      licenses.stop();
      services.cache.stop();
      await limiter.close();
      await services.flushChanges();
      await shared?.close();
    },
  };
}

export type Core = Awaited<ReturnType<typeof createCore>>;
