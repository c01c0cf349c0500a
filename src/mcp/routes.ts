import type { FastifyPluginAsync } from 'fastify';
import type { AuthenticatedRoute } from '../auth/index.js';
import { AppError } from '../errors/index.js';
import { PROBLEM_JSON, problemBaseOf, problemDocument } from '../http/problem.js';
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
      const caller = {
        principal: request.principal,
        ip: request.ip,
        requestId: request.id,
        problemBase: problemBaseOf(request),
      };
      // The MCP SDK (and zod) is loaded with the first MCP request, not with the server.
      const { mcpServer, jsonTransport } = await import('./server.js');
      const server = mcpServer(tools, run, caller);
      const transport = jsonTransport();
      reply.hijack();
      for (const [name, value] of Object.entries(reply.getHeaders()))
        if (value !== undefined) reply.raw.setHeader(name, value);
      reply.raw.on('close', () => {
        void transport.close();
        void server.close();
      });
      try {
        await server.connect(transport);
        await transport.handleRequest(request.raw, reply.raw, request.body);
      } catch (error) {
        request.log.error({ request_id: request.id, err: error }, 'MCP request failed');
        if (reply.raw.headersSent) return;
        const problem = new AppError(
          'INTERNAL',
          'An unexpected error occurred; it has been logged with the request id.',
        );
        reply.raw.writeHead(500, { 'content-type': PROBLEM_JSON });
        reply.raw.end(
          JSON.stringify(problemDocument(problem, MCP_PATH, request.id, problemBaseOf(request))),
        );
      }
    },
  );
};
