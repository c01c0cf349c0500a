import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { FastifyServerOptions } from 'fastify';
import type { FastLookup } from './fast-lookup.js';

/**
 * Fastify's `serverFactory`: the node:http server Fastify would create, with the lookup fast
 * path in front of Fastify's handler. The timeouts are set as Fastify sets them on its own.
 */
export function lookupServer(
  fast: FastLookup,
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  options: Pick<
    FastifyServerOptions,
    'keepAliveTimeout' | 'requestTimeout' | 'connectionTimeout' | 'maxRequestsPerSocket'
  >,
): Server {
  const server = createServer((req, res) => fast.handle(req, res, handler));
  if (options.keepAliveTimeout !== undefined) server.keepAliveTimeout = options.keepAliveTimeout;
  if (options.requestTimeout !== undefined) server.requestTimeout = options.requestTimeout;
  server.setTimeout(options.connectionTimeout ?? 0);
  if (options.maxRequestsPerSocket !== undefined && options.maxRequestsPerSocket > 0)
    server.maxRequestsPerSocket = options.maxRequestsPerSocket;
  return server;
}
