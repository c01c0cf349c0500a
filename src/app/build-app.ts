import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import {
  accountRoutes,
  AccountSchema,
  SessionSchema,
  type AccountService,
} from '../accounts/index.js';
import { usageKeyOf, type CredentialResolver, type Principal } from '../auth/index.js';
import { billingRoutes, billingSchemas, type SubscriptionService } from '../billing/index.js';
import {
  keyRoutes,
  KeySchema,
  NewKeySchema,
  type CredentialCache,
  type KeyService,
} from '../keys/index.js';
import {
  NewOAuthClientSchema,
  OAuthClientSchema,
  oauthClientRoutes,
  oauthServerRoutes,
  DPOP_INVALID_TOKEN,
  type OAuthClientService,
  type OAuthCredentialResolver,
  type OAuthTokenService,
} from '../oauth/index.js';
import { metricsRoute, type Metrics } from '../metrics/index.js';
import type { Db } from '../store/index.js';
import { supportRoutes, type SupportService } from '../support/index.js';
import { webhookRoutes, webhookSchemas, type WebhookService } from '../webhooks/index.js';
import { exportRoutes, exportSchemas, type ExportService } from '../exports/index.js';
import {
  complianceRoutes,
  complianceSchemas,
  type AccessReviews,
  type ComplianceDocuments,
  type PdfPool,
} from '../compliance/index.js';
import {
  usageRoutes,
  type QuotaEndpoints,
  type UsageRecorder,
  type UsageService,
} from '../usage/index.js';
import { catalogRoutes } from '../catalog/index.js';
import { releaseRoutes, type ReleaseCatalog } from '../releases/index.js';
import { dashboardRoutes } from '../dashboard/index.js';
import { baseUrlOf, type Config } from '../config/index.js';
import { AppError } from '../errors/index.js';
import type { Clock } from '../lib/clock.js';
import { requestIdGenerator } from '../lib/ids.js';
import type { RateLimiter } from '../limits/index.js';
import type { Plan, PlanId } from '../plans/index.js';
import { RenderPool } from '../formats/index.js';
import {
  FileCache,
  salaryRoutes,
  type SalaryDataStore,
  type SalaryService,
} from '../salary/index.js';
import { slaRoutes, slaSchemas, type SlaParts } from '../sla/index.js';
import { AccessLog } from '../http/access-log.js';
import { clientErrorHandler, REQUEST_TIMEOUT_MS, TIMEOUT_CHECK_MS } from '../http/client-errors.js';
import { DownloadGate } from '../http/download-gate.js';
import { observeResponses, type ResponseObserver } from '../http/responses.js';
import { authenticateByRoute, authenticator } from '../http/auth-hook.js';
import { healthRoutes, type ReadinessCheck } from '../http/health-routes.js';
import { openApiOptions } from '../http/openapi.js';
import { ProblemSchema } from '../http/openapi-responses.js';
import { echoed, sendProblem } from '../http/problem.js';
import { quotaByRoute, routeQuotaSpender, quotaSpender } from '../http/quota.js';
import { registerIdempotency } from '../http/idempotency.js';
import { LazySchemas } from '../http/lazy-schemas.js';
import { hookList, onRoutesWith } from '../http/route-hooks.js';
import { ShutdownGate } from '../http/shutdown-gate.js';
import { bodyShapeProblem, decimalQuery, textGuard } from '../http/text-guard.js';
import {
  customEndpointRoutes,
  type CustomEndpointRegistry,
  type CustomEndpointService,
} from '../custom-endpoints/index.js';
import { licenseeDocuments, licenseRoutes, type LicenseRegistry } from '../licensing/index.js';
import { createSalaryResponder } from '../salary/index.js';
import { createPayPositionService, positionRoutes } from '../salary/index.js';
import { mcpRoutes } from '../mcp/index.js';
import { PAGE_CSP, siteRoutes } from '../site/index.js';

import '../http/route-config.js';

