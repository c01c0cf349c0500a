import { buildApp } from '../app/build-app.js';
import { createCompliance } from '../compliance/index.js';
import { CustomEndpointRegistry, createCustomEndpointService } from '../custom-endpoints/index.js';
import { RenderPool } from '../formats/index.js';
import { AccessLog, accessLogObserver } from '../http/access-log.js';
import { DownloadGate } from '../http/download-gate.js';
import { routeQuotaSpender, quotaSpender } from '../http/quota.js';
import { databaseCheck, redisCheck } from '../http/readiness-checks.js';
import { touchKeys } from '../keys/index.js';
import { closing, intervalJob, type Job } from '../lib/job.js';
import { MemoryRateLimiter } from '../limits/index.js';
import { MCP_PATH } from '../mcp/index.js';
import { metricsApp, registerSources } from '../metrics/index.js';
import { startOAuth } from '../oauth/index.js';
import { createPayPositionService, createSalaryResponder, FileCache } from '../salary/index.js';
import { Heartbeat } from '../sla/index.js';
import { pingDatabase } from '../store/index.js';
import { createSupportService } from '../support/index.js';
import { createUsage, QuotaEndpoints, usageObserver } from '../usage/index.js';
import { outboxState } from '../webhooks/index.js';
import type { Core } from './core.js';
import { listenText } from './startup-line.js';

/**
 * The API role: what answering requests needs beside the core (OAuth, custom endpoints, usage,
 * compliance, the salary responder, the metrics' sources), the HTTP application over it, and its
 * jobs in this order: the credential, OAuth and custom-endpoint re-reads, the usage and SLA
 * flushes, the heartbeat, the pools the routes use, and the server itself. Stopped in reverse:
 * the server closes first (its in-flight requests finished), then the last counts are written.
 */
