import { buildApp } from '../app/build-app.js';
import { createAccessReviews, createComplianceDocuments, PdfPool } from '../compliance/index.js';
import { CustomEndpointRegistry, createCustomEndpointService } from '../custom-endpoints/index.js';
import { databaseCheck, redisCheck } from '../http/readiness-checks.js';
import { touchKeys } from '../keys/index.js';
import { createSecretBox } from '../lib/secret-box.js';
import { RedisRateLimiter, MemoryRateLimiter } from '../limits/index.js';
import { MCP_PATH } from '../mcp/index.js';
import { metricsApp, registerSources } from '../metrics/index.js';
import {
  createOAuthClientService,
  createOAuthTokenService,
  DpopNonces,
  DpopProofs,
  memoryReplayGuard,
  OAuthCredentialResolver,
  redisReplayGuard,
} from '../oauth/index.js';
import { Heartbeat } from '../sla/index.js';
import { pingDatabase } from '../store/index.js';
import { createSupportService } from '../support/index.js';
import {
  AddressCounts,
  admittedFromUsage,
  createUsageService,
  seedFromUsage,
  UsageRecorder,
} from '../usage/index.js';
import { outboxState } from '../webhooks/index.js';
import type { Core } from './core.js';
import { listenText } from './startup-line.js';

/**
 * The API role: the HTTP application and what answering requests needs in memory (credentials,
 * OAuth clients and keys, custom endpoints), the usage and SLA counts flushed in batches, the
 * heartbeat, the metrics port.
 */
export async function createApi(core: Core) {
  const { config, clock, logger, db, shared, limiter, services, plans, metrics } = core;
  const { cache } = services;
  const oauth = new OAuthCredentialResolver({
    db,
    clock,
    box: createSecretBox(core.secretKey, 'oauth-signing-keys'),
    logger,
    issuer: core.issuer,
    resources: [
      { uri: `${core.issuer}/api/v1`, path: '/api/v1' },
      { uri: `${core.issuer}${MCP_PATH}`, path: MCP_PATH },
    ],
    lifetimeS: config.oauthTokenTtlSeconds,
    account: (id) => cache.account(id),
    fallback: cache,
    // DPoP proofs: a proof's jti is refused again on every instance when Redis is shared.
    dpop: new DpopProofs({
      clock,
      issuer: core.issuer,
      nonces: new DpopNonces(core.secretKey, config.dpopNonce),
      replay:
        shared === undefined
          ? memoryReplayGuard()
          : redisReplayGuard(shared.redis, config.redisKeyPrefix),
    }),
    ...(services.announce === undefined ? {} : { onChange: services.announce }),
  });
  await oauth.load();
  oauth.watch(config.credentialRefreshMs);
  cache.watch(config.credentialRefreshMs);
  // Custom endpoints (Enterprise): in memory, re-read when announced.
  const customEndpointRegistry = new CustomEndpointRegistry({ db, logger });
  await customEndpointRegistry.load();
  customEndpointRegistry.watch(config.credentialRefreshMs);
  core.onTopic('credentials', () => oauth.refresh());
  core.onTopic('enterprise', () => customEndpointRegistry.refresh());

  // Without Redis, anonymous callers' counts are kept in the database too (across a restart).
  const addressCounts =
    limiter instanceof MemoryRateLimiter
      ? new AddressCounts({ clock, limiter, secretKey: core.secretKey })
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
  const { quotaEndpoints } = core;
  if (limiter instanceof RedisRateLimiter)
    limiter.reconcileWith(admittedFromUsage(db, recorder, quotaEndpoints));
  core.sla.counter.start(config.usageFlushMs);
  const heartbeat = new Heartbeat({
    db,
    clock,
    logger,
    instanceId: core.slaHolder,
    countersInProcess: limiter instanceof MemoryRateLimiter,
  });
  if (config.slaHeartbeatMs > 0) heartbeat.start(config.slaHeartbeatMs);

  if (metrics !== undefined) {
    registerSources(metrics, {
      release: () => core.data.index?.release.version,
      credentials: () => cache.stats(),
      outbox: () => outboxState(db, new Date(clock.now())),
      usageFlushLagMs: () => Date.now() - recorder.flushedAt,
      database: () => pingDatabase(db),
      ...(shared === undefined ? {} : { redis: () => shared.redis.ping() }),
    });
  }
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
    data: core.data,
    salary: core.salary,
    releaseCatalog: core.releaseCatalog,
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
    webhooks: core.webhooks,
    support: createSupportService({
      db,
      clock,
      plans,
      limiter,
      supportEmail: config.supportEmail,
      communityUrl: config.communityUrl,
    }),
    exports: core.exports,
    oauthClients: createOAuthClientService({ db, clock, plans, authority: oauth }),
    oauthTokens: createOAuthTokenService({
      db,
      clock,
      limiter,
      authority: oauth,
      lifetimeS: config.oauthTokenTtlSeconds,
    }),
    oauthAuthority: oauth,
    secretKey: core.secretKey,
    customEndpoints: createCustomEndpointService({
      db,
      clock,
      plans,
      registry: customEndpointRegistry,
      ...(shared === undefined ? {} : { announce: () => void shared.bus.publish('enterprise') }),
    }),
    customEndpointRegistry,
    licenses: core.licenses,
    ...(metrics === undefined ? {} : { metrics }),
    sla: core.sla,
    compliance,
  });
  const metricsOnOwnPort =
    metrics === undefined || config.metricsPort === undefined
      ? undefined
      : metricsApp(metrics, config.metricsToken);
  // The routes are registered (their quota costs known): an in-process limiter starts from what
  // today's usage already spent, not from zero.
  if (limiter instanceof MemoryRateLimiter) {
    const seeded = await seedFromUsage(db, quotaEndpoints, limiter, clock.now());
    if (seeded > 0) logger.info({ accounts: seeded }, "limit counters raised to today's usage");
    const addresses = await addressCounts?.seed(db);
    if (addresses !== undefined && addresses > 0)
      logger.info({ addresses }, 'anonymous limit counters kept from before the restart');
  }

  return {
    app,
    recorder,
    oauth,
    heartbeat,
    quotaEndpoints,
    customEndpointRegistry,
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
    /** Refuses new requests, closes the server, then writes the counts it still holds. */
    async close(): Promise<void> {
      heartbeat.stop();
      core.sla.counter.stop();
      customEndpointRegistry.stop();
      oauth.stop();
      recorder.stop();
      app.shutdown.refuse(app);
      await metricsOnOwnPort?.close();
      await app.close();
      await recorder.flush();
      await core.sla.counter.flush();
      await heartbeat.write().catch(() => undefined);
    },
  };
}

export type Api = Awaited<ReturnType<typeof createApi>>;
