import type { FastifyInstance } from 'fastify';
import type { Principal } from '../auth/index.js';
import type { Clock } from '../lib/clock.js';

/** One answered request, as every observer of responses sees it. */
export interface Answered {
  readonly requestId: string;
  readonly method: string;
  /** The matched route's path template, or `(unmatched)`. */
  readonly route: string;
  /** The request target as sent. */
  readonly url: string;
  readonly status: number;
  /**
   * The server's own time on its clock (injectable): from the request received whole (its body
   * read) to its answer handed to node. A client's slow upload or download is not in it.
   */
  readonly ms: number;
  /** The same on the process's high-resolution timer (for histograms and the access line). */
  readonly elapsedMs: number;
  /** false: the route's answers are not judged by their time (its config's `sla.timed`). */
  readonly timed: boolean;
  readonly ip: string;
  /** The caller, when authentication decided one. */
  readonly principal: Principal | null;
  /** What the route names the request in usage (`GET /api/v1/salary`, or its own name). */
  readonly endpoint: string;
  /** When it was answered, on the server's clock. */
  readonly at: number;
}

/** Usage, the SLA's counts, metrics, the access line: each is one observer. */
export type ResponseObserver = (answered: Answered) => void;

/**
 * The one place where every answered request is accounted for: a single callback-style
 * onResponse hook (no promise per request) hands each answer to every observer, in order.
 * The server's own time is read from the clock at three hooks: the request's arrival (the first
 * onRequest), its body read whole (the first preValidation, which follows the body parser) and
 * its answer handed to node (onSend). onResponse itself waits for the client to take the last
 * byte, so a slow reader would be counted as a slow server.
 */
export function observeResponses(
  app: FastifyInstance,
  clock: Clock,
  observers: readonly ResponseObserver[],
): void {
  app.decorateRequest('receivedAt', 0);
  app.decorateRequest('answeredAt', 0);
  app.addHook('onRequest', (request, reply, done) => {
    request.receivedAt = clock.now();
    reply.header('x-request-id', request.id);
    done();
  });
  if (observers.length === 0) return;
  app.addHook('preValidation', (request, _reply, done) => {
    request.receivedAt = clock.now();
    done();
  });
  app.addHook('onSend', (request, _reply, payload, done) => {
    request.answeredAt = clock.now();
    done(null, payload);
  });
  app.addHook('onResponse', (request, reply, done) => {
    const at = clock.now();
    // A hijacked answer (the MCP route) passes no onSend: its callers time their own work.
    const answeredAt = request.answeredAt === 0 ? at : request.answeredAt;
    // Fastify builds routeOptions afresh on every read: read once.
    const options = request.routeOptions;
    const route = options.url ?? '(unmatched)';
    const answered: Answered = {
      requestId: request.id,
      method: request.method,
      route,
      url: request.url,
      status: reply.statusCode,
      ms: answeredAt - request.receivedAt,
      elapsedMs: reply.elapsedTime,
      timed: options.config.sla?.timed !== false,
      ip: request.ip,
      principal: request.principal,
      endpoint: request.usageEndpoint ?? `${request.method} ${route}`,
      at,
    };
    for (const observe of observers) observe(answered);
    done();
  });
}
