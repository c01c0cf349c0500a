import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { Metrics } from './metrics.js';

const digest = (value: string) => createHash('sha256').update(value).digest();

/**
 * Whether an Authorization header carries the bearer token: both sides hashed, then compared
 * in constant time, so neither the token's length nor its content leaks through timing.
 */
export function tokenMatcher(token: string | undefined): (header: string | undefined) => boolean {
  if (token === undefined) return () => true;
  const expected = digest(`Bearer ${token}`);
  // The scheme name is case-insensitive (RFC 9110 §11.1); the token itself is compared whole.
  return (header) =>
    header !== undefined &&
    timingSafeEqual(digest(header.replace(/^bearer /i, 'Bearer ')), expected);
}

/** `GET /metrics` on the API port, behind the bearer token; no database work when refused. */
export function metricsRoute(app: FastifyInstance, metrics: Metrics, token: string): void {
  const allowed = tokenMatcher(token);
  app.get(
    '/metrics',
    { schema: { hide: true }, config: { auth: { access: 'public' } } },
    async (request, reply) => {
      if (!allowed(request.headers.authorization)) {
        return reply
          .code(401)
          .header('www-authenticate', 'Bearer realm="metrics"')
          .type('text/plain; charset=utf-8')
          .send('A valid METRICS_TOKEN bearer token is required.\n');
      }
      const text = await metrics.scrape();
      return reply.type(metrics.contentType).send(text);
    },
  );
}

/**
 * The metrics on their own port, bound to the loopback address: only `GET /metrics`.
 * With a token configured it is required here too.
 */
export function metricsServer(metrics: Metrics, token: string | undefined): Server {
  const allowed = tokenMatcher(token);
  return createServer((req, res) => {
    if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found.\n');
      return;
    }
    if (!allowed(req.headers.authorization)) {
      res.writeHead(401, { 'content-type': 'text/plain; charset=utf-8' }).end('Unauthorized.\n');
      return;
    }
    metrics.scrape().then(
      (text) => res.writeHead(200, { 'content-type': metrics.contentType }).end(text),
      () => res.writeHead(500).end(),
    );
  });
}
