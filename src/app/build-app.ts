import swagger from '@fastify/swagger';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import {
  accountRoutes,
  AccountSchema,
  SessionSchema,
  type AccountService,
} from '../accounts/index.js';
import { billingRoutes, billingSchemas, type SubscriptionService } from '../billing/index.js';
import { catalogRoutes } from '../catalog/index.js';
import { complianceRoutes, complianceSchemas, type ComplianceParts } from '../compliance/index.js';
import { baseUrlOf, type Config } from '../config/index.js';
import {
  customEndpointRoutes,
  type CustomEndpointRegistry,
  type CustomEndpointService,
} from '../custom-endpoints/index.js';
import { dashboardRoutes } from '../dashboard/index.js';
import { exportRoutes, exportSchemas, type ExportService } from '../exports/index.js';
import type { AccessLog } from '../http/access-log.js';
import { healthRoutes, type ReadinessCheck } from '../http/health-routes.js';
import { openApiOptions } from '../http/openapi.js';
import { ProblemSchema } from '../http/openapi-responses.js';
import type { SpendRouteQuota, SpendQuota } from '../http/quota.js';
import {
  keyRoutes,
  KeySchema,
  NewKeySchema,
  type CredentialCache,
  type KeyService,
} from '../keys/index.js';
import type { Clock } from '../lib/clock.js';
import type { RateLimiter } from '../limits/index.js';
import { licenseeDocuments, licenseRoutes, type LicenseRegistry } from '../licensing/index.js';
import { mcpRoutes } from '../mcp/index.js';
import { metricsRoute, type Metrics } from '../metrics/index.js';
import {
  NewOAuthClientSchema,
  OAuthClientSchema,
  oauthClientRoutes,
  oauthServerRoutes,
  type OAuthParts,
} from '../oauth/index.js';
import type { Plan, PlanId } from '../plans/index.js';
import { releaseRoutes, type ReleaseCatalog } from '../releases/index.js';
import {
  positionRoutes,
  salaryRoutes,
  type PayPositionService,
  type SalaryDataStore,
  type SalaryResponder,
  type SalaryService,
} from '../salary/index.js';
import { siteRoutes, siteSettings } from '../site/index.js';
import { slaRoutes, slaSchemas, type SlaParts } from '../sla/index.js';
import { supportRoutes, type SupportService } from '../support/index.js';
import { usageRoutes, type UsageRecorder, type UsageService } from '../usage/index.js';
import { webhookRoutes, webhookSchemas, type WebhookService } from '../webhooks/index.js';
import { registerKit, type KitDeps } from './kit.js';
import { createFastify } from './server.js';

import '../http/route-config.js';

/** The figures: the release in memory and what answers from it. */
export interface DataParts {
  readonly store: SalaryDataStore;
  readonly salary: SalaryService;
  readonly positions: PayPositionService;
  /** Answers a selection in every format: the salary routes' and the custom endpoints'. */
  readonly responder: SalaryResponder;
  /** The kept data releases and what changed between them. */
  readonly releases: ReleaseCatalog;
}

/** What an account manages of its own. */
export interface AccountParts {
  readonly accounts: AccountService;
  /** The in-memory credential view (sessions resolved without a database round trip). */
  readonly cache: CredentialCache;
  readonly keys: KeyService;
  readonly subscriptions: SubscriptionService;
  readonly support: SupportService;
  readonly usage: { readonly recorder: UsageRecorder; readonly service: UsageService };
}

/** What Enterprise contracts add: custom endpoints, compliance documents, data licences. */
export interface EnterpriseParts {
  readonly customEndpoints: {
    readonly service: CustomEndpointService;
    readonly registry: CustomEndpointRegistry;
  };
  readonly compliance: ComplianceParts;
  readonly licenses: LicenseRegistry;
}

/** The kit's hooks and what the routes share of it. */
export interface AppKit extends KitDeps {
  /** Spends a request's quota: the handlers' (`spendRouteQuota`) and the MCP tools'. */
  readonly spendQuota: SpendQuota;
  readonly spendRouteQuota: SpendRouteQuota;
  /** The shared limiter (the MCP transport's own allowance per address). */
  readonly limiter: RateLimiter;
  readonly readiness: readonly ReadinessCheck[];
  /** One line per answered request (ACCESS_LOG); also those of bytes that were no request. */
  readonly accessLog: AccessLog | undefined;
}

export interface AppDeps {
  readonly config: Config;
  readonly clock: Clock;
  /** The process logger (pino); none when omitted (tests). */
  readonly logger: FastifyBaseLogger | undefined;
  readonly plans: Readonly<Record<PlanId, Plan>>;
  readonly kit: AppKit;
  readonly data: DataParts;
  readonly accounts: AccountParts;
  readonly oauth: OAuthParts;
  readonly webhooks: WebhookService;
  readonly exports: ExportService;
  readonly enterprise: EnterpriseParts;
  /** Uptime SLA: counting, the customer's report, the status page (docs/sla.md). */
  readonly sla: SlaParts;
  /** Request counts and latency; `/metrics` on this port when METRICS_TOKEN is set. */
  readonly metrics: Metrics | undefined;
}

