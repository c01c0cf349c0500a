import {
  createServer,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { FastifyServerOptions } from 'fastify';
import { DirectConnections } from './direct-connections.js';
import type { FastLookup, LookupExchange } from './fast-lookup.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** A request on node's HTTP server, as the fast path reads and answers it. */
class NodeExchange implements LookupExchange {
  constructor(
    readonly request: IncomingMessage,
    private readonly response: ServerResponse,
    private readonly handler: Handler,
  ) {}

  get method(): string | undefined {
    return this.request.method;
  }

  get url(): string | undefined {
    return this.request.url;
  }

  get authorization(): string | undefined {
    return this.request.headers.authorization;
  }

  get accept(): string | undefined {
    return this.request.headers.accept;
  }

  get connection(): object {
    return this.request.socket;
  }

  /**
   * node reads on: a request pipelined behind this one, or the client's half-close (which node
   * answers by ending the connection), would lose an answer held back.
   */
  get mayWait(): boolean {
    return false;
  }

  get closed(): boolean {
    return this.response.destroyed;
  }

  send(status: number, headers: (string | number)[], body: string): void {
    this.response.writeHead(status, headers as unknown as OutgoingHttpHeaders);
    this.response.end(body);
  }

  pass(): void {
    this.handler(this.request, this.response);
  }
}

/**
 * Fastify's `serverFactory`: the node:http server Fastify would create, with the lookup fast
 * path in front of Fastify's handler, and connections read directly while they carry only plain
 * lookups (`DirectConnections`). The timeouts are set as Fastify sets them on its own.
 */
export function lookupServer(
  fast: FastLookup,
  handler: Handler,
  options: Pick<
    FastifyServerOptions,
    'keepAliveTimeout' | 'requestTimeout' | 'connectionTimeout' | 'maxRequestsPerSocket'
  >,
): Server {
  const server = createServer((req, res) => fast.handle(new NodeExchange(req, res, handler)));
  if (options.keepAliveTimeout !== undefined) server.keepAliveTimeout = options.keepAliveTimeout;
  if (options.requestTimeout !== undefined) server.requestTimeout = options.requestTimeout;
  server.setTimeout(options.connectionTimeout ?? 0);
  if (options.maxRequestsPerSocket !== undefined && options.maxRequestsPerSocket > 0)
    server.maxRequestsPerSocket = options.maxRequestsPerSocket;
  // A cap on requests per connection is node's to count: every connection is then node's.
  if (server.maxRequestsPerSocket === 0) DirectConnections.install(server, fast);
  return server;
}
