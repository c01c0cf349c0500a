import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyServerFactory,
} from 'fastify';
import { accountRoutes, AccountSchema, SessionSchema } from '../accounts/routes.js';
import type { AccountService } from '../accounts/index.js';
import {
  usageKeyOf,
  type CredentialResolver,
  type Principal,
  type RouteAuth,
} from '../auth/index.js';
import { billingRoutes, billingSchemas } from '../billing/routes.js';
import type { SubscriptionService } from '../billing/index.js';
import type { CredentialCache, KeyService } from '../keys/index.js';
import { keyRoutes, KeySchema, NewKeySchema } from '../keys/routes.js';
import {
  NewOAuthClientSchema,
  OAuthClientSchema,
  oauthClientRoutes,
  oauthServerRoutes,
  type OAuthClientService,
  type OAuthTokenAuthority,
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
import { dashboardRoutes } from '../dashboard/index.js';
import { baseUrlOf, type Config } from '../config/index.js';
import { AppError } from '../errors/index.js';
import type { Clock } from '../lib/clock.js';
import { requestIdGenerator } from '../lib/ids.js';
import type { RateLimiter } from '../limits/index.js';
import type { Plan, PlanId } from '../plans/index.js';
import { RenderPool } from '../formats/index.js';
import {
  DownloadGate,
  FileCache,
  salaryRoutes,
  type SalaryDataStore,
  type SalaryService,
} from '../salary/index.js';
import { slaRoutes, slaSchemas, type SlaParts } from '../sla/index.js';
import { AccessLog } from './access-log.js';
import { authenticateByRoute, authenticator } from './auth-hook.js';
import { AJV_OPTIONS, FastLookup } from './fast-lookup.js';
import { lookupServer } from './lookup-server.js';
import { healthRoutes, type ReadinessCheck } from './health-routes.js';
import { openApiOptions } from './openapi.js';
import { ProblemSchema } from './openapi-responses.js';
import { echoed, sendProblem } from './problem.js';
import { quotaByRoute, quotaEnforcer, quotaSpender, type QuotaDeclaration } from './quota.js';
import { registerIdempotency } from './idempotency.js';
import { hookList, onRoutesWith } from './route-hooks.js';
import { bodyShapeProblem, finiteQuery, textGuard } from './text-guard.js';
import {
  customEndpointRoutes,
  type CustomEndpointRegistry,
  type CustomEndpointService,
} from '../custom-endpoints/index.js';
import { licenseeDocuments, licenseRoutes, type LicenseRegistry } from '../licensing/index.js';
import { createSalaryResponder } from '../salary/index.js';
import { siteRoutes } from '../site/index.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Who may call the route; required under /api/ (see authenticateByRoute). */
    auth?: RouteAuth;
    /**
     * The plan feature the route needs beyond its scope (403 FEATURE_NOT_IN_PLAN without it);
     * every path that answers the route (the Fastify handler, the lookup fast path) reads it.
     */
    planFeature?: 'bulk';
    /**
     * What one admitted request of the route spends of the caller's quota; required on the data
     * routes, absent elsewhere (see quotaByRoute). Every path that answers the route reads it.
     */
    quota?: QuotaDeclaration;
    /**
     * false: a POST route outside Idempotency-Key handling (the OAuth endpoints: each request
     * authenticates the client, and a stored answer must never go to another caller).
     */
    idempotency?: false;
  }
  interface FastifyRequest {
    principal: Principal;
  }
  interface FastifyInstance {
    /** The lookup fast path in front of Fastify; absent with LOOKUP_FAST_PATH=false. */
    fastLookup?: FastLookup;
    /** The cap on large files generated at once. */
    downloads: DownloadGate;
  }
}

