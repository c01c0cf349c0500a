import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { LogController, type FastifyBaseLogger } from 'fastify';
import { AppError } from '../errors/index.js';
import type { AccessLog } from '../http/access-log.js';
import { clientErrorHandler, REQUEST_TIMEOUT_MS, TIMEOUT_CHECK_MS } from '../http/client-errors.js';
import { LazySchemas } from '../http/lazy-schemas.js';
import { echoed, sendProblem } from '../http/problem.js';
import { bodyShapeProblem } from '../http/text-guard.js';
import { requestIdGenerator } from '../lib/ids.js';

/** Ajv as the routes validate with: query strings are coerced (`year=2024` is a number). */
const AJV_OPTIONS = {
  customOptions: { removeAdditional: false, coerceTypes: true, allErrors: true },
  plugins: [],
};

/**
 * The Fastify instance the app is registered on: its logging, proxy trust, limits and timeouts,
 * the answer to bytes that never became a request, schemas compiled on first use, and the one
 * JSON body parser (Fastify's, prototype poisoning refused, then depth and size limits).
 */
export function createFastify(options: {
  /** The process logger (pino); none when omitted (tests). */
  logger: FastifyBaseLogger | undefined;
  /** TRUST_PROXY's addresses; none: the peer is the client. */
  trustProxy: readonly string[];
  accessLog: AccessLog | undefined;
}) {
  const schemas = new LazySchemas();
  const app = Fastify({
    ...(options.logger === undefined ? { logger: false } : { loggerInstance: options.logger }),
    genReqId: requestIdGenerator(),
    // request.log is the process logger itself, not a child per request (a child serializes its
    // bindings on every request): the few lines written about a request name its request_id.
    childLoggerFactory: (logger) => logger,
    // Fastify's own per-request lines are off: the access log writes one line per request.
    logController: new LogController({
      disableRequestLogging: true,
      requestIdLogLabel: 'request_id',
    }),
    trustProxy: options.trustProxy.length > 0 ? [...options.trustProxy] : false,
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
    clientErrorHandler: clientErrorHandler(options.accessLog),
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
  app.decorate('compileSchemas', () => schemas.compileAll());
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
  return app;
}