export interface AppDeps {
  config: Config;
  clock: Clock;
  plans: Readonly<Record<PlanId, Plan>>;
  limiter: RateLimiter;
  credentials: CredentialResolver;
  data: SalaryDataStore;
  salary: SalaryService;
  /** The kept data releases and what changed between them. */
  releaseCatalog: ReleaseCatalog;
  readiness: readonly ReadinessCheck[];
  db: Db;
  accounts: AccountService;
  cache: CredentialCache;
  keys: KeyService;
  subscriptions: SubscriptionService;
  usage: UsageService;
  recorder: UsageRecorder;
  webhooks: WebhookService;
  support: SupportService;
  exports: ExportService;
  oauthClients: OAuthClientService;
  oauthTokens: OAuthTokenService;
  oauthAuthority: OAuthCredentialResolver;
  /** SECRET_KEY (resolved): keys the stored idempotency digests and responses. */
  secretKey: string;
  /** Request counts and latency; `/metrics` on this port when METRICS_TOKEN is set. */
  metrics?: Metrics;
  /** The process logger (pino); none when omitted (tests). */
  logger?: FastifyBaseLogger;
  /** Uptime SLA: counting, the customer's report, the status page (docs/sla.md). */
  sla?: SlaParts;
  /** Compliance documents and access reviews (Enterprise), their PDFs made in worker threads. */
  compliance: { documents: ComplianceDocuments; reviews: AccessReviews; pdf: PdfPool };
  /** Enterprise custom endpoints: their definitions, and all of them in memory. */
  customEndpoints: CustomEndpointService;
  customEndpointRegistry: CustomEndpointRegistry;
  /** Data licences and licensees' host names, in memory. */
  licenses: LicenseRegistry;
  /** Filled with every route's declared quota cost (the Redis limiter's reconciliation floor). */
  quotaEndpoints?: QuotaEndpoints;
}

const API_PREFIX = '/api/v1/';

/** Ajv as the routes validate with: query strings are coerced (`year=2024` is a number). */
const AJV_OPTIONS = {
  customOptions: { removeAdditional: false, coerceTypes: true, allErrors: true },
  plugins: [],
};

