import { createHash, timingSafeEqual } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Metrics } from './metrics.js';

const digest = (value: string) => createHash('sha256').update(value).digest();

/**
 * Whether an Authorization header carries the bearer token: both sides hashed, then compared
 * in constant time, so neither the token's length nor its content leaks through timing.
 */
export function tokenMatcher(token: string | undefined): (header: string | undefined) => boolean {
  if (token === undefined) return () => true;
  const expected = digest(`Bearer ${token}`);
  // The scheme name is case-insensitive (RFC 9110 §11.1) and one or more spaces follow it
  // (§11.4), as for the API's own credentials; the token itself is compared whole.
  return (header) =>
    header !== undefined &&
    timingSafeEqual(digest(header.replace(/^bearer +/i, 'Bearer ')), expected);
}

/**
 * `GET /metrics`, behind the bearer token when one is set; no database work when refused.
 */
export function metricsRoute(
  app: FastifyInstance,
  metrics: Metrics,
  token: string | undefined,
): void {
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
 * The metrics on their own port, bound to the loopback address by the caller: a Fastify app with
 * only `GET /metrics`. With a token configured it is required here too.
 */
export function metricsApp(metrics: Metrics, token: string | undefined): FastifyInstance {
  const app = Fastify({ logger: false });
  metricsRoute(app, metrics, token);
  return app;
}
