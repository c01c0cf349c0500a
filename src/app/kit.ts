import type { FastifyInstance } from 'fastify';
import type { CredentialResolver, Principal } from '../auth/index.js';
import { AppError } from '../errors/index.js';
import { authenticateByRoute, authenticator } from '../http/auth-hook.js';
import type { DownloadGate } from '../http/download-gate.js';
import { registerIdempotency } from '../http/idempotency.js';
import { echoed, sendProblem } from '../http/problem.js';
import { quotaByRoute } from '../http/quota.js';
import { observeResponses, type ResponseObserver } from '../http/responses.js';
import { hookList, onRoutesWith } from '../http/route-hooks.js';
import { ShutdownGate } from '../http/shutdown-gate.js';
import { decimalQuery, textGuard } from '../http/text-guard.js';
import type { Clock } from '../lib/clock.js';
import { DPOP_INVALID_TOKEN } from '../oauth/index.js';
import type { Plan } from '../plans/index.js';
import { PAGE_CSP } from '../site/index.js';
import type { Db } from '../store/index.js';
import type { QuotaEndpoints } from '../usage/index.js';

/** What the kit's hooks are given: every route's authentication, quota and bookkeeping. */
export interface KitDeps {
  /** Who a request's credential is (OAuth tokens, then keys and sessions). */
  readonly credentials: CredentialResolver;
  /** Filled with every route's declared quota cost (the limiter's floor from usage). */
  readonly quotaEndpoints: QuotaEndpoints | undefined;
  /** What every answered request is counted in, in order. */
  readonly observers: readonly ResponseObserver[];
  /** Large downloads at once per caller (`app.downloads`). */
  readonly downloads: DownloadGate;
  /** SECRET_KEY, resolved: keys idempotency's stored requests and the dashboard's tokens. */
  readonly secretKey: string;
  /** Idempotent POSTs: the database of their transaction, what to re-read after a rollback. */
  readonly idempotency: { db: Db; afterRollback: () => void };
}

/**
 * The kit's hooks, before any route: each request's arrival and id, the shutdown gate, the
 * observers of every answer, problem+json for every error and unknown route, authentication
 * and quota declared per route, the text and number guards, idempotency.
 */
export function registerKit(
  app: FastifyInstance,
  kit: KitDeps,
  context: { clock: Clock; free: Plan },
): void {
  observeResponses(app, context.clock, kit.observers);
  const shutdown = new ShutdownGate();
  shutdown.attach(app);
  app.decorate('shutdown', shutdown);
  app.decorate('downloads', kit.downloads);
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
    // The same URL answers a browser with the page: a cache must keep the two apart.
    if (allowed.length === 0 && app.notFoundPage !== undefined) reply.header('vary', 'Accept');
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

  authenticateByRoute(app, authenticator(kit.credentials, context.free, DPOP_INVALID_TOKEN));
  quotaByRoute(app, kit.quotaEndpoints);
  onRoutesWith(app, ['POST', 'PUT', 'PATCH'], (route) => {
    route.preValidation = [textGuard, ...hookList(route.preValidation)];
  });
  app.addHook('onRoute', (route) => {
    const guard = decimalQuery(route.schema?.querystring);
    if (guard !== undefined) route.preValidation = [guard, ...hookList(route.preValidation)];
  });
  registerIdempotency(app, {
    db: kit.idempotency.db,
    clock: context.clock,
    secretKey: kit.secretKey,
    afterRollback: kit.idempotency.afterRollback,
  });
}