/** Builds the HTTP application (no listening): routes, hooks, error rendering, OpenAPI. */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config } = deps;
  const nextRequestId = requestIdGenerator();
  const authenticate = authenticator(deps.credentials, deps.plans.free, DPOP_INVALID_TOKEN);
  const metrics = deps.metrics;
  const spendQuota = quotaSpender(
    deps.limiter,
    deps.clock,
    metrics && ((plan, outcome) => metrics.limitDecision(plan, outcome)),
  );
  const accessLog =
    config.accessLog && deps.logger !== undefined ? new AccessLog(deps.logger) : undefined;
  const schemas = new LazySchemas();
  const app = Fastify({
    ...(deps.logger === undefined ? { logger: false } : { loggerInstance: deps.logger }),
    genReqId: nextRequestId,
    // request.log is the process logger itself, not a child per request (a child serializes its
    // bindings on every request): the few lines written about a request name its request_id.
    childLoggerFactory: (logger) => logger,
    // Fastify's own per-request lines are off: the access log writes one line per request.
    logController: new LogController({
      disableRequestLogging: true,
      requestIdLogLabel: 'request_id',
    }),
    trustProxy: config.trustProxy.length > 0 ? [...config.trustProxy] : false,
    bodyLimit: 1_048_576,
    // Requests arriving while the server closes are answered by the shutdown gate (503 problem).
    return503OnClosing: false,
    // A request's headers and body must all arrive in time; unreadable ones get a problem too.
    requestTimeout: REQUEST_TIMEOUT_MS,
    http: {
      connectionsCheckingInterval: TIMEOUT_CHECK_MS,
      requestTimeout: REQUEST_TIMEOUT_MS,
      headersTimeout: REQUEST_TIMEOUT_MS,
    },
    clientErrorHandler: clientErrorHandler(accessLog),
    forceCloseConnections: 'idle',
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    ajv: AJV_OPTIONS,
    schemaController: schemas.controller,
    frameworkErrors: (error, request, reply) => {
      void sendProblem(
        new AppError(
          'INVALID_PARAMETER',
          `The request could not be parsed: ${echoed(error.message)}`,
        ),
        request,
        reply,
      );
    },
  }).withTypeProvider<TypeBoxTypeProvider>();
  // Fastify's JSON parser (prototype poisoning refused), then depth and size limits: nothing
  // after it walks a body deeper or wider than any request of this API.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  // Bodies are JSON (and a form on the OAuth endpoints): text is a 415, not a string to validate.
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    void parseJson(request, body as string, (error: Error | null, value?: unknown) => {
      if (error !== null) {
        done(error, undefined);
        return;
      }
      const problem = bodyShapeProblem(value);
      if (problem !== undefined)
        done(new AppError('INVALID_BODY', `The request body ${problem}.`), undefined);
      else done(null, value);
    });
  });
  // The first hooks of every request: its arrival and id, then the shutdown gate.
  observeResponses(app, deps.clock, responseObservers(deps, accessLog));
  const shutdown = new ShutdownGate();
  shutdown.attach(app);
  app.decorate('shutdown', shutdown);
  app.decorate('compileSchemas', () => schemas.compileAll());
  if (accessLog !== undefined) app.addHook('onClose', (_app, done) => (accessLog.stop(), done()));

  for (const schema of [
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
  ]) {
    app.addSchema(schema);
  }
  app.decorateRequest('principal', null as unknown as Principal);
  app.setErrorHandler((error, request, reply) => sendProblem(error, request, reply));
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    const allowed = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].filter((method) =>
      app.hasRoute({ method, url: path }),
    );
    const html = allowed.length > 0 ? null : (app.notFoundPage?.(request) ?? null);
    if (html !== null)
      return reply
        .code(404)
        .headers({
          'content-type': 'text/html; charset=utf-8',
          'content-security-policy': PAGE_CSP,
          'cache-control': 'no-store',
          vary: 'Accept',
        })
        .send(html);
    const error =
      allowed.length > 0
        ? new AppError(
            'METHOD_NOT_ALLOWED',
            `${path} does not accept ${request.method}; it accepts ${allowed.join(', ')}.`,
            {
              headers: { allow: allowed.join(', ') },
              extensions: { allowed_methods: allowed },
            },
          )
        : new AppError(
            'NOT_FOUND',
            `There is no ${request.method} ${echoed(path)}; see /api/v1/openapi.json.`,
          );
    return sendProblem(error, request, reply);
  });

  authenticateByRoute(app, authenticate);
  quotaByRoute(app, deps.quotaEndpoints);
  onRoutesWith(app, ['POST', 'PUT', 'PATCH'], (route) => {
    route.preValidation = [textGuard, ...hookList(route.preValidation)];
  });
  app.addHook('onRoute', (route) => {
    const guard = decimalQuery(route.schema?.querystring);
    if (guard !== undefined) route.preValidation = [guard, ...hookList(route.preValidation)];
  });
  registerIdempotency(app, {
    db: deps.db,
    clock: deps.clock,
    secretKey: deps.secretKey,
    afterRollback: () => {
      deps.cache
        .load()
        .catch((error: unknown) =>
          deps.logger?.warn({ err: error }, 'credential reload after a rollback failed'),
        );
      deps.customEndpointRegistry
        .reload()
        .catch((error: unknown) =>
          deps.logger?.warn({ err: error }, 'custom endpoint reload after a rollback failed'),
        );
    },
  });

  licenseeDocuments(app, deps.licenses);
  await app.register(swagger, openApiOptions(config));

  const spendRouteQuota = routeQuotaSpender(spendQuota);
  await app.register(healthRoutes, {
    checks: deps.readiness,
    release: () => deps.data.index?.release.version ?? null,
  });
  await app.register(siteRoutes, {
    ...deps,
    publicBaseUrl: config.publicBaseUrl?.replace(/\/$/, ''),
    legal: { seller: config.seller, supportEmail: config.supportEmail, files: config.legalFiles },
    contacts: {
      supportEmail: config.supportEmail,
      salesEmail: config.salesEmail,
      communityUrl: config.communityUrl,
    },
  });
  await app.register(catalogRoutes, { spendRouteQuota });
  await app.register(releaseRoutes, { catalog: deps.releaseCatalog, spendRouteQuota });
  const downloads = new DownloadGate();
  app.decorate('downloads', downloads);
  const renderer = new RenderPool();
  app.addHook('onClose', () => renderer.close());
  const files = new FileCache();
  const labelling = (accountId: string | null) => deps.licenses.labelling(accountId);
  await app.register(salaryRoutes, {
    salary: deps.salary,
    spendRouteQuota,
    downloads,
    renderer,
    files,
    labelling,
  });
  await app.register(positionRoutes, {
    positions: createPayPositionService({ salary: deps.salary, plans: deps.plans }),
    spendRouteQuota,
    labelling,
  });
  await app.register(accountRoutes, {
    accounts: deps.accounts,
    clock: deps.clock,
    plans: deps.plans,
    supportOf: (account) => deps.support.supportOf(account),
  });
  await app.register(keyRoutes, { keys: deps.keys });
  await app.register(billingRoutes, { subscriptions: deps.subscriptions });
  await app.register(usageRoutes, { usage: deps.usage });
  await app.register(webhookRoutes, { webhooks: deps.webhooks });
  await app.register(oauthClientRoutes, { clients: deps.oauthClients });
  await app.register(oauthServerRoutes, {
    tokens: deps.oauthTokens,
    authority: deps.oauthAuthority,
  });
  if (deps.metrics !== undefined && config.metricsToken !== undefined)
    metricsRoute(app, deps.metrics, config.metricsToken);
  await app.register(supportRoutes, { support: deps.support });
  await app.register(exportRoutes, { exports: deps.exports });
  if (deps.sla !== undefined)
    await app.register(slaRoutes, {
      sla: deps.sla.service,
      status: deps.sla.status,
      clock: deps.clock,
      plans: deps.plans,
    });
  await app.register(complianceRoutes, deps.compliance);
  app.addHook('onClose', () => deps.compliance.pdf.close());
  await app.register(customEndpointRoutes, {
    service: deps.customEndpoints,
    registry: deps.customEndpointRegistry,
    responder: createSalaryResponder({
      salary: deps.salary,
      spendRouteQuota,
      downloads,
      renderer,
      files,
      labelling,
    }),
    data: deps.data,
    plans: deps.plans,
    baseUrl: baseUrlOf(config),
    label: (accountId) => {
      const license = deps.licenses.license(accountId);
      return license === undefined
        ? null
        : { licensee: license.licensee, whiteLabel: license.whiteLabel };
    },
  });
  await app.register(licenseRoutes, { registry: deps.licenses, clock: deps.clock });
  await app.register(mcpRoutes, {
    salary: deps.salary,
    plans: deps.plans,
    labelling,
    spendQuota,
    recorder: deps.recorder,
    clock: deps.clock,
    quotaEndpoints: deps.quotaEndpoints,
    sla: deps.sla?.counter,
    baseUrl: baseUrlOf(config),
    publicBaseUrl: config.publicBaseUrl,
    loopback:
      config.host === 'localhost' || config.host === '::1' || config.host.startsWith('127.'),
    limiter: deps.limiter,
    authorizationServer: deps.oauthAuthority.issuer,
  });
  // The customer dashboard: server-rendered pages over the same services.
  await app.register(dashboardRoutes, {
    accounts: deps.accounts,
    cache: deps.cache,
    keys: deps.keys,
    usage: deps.usage,
    subscriptions: deps.subscriptions,
    webhooks: deps.webhooks,
    plans: deps.plans,
    clock: deps.clock,
    secretKey: deps.secretKey,
    ...(deps.sla === undefined ? {} : { sla: deps.sla.service }),
    support: deps.support,
    oauthClients: deps.oauthClients,
    exports: deps.exports,
    customEndpoints: deps.customEndpoints,
    compliance: deps.compliance,
    releases: deps.releaseCatalog,
  });
  app.get(
    '/api/v1/openapi.json',
    { schema: { hide: true }, config: { auth: { access: 'public' } } },
    async () => app.swagger(),
  );

  return app;
}