export async function createApi(core: Core) {
  const { config, clock, logger, db, plans, secretKey, issuer, metrics } = core.base;
  const { limiter, redis, changes } = core.shared;
  const { cache } = core.accounts;

  const oauth = await startOAuth({
    db,
    clock,
    logger,
    plans,
    limiter,
    secretKey,
    issuer,
    resourcePaths: ['/api/v1', MCP_PATH],
    lifetimeS: config.oauthTokenTtlSeconds,
    dpopNonce: config.dpopNonce,
    ...(redis === undefined
      ? {}
      : { redis: { redis: redis.redis, prefix: config.redisKeyPrefix } }),
    account: (id) => cache.account(id),
    fallback: cache,
    ...(core.accounts.announcer === undefined
      ? {}
      : { onChange: core.accounts.announcer.announce }),
  });
  const customEndpointRegistry = new CustomEndpointRegistry({ db });
  await customEndpointRegistry.load();
  const customEndpoints = {
    registry: customEndpointRegistry,
    service: createCustomEndpointService({
      db,
      clock,
      plans,
      registry: customEndpointRegistry,
      ...(redis === undefined ? {} : { announce: () => void redis.bus.publish('enterprise') }),
    }),
  };
  changes.on('credentials', () => oauth.authority.refresh());
  changes.on('enterprise', () => customEndpointRegistry.refresh());

  // Each route's declared quota cost, filled as buildApp registers the routes.
  const quotaEndpoints = new QuotaEndpoints();
  const usage = createUsage({
    db,
    clock,
    logger,
    limiter,
    plans,
    secretKey,
    quotaEndpoints,
    alsoOnFlush: (target) => touchKeys(target, cache.takeLastUsed()),
  });
  const heartbeat = new Heartbeat({
    db,
    clock,
    logger,
    instanceId: core.sla.instanceId,
    countersInProcess: limiter instanceof MemoryRateLimiter,
  });
  const compliance = createCompliance({ db, clock, plans });
  const accessLog = config.accessLog ? new AccessLog(logger) : undefined;
  const spendQuota = quotaSpender(
    limiter,
    clock,
    metrics && ((plan, outcome) => metrics.limitDecision(plan, outcome)),
  );
  const spendRouteQuota = routeQuotaSpender(spendQuota);
  const downloads = new DownloadGate();
  const renderer = new RenderPool();
  if (metrics !== undefined)
    registerSources(metrics, {
      release: () => core.data.store.index?.release.version,
      credentials: () => cache.stats(),
      outbox: () => outboxState(db, new Date(clock.now())),
      usageFlushLagMs: () => Date.now() - usage.recorder.flushedAt,
      database: () => pingDatabase(db),
      ...(redis === undefined ? {} : { redis: () => redis.redis.ping() }),
    });

  const app = await buildApp({
    config,
    clock,
    logger,
    plans,
    kit: {
      credentials: oauth.authority,
      quotaEndpoints,
      // Every answer is counted in usage and the SLA, the request metrics, the access line.
      observers: [
        usageObserver(usage.recorder, core.sla.counter),
        ...(metrics === undefined ? [] : [metrics.answered]),
        ...(accessLog === undefined ? [] : [accessLogObserver(accessLog)]),
      ],
      downloads,
      secretKey,
      idempotency: {
        db,
        afterRollback: () => {
          cache
            .load()
            .catch((error: unknown) =>
              logger.warn({ err: error }, 'credential reload after a rollback failed'),
            );
          customEndpointRegistry
            .reload()
            .catch((error: unknown) =>
              logger.warn({ err: error }, 'custom endpoint reload after a rollback failed'),
            );
        },
      },
      spendQuota,
      spendRouteQuota,
      limiter,
      readiness:
        redis === undefined ? [databaseCheck(db)] : [databaseCheck(db), redisCheck(redis.redis)],
      accessLog,
    },
    data: {
      store: core.data.store,
      salary: core.data.salary,
      positions: createPayPositionService({ salary: core.data.salary, plans }),
      responder: createSalaryResponder({
        salary: core.data.salary,
        spendRouteQuota,
        downloads,
        renderer,
        files: new FileCache(),
        labelling: core.licenses.labelling,
      }),
      releases: core.data.catalog,
    },
    accounts: {
      accounts: core.accounts.accounts,
      cache,
      keys: core.accounts.keys,
      subscriptions: core.accounts.subscriptions,
      support: createSupportService({
        db,
        clock,
        plans,
        limiter,
        supportEmail: config.supportEmail,
        communityUrl: config.communityUrl,
      }),
      usage,
    },
    oauth,
    webhooks: core.webhooks.service,
    exports: core.exports.service,
    enterprise: { customEndpoints, compliance, licenses: core.licenses },
    sla: core.sla,
    metrics,
  });
  const metricsOnOwnPort =
    metrics === undefined || config.metricsPort === undefined
      ? undefined
      : metricsApp(metrics, config.metricsToken);
  await usage.restoreLimits();

  const jobs: Job[] = [
    intervalJob('keys.refresh', config.credentialRefreshMs, () => cache.refresh(), logger),
    intervalJob(
      'oauth.refresh',
      config.credentialRefreshMs,
      () => oauth.authority.refresh(),
      logger,
    ),
    intervalJob(
      'custom-endpoints.refresh',
      config.credentialRefreshMs,
      () => customEndpointRegistry.refresh(),
      logger,
    ),
    intervalJob('usage.flush', config.usageFlushMs, () => usage.recorder.flush(), logger, {
      atStop: () => usage.recorder.flush(),
    }),
    intervalJob('sla.flush', config.usageFlushMs, () => core.sla.counter.flush(), logger, {
      atStop: () => core.sla.counter.flush(),
    }),
    intervalJob('sla.heartbeat', config.slaHeartbeatMs, () => heartbeat.beat(), logger, {
      atStart: true,
      atStop: () => heartbeat.write().catch(() => undefined),
    }),
    closing('compliance.pdf', () => compliance.pdf.close()),
    closing('salary.renderer', () => renderer.close()),
    closing('http.access-log', () => accessLog?.stop()),
    // Refuses new requests, lets those in flight finish, closes the server.
    closing('http.serve', async () => {
      app.shutdown.refuse(app);
      await metricsOnOwnPort?.close();
      await app.close();
    }),
  ];

  return {
    app,
    oauth: oauth.authority,
    usage,
    heartbeat,
    quotaEndpoints,
    jobs,
    async listen(): Promise<string> {
      const address = await app.listen({
        port: config.port,
        host: config.host,
        listenTextResolver: listenText(config),
      });
      if (metricsOnOwnPort !== undefined) {
        await metricsOnOwnPort.listen({ port: config.metricsPort, host: '127.0.0.1' });
        logger.info({ port: config.metricsPort }, 'metrics served on the loopback address');
      }
      return address;
    },
    /** The first step of a graceful stop: requests already sent are read and answered. */
    drain: () => app.shutdown.drain(),
  };
}

export type Api = Awaited<ReturnType<typeof createApi>>;