/** Schemas the routes of several features refer to by `$ref`. */
const SHARED_SCHEMAS = [
  ProblemSchema,
  AccountSchema,
  SessionSchema,
  KeySchema,
  NewKeySchema,
  OAuthClientSchema,
  NewOAuthClientSchema,
  ...billingSchemas,
  ...webhookSchemas,
  ...exportSchemas,
  ...slaSchemas,
  ...complianceSchemas,
];

/**
 * Builds the HTTP application (no listening): the kit's hooks, then every feature's routes, each
 * given its own feature's parts; the dashboard last.
 */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config, clock, plans, kit, data, accounts, oauth, enterprise, sla, metrics } = deps;
  const { spendRouteQuota } = kit;
  const baseUrl = baseUrlOf(config);
  const app = createFastify({
    logger: deps.logger,
    trustProxy: config.trustProxy,
    accessLog: kit.accessLog,
  });
  registerKit(app, kit, { clock, free: plans.free });
  for (const schema of SHARED_SCHEMAS) app.addSchema(schema);
  licenseeDocuments(app, enterprise.licenses);
  await app.register(swagger, openApiOptions(config));

  await app.register(healthRoutes, {
    checks: kit.readiness,
    release: () => data.store.index?.release.version ?? null,
  });
  await app.register(siteRoutes, {
    ...siteSettings(config),
    plans,
    salary: data.salary,
    data: data.store,
    releaseCatalog: data.releases,
    licenses: enterprise.licenses,
    sla,
  });
  await app.register(catalogRoutes, { spendRouteQuota });
  await app.register(releaseRoutes, { catalog: data.releases, spendRouteQuota });
  await app.register(salaryRoutes, { responder: data.responder });
  await app.register(positionRoutes, {
    positions: data.positions,
    spendRouteQuota,
    labelling: enterprise.licenses.labelling,
  });
  await app.register(accountRoutes, {
    accounts: accounts.accounts,
    clock,
    plans,
    supportOf: (account) => accounts.support.supportOf(account),
  });
  await app.register(keyRoutes, { keys: accounts.keys });
  await app.register(billingRoutes, { subscriptions: accounts.subscriptions });
  await app.register(usageRoutes, { usage: accounts.usage.service });
  await app.register(webhookRoutes, { webhooks: deps.webhooks });
  await app.register(oauthClientRoutes, { clients: oauth.clients });
  await app.register(oauthServerRoutes, { tokens: oauth.tokens, authority: oauth.authority });
  if (metrics !== undefined && config.metricsToken !== undefined)
    metricsRoute(app, metrics, config.metricsToken);
  await app.register(supportRoutes, { support: accounts.support });
  await app.register(exportRoutes, { exports: deps.exports });
  await app.register(slaRoutes, { sla: sla.service, status: sla.status, clock, plans });
  await app.register(complianceRoutes, enterprise.compliance);
  await app.register(customEndpointRoutes, {
    service: enterprise.customEndpoints.service,
    registry: enterprise.customEndpoints.registry,
    responder: data.responder,
    data: data.store,
    plans,
    baseUrl,
    label: enterprise.licenses.titleOf,
  });
  await app.register(licenseRoutes, { registry: enterprise.licenses, clock });
  await app.register(mcpRoutes, {
    salary: data.salary,
    plans,
    labelling: enterprise.licenses.labelling,
    spendQuota: kit.spendQuota,
    recorder: accounts.usage.recorder,
    clock,
    quotaEndpoints: kit.quotaEndpoints,
    sla: sla.counter,
    baseUrl,
    publicBaseUrl: config.publicBaseUrl,
    listenHost: config.host,
    limiter: kit.limiter,
    authorizationServer: oauth.authority.issuer,
  });
  // The customer dashboard: server-rendered pages over the same services.
  await app.register(dashboardRoutes, {
    accounts: accounts.accounts,
    cache: accounts.cache,
    keys: accounts.keys,
    usage: accounts.usage.service,
    subscriptions: accounts.subscriptions,
    webhooks: deps.webhooks,
    plans,
    clock,
    secretKey: kit.secretKey,
    support: accounts.support,
    planFeatures: {
      sla: sla.service,
      oauthClients: oauth.clients,
      exports: deps.exports,
      customEndpoints: enterprise.customEndpoints.service,
      compliance: enterprise.compliance,
    },
    releases: data.releases,
  });
  app.get(
    '/api/v1/openapi.json',
    { schema: { hide: true }, config: { auth: { access: 'public' } } },
    async () => app.swagger(),
  );

  return app;
}
