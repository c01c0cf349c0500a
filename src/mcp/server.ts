import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import type { ToolCaller, ToolRunner } from './calls.js';
import type { ToolDefinition } from './tools.js';

const INSTRUCTIONS =
  "Gross annual pay for 27 EU countries and 21 job categories, modelled from published statistics. Start with list_countries and list_jobs for valid codes; salary_lookup answers one country and job, salary_history the years the plan reaches, salary_position where a salary sits (Developer and higher), compare_countries one job in every country (Business and higher). Every call counts against the caller's plan quota like the REST endpoint it mirrors.";

/** A stateless MCP server for one HTTP request: the caller is the request's principal. */
export function mcpServer(
  tools: readonly ToolDefinition[],
  run: ToolRunner,
  caller: ToolCaller,
): Server {
  const server = new Server(
    { name: 'salary-api', title: 'European Salary Data API', version: '1.0.0' },
    { capabilities: { tools: { listChanged: false } }, instructions: INSTRUCTIONS },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: tools.map((t) => ({
      name: t.name,
      title: t.title,
      description: t.description,
      inputSchema: t.input,
      annotations: { title: t.title, readOnlyHint: true, openWorldHint: false },
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, (request) => {
    const answer = run(request.params.name, request.params.arguments ?? {}, caller);
    if (answer === undefined)
      throw new McpError(ErrorCode.InvalidParams, `There is no tool ${request.params.name}.`);
    return answer;
  });
  return server;
}

/**
 * Streamable HTTP, stateless, every answer as JSON (no event stream). The web-standard
 * transport answers with a Response, which the route sends through Fastify like any answer.
 */
export function jsonTransport(): WebStandardStreamableHTTPServerTransport {
  return new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: true });
}
