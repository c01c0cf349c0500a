import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { addressBucket, type AuthenticatedRoute } from '../auth/index.js';
import { AppError } from '../errors/index.js';
import { requestOrigin } from '../http/origin.js';
import { problemBaseOf } from '../http/problem.js';
import { rateLimitHeaders, type LimitRule, type RateLimiter } from '../limits/index.js';
import { DPOP_ALGS } from '../oauth/index.js';
import type { SpendQuota } from '../http/quota.js';
import type { Clock } from '../lib/clock.js';
import type { Plan, PlanId } from '../plans/index.js';
import { createPayPositionService, type Labelling, type SalaryService } from '../salary/index.js';
import type { SlaCounter } from '../sla/index.js';
import type { QuotaEndpoints, UsageRecorder } from '../usage/index.js';
import { toolRunner } from './calls.js';
import { mcpTools } from './tools.js';

export const MCP_PATH = '/mcp';
/** RFC 9728 §3.1: the metadata of the resource `<base>/mcp`. */
export const MCP_RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource/mcp';

/**
 * Who may open /mcp: a data caller like the lookups (no credential: Free by address; an API
 * key or OAuth access token, DPoP-bound where the client is). Each tool then applies its REST
 * twin's own declaration (compare_countries: bulk:read).
 */
const MCP_AUTH = { access: 'data', scope: 'salary:read' } as const satisfies AuthenticatedRoute;

export interface McpRoutesOptions {
  salary: SalaryService;
  plans: Readonly<Record<PlanId, Plan>>;
  labelling: (accountId: string | null) => Labelling | null;
  spendQuota: SpendQuota;
  recorder: UsageRecorder;
  clock: Clock;
  /** Each REST route's declared quota cost (the tools spend their twin's). */
  quotaEndpoints: QuotaEndpoints | undefined;
  sla?: SlaCounter | undefined;
  /** This service's public base URL (the resource is `<baseUrl>/mcp`). */
  baseUrl: string;
  /** PUBLIC_BASE_URL, when set: its origin and host are this server's own. */
  publicBaseUrl: string | undefined;
  /** The address the server listens on (HOST): on a loopback address the Host is checked too. */
  listenHost: string;
  /** Counts protocol messages per address. */
  limiter: RateLimiter;
  /** The OAuth authorization server's issuer. */
  authorizationServer: string;
}

/**
 * The Model Context Protocol server at /mcp (Streamable HTTP, stateless: every POST carries
 * its own credential and is answered as JSON) and its RFC 9728 protected-resource metadata.
 */
export const mcpRoutes: FastifyPluginAsync<McpRoutesOptions> = async (app, opts) => {
  if (opts.quotaEndpoints === undefined)
    throw new Error('The MCP tools spend the quota their REST twins declare: no quotaEndpoints');
  const tools = mcpTools({
    salary: opts.salary,
    positions: createPayPositionService({ salary: opts.salary, plans: opts.plans }),
    labelling: opts.labelling,
  });
  const run = toolRunner({
    tools,
    spendQuota: opts.spendQuota,
    recorder: opts.recorder,
    clock: opts.clock,
    quotaEndpoints: opts.quotaEndpoints,
    ...(opts.sla === undefined ? {} : { sla: opts.sla }),
  });
  const metadataUrl = `${opts.baseUrl}${MCP_RESOURCE_METADATA_PATH}`;
  const metadata = {
    resource: `${opts.baseUrl}${MCP_PATH}`,
    authorization_servers: [opts.authorizationServer],
    scopes_supported: ['salary:read', 'bulk:read'],
    bearer_methods_supported: ['header'],
    dpop_signing_alg_values_supported: DPOP_ALGS,
    resource_name: 'European Salary Data API (MCP)',
    resource_documentation: `${opts.baseUrl}/docs`,
  };

  // A refused credential points the client at the metadata (RFC 9728 §5.1).
  app.addHook('onSend', (request, reply, payload, done) => {
    const challenge = reply.getHeader('www-authenticate');
    if (reply.statusCode === 401 && typeof challenge === 'string')
      reply.header('www-authenticate', `${challenge}, resource_metadata="${metadataUrl}"`);
    done(null, payload);
  });

  app.get(
    MCP_RESOURCE_METADATA_PATH,
    { schema: { hide: true }, config: { auth: { access: 'public' } } },
    (_request, reply) => reply.header('cache-control', 'public, max-age=300').send(metadata),
  );

  app.post(
    MCP_PATH,
    { schema: { hide: true }, config: { auth: MCP_AUTH, idempotency: false } },
    async (request, reply) => {
      const refused = foreignCaller(request, opts);
      if (refused !== undefined) throw new AppError('ORIGIN_NOT_ALLOWED', refused);
      const messages = Array.isArray(request.body) ? (request.body as unknown[]) : [request.body];
      const invalid = batchProblem(messages);
      if (invalid !== undefined)
        return reply
          .code(400)
          .send({ jsonrpc: '2.0', id: null, error: { code: -32600, message: invalid } });
      const budget = await spendMessages(opts, request.ip, messages);
      let limits: Record<string, string | number> | undefined = budget;
      const caller = {
        principal: request.principal,
        ip: request.ip,
        requestId: request.id,
        problemBase: problemBaseOf(request),
        limits: (headers: Record<string, string | number>) => (limits = headers),
      };
      // The MCP SDK (and zod) is loaded with the first MCP request, not with the server.
      const { mcpServer, jsonTransport } = await import('./server.js');
      const server = mcpServer(tools, run, caller);
      const transport = jsonTransport();
      try {
        await server.connect(transport);
        const answer = await transport.handleRequest(webRequest(request), {
          parsedBody: request.body,
        });
        const body = await answer.text();
        reply.code(answer.status);
        answer.headers.forEach((value, name) => void reply.header(name, value));
        if (limits !== undefined) reply.headers(limits);
        return await reply.send(body);
      } finally {
        await transport.close();
        await server.close();
      }
    },
  );
};