/**
 * What every answered request is counted in, in this order: usage and the SLA's counts (API
 * routes only, live callers only), the request metrics, the access line.
 */
function responseObservers(deps: AppDeps, accessLog: AccessLog | undefined): ResponseObserver[] {
  const observers: ResponseObserver[] = [
    (a) => {
      if (!a.route.startsWith(API_PREFIX) && !a.url.startsWith(API_PREFIX)) return;
      // Test-mode keys are outside usage, billing and the SLA (docs/test-mode.md).
      if (a.principal?.mode === 'test') return;
      const accountId = a.principal?.accountId ?? null;
      deps.recorder.record(accountId, usageKeyOf(a.principal), a.endpoint, a.status, a.at);
      deps.sla?.counter.count(accountId, a.status, a.at, a.timed ? a.ms : undefined);
    },
  ];
  const metrics = deps.metrics;
  if (metrics !== undefined)
    observers.push((a) => metrics.requests(a.method, a.route)(a.status, a.elapsedMs / 1000));
  if (accessLog !== undefined) {
    observers.push((a) =>
      accessLog.write({
        requestId: a.requestId,
        method: a.method,
        url: a.url,
        status: a.status,
        ms: a.elapsedMs,
        ip: a.ip,
        accountId: a.principal?.accountId ?? null,
      }),
    );
  }
  return observers;
}