export interface AppDeps {
  config: Config;
  clock: Clock;
  plans: Readonly<Record<PlanId, Plan>>;
  limiter: RateLimiter;
  credentials: CredentialResolver;
  data: SalaryDataStore;
  salary: SalaryService;
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
  oauthAuthority: OAuthTokenAuthority;
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

/** Builds the HTTP application (no listening): routes, hooks, error rendering, OpenAPI. */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config } = deps;
  const nextRequestId = requestIdGenerator();
  const authenticate = authenticator(deps.credentials, deps.plans.free);
  const spendQuota = quotaSpender(deps.limiter, deps.clock, deps.metrics);
  const accessLog =
    config.accessLog && deps.logger !== undefined ? new AccessLog(deps.logger) : undefined;
  const fastLookup = config.lookupFastPath
    ? new FastLookup({
        salary: deps.salary,
        data: deps.data,
        authenticate,
        spendQuota,
        recorder: deps.recorder,
        clock: deps.clock,
        nextRequestId,
        trustProxy: config.trustProxy,
        accessLog,
        metrics: deps.metrics,
        slaCount: deps.sla?.counter.countFn,
        ownAnswer: (principal) => deps.licenses.labelling(principal.accountId) !== null,
      })
    : undefined;
  const serverFactory: FastifyServerFactory | undefined =
    fastLookup && ((handler, options) => lookupServer(fastLookup, handler, options));
  const app = Fastify({
    ...(deps.logger === undefined ? { logger: false } : { loggerInstance: deps.logger }),
    serverFactory,
    genReqId: nextRequestId,
    // Fastify's own per-request lines are off: the onResponse hook below writes one line.
    logController: new LogController({
      disableRequestLogging: true,
      requestIdLogLabel: 'request_id',
    }),
    trustProxy: config.trustProxy.length > 0 ? [...config.trustProxy] : false,
    bodyLimit: 1_048_576,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    ajv: AJV_OPTIONS,
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
  app.removeContentTypeParser('application/json');
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
  if (fastLookup !== undefined) {
    app.decorate('fastLookup', fastLookup);
    // Routes registered from here on that declare `cheapPath` are also served by the fast path.
    app.addHook('onRoute', (route) => fastLookup.addRoute(route));
    app.addHook('preClose', (done) => {
      fastLookup.close();
      done();
    });
  }
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

  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  authenticateByRoute(app, authenticate);
  quotaByRoute(app, deps.quotaEndpoints);
  // One callback-style hook (no promise per request) for usage counting and the access log.
  app.addHook('onResponse', (request, reply, done) => {
    const principal = request.principal as Principal | null;
    if ((request.routeOptions.url ?? request.url).startsWith(API_PREFIX)) {
      deps.recorder.record(
        principal?.accountId ?? null,
        usageKeyOf(principal),
        request.usageEndpoint ?? `${request.method} ${request.routeOptions.url ?? '(unmatched)'}`,
        reply.statusCode,
        deps.clock.now(),
      );
      deps.sla?.counter.count(
        principal?.accountId ?? null,
        reply.statusCode,
        deps.clock.now(),
        reply.elapsedTime,
      );
    }
    deps.metrics?.requests(request.method, request.routeOptions.url ?? '(unmatched)')(
      reply.statusCode,
      reply.elapsedTime / 1000,
    );
    accessLog?.write({
      requestId: request.id,
      method: request.method,
      url: request.url,
      status: reply.statusCode,
      ms: reply.elapsedTime,
      ip: request.ip,
      accountId: principal?.accountId ?? null,
    });
    done();
  });
  onRoutesWith(app, ['POST', 'PUT', 'PATCH'], (route) => {
    route.preValidation = [textGuard, ...hookList(route.preValidation)];
  });
  app.addHook('onRoute', (route) => {
    if (route.schema?.querystring !== undefined)
      route.preHandler = [finiteQuery, ...hookList(route.preHandler)];
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

  const consumeQuota = quotaEnforcer(spendQuota);
  await app.register(healthRoutes, { checks: deps.readiness, data: deps.data });
  await app.register(siteRoutes, {
    ...deps,
    publicBaseUrl: config.publicBaseUrl?.replace(/\/$/, ''),
  });
  await app.register(catalogRoutes, { consumeQuota });
  const downloads = new DownloadGate();
  app.decorate('downloads', downloads);
  const renderer = new RenderPool();
  app.addHook('onClose', () => renderer.close());
  const files = new FileCache();
  const labelling = (accountId: string | null) => deps.licenses.labelling(accountId);
  await app.register(salaryRoutes, {
    salary: deps.salary,
    consumeQuota,
    downloads,
    renderer,
    files,
    labelling,
  });
  await app.register(accountRoutes, {
    accounts: deps.accounts,
    db: deps.db,
    clock: deps.clock,
    cache: deps.cache,
    plans: deps.plans,
    supportOf: (account) => deps.support.supportOf(account),
  });
  await app.register(keyRoutes, { keys: deps.keys });
  await app.register(billingRoutes, { subscriptions: deps.subscriptions, db: deps.db });
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
      db: deps.db,
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
      consumeQuota,
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
  // The customer dashboard (issue 14): server-rendered pages over the same services.
  await app.register(dashboardRoutes, {
    accounts: deps.accounts,
    cache: deps.cache,
    keys: deps.keys,
    usage: deps.usage,
    subscriptions: deps.subscriptions,
    webhooks: deps.webhooks,
    plans: deps.plans,
    clock: deps.clock,
    db: deps.db,
    secretKey: deps.secretKey,
    ...(deps.sla === undefined ? {} : { sla: deps.sla.service }),
    support: deps.support,
    oauthClients: deps.oauthClients,
  });
  app.get(
    '/api/v1/openapi.json',
    { schema: { hide: true }, config: { auth: { access: 'public' } } },
    async () => app.swagger(),
  );

  return app;
}