/** At most this many JSON-RPC messages in one POST. */
export const MCP_MAX_BATCH = 20;
/**
 * Protocol messages (all but tool calls, which spend the plan's quota) per address: cheap to
 * ask, not free to answer (a tools/list is 7 KB).
 */
export const MCP_MESSAGES: LimitRule = { name: 'mcp-messages', limit: 300, windowMs: 60_000 };

/** Why a batch is refused as the JSON-RPC spec says (-32600); undefined when it is not. */
function batchProblem(messages: readonly unknown[]): string | undefined {
  if (messages.length === 0) return 'Invalid Request: an empty batch holds no message.';
  if (messages.length > MCP_MAX_BATCH)
    return `A batch holds at most ${MCP_MAX_BATCH} messages; this one holds ${messages.length}.`;
  const ids = new Set<unknown>();
  for (const message of messages) {
    if (typeof message !== 'object' || message === null || !('id' in message)) continue;
    const { id } = message;
    if (ids.has(id))
      return `The request id ${JSON.stringify(id)} appears more than once in the batch; each request needs an id of its own.`;
    ids.add(id);
  }
  return undefined;
}

/**
 * Spends the address's protocol-message budget and returns its rate-limit headers (undefined
 * for a batch of tool calls only, which spend the plan's quota instead), or throws its 429,
 * which carries the same headers.
 */
async function spendMessages(
  opts: McpRoutesOptions,
  ip: string,
  messages: readonly unknown[],
): Promise<Record<string, string> | undefined> {
  const count = messages.filter(
    (m) =>
      typeof m !== 'object' || m === null || (m as { method?: unknown }).method !== 'tools/call',
  ).length;
  if (count === 0) return undefined;
  const now = opts.clock.now();
  const decision = await opts.limiter.spend(`mcp:${addressBucket(ip)}`, [MCP_MESSAGES], now, count);
  const headers = rateLimitHeaders(decision, now);
  if (!decision.allowed)
    throw new AppError(
      'TOO_MANY_ATTEMPTS',
      `At most ${MCP_MESSAGES.limit} MCP protocol messages a minute from one address (tool calls count against the plan instead); try again in ${decision.retryAfterSeconds} s.`,
      {
        headers,
        extensions: { retry_after: decision.retryAfterSeconds, limit: MCP_MESSAGES.limit },
      },
    );
  return headers;
}

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * The MCP transport's rule against DNS rebinding: an Origin, when sent, is the server's own
 * (PUBLIC_BASE_URL's when set, otherwise the request's), and on a loopback listener the Host names the loopback
 * or PUBLIC_BASE_URL's host. Why the request is refused; undefined when it is not.
 */
function foreignCaller(request: FastifyRequest, opts: McpRoutesOptions): string | undefined {
  const publicUrl = opts.publicBaseUrl === undefined ? undefined : new URL(opts.publicBaseUrl);
  if (isLoopback(opts.listenHost)) {
    const host = (request.headers.host ?? '').toLowerCase().replace(/:\d+$/, '');
    if (!LOOPBACK_NAMES.has(host) && host !== publicUrl?.hostname)
      return `This server listens on a loopback address and answers /mcp for its own names only; the Host ${JSON.stringify(host)} is not one of them.`;
  }
  const origin = request.headers.origin;
  if (origin === undefined) return undefined;
  // With PUBLIC_BASE_URL, the request's own origin is not asked: behind a proxy that passes
  // X-Forwarded-Host, a rebinding page could name itself.
  if (origin === (publicUrl?.origin ?? requestOrigin(request))) return undefined;
  return `The Origin ${JSON.stringify(origin.slice(0, 100))} is not this server's; /mcp answers its own origin and clients that send none.`;
}

/** The request as the web-standard transport reads it (its body is passed parsed). */
function webRequest(request: FastifyRequest): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined || SKIPPED_HEADERS.has(name)) continue;
    headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  return new Request(`http://mcp.invalid${MCP_PATH}`, { method: request.method, headers });
}

const SKIPPED_HEADERS = new Set(['host', 'content-length', 'connection', 'transfer-encoding']);

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host.startsWith('127.');
}
