import { performance } from 'node:perf_hooks';
import AjvCompiler from '@fastify/ajv-compiler';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { usageKeyOf, type Principal } from '../auth/index.js';
import { AppError, type InvalidParam } from '../errors/index.js';
import { checkAccess } from '../http/auth-hook.js';
import { problemDocument } from '../http/problem.js';
import type { SpendQuota } from '../http/quota.js';
import { decimalCheck } from '../http/text-guard.js';
import type { Clock } from '../lib/clock.js';
import type { SlaCounter } from '../sla/index.js';
import type { QuotaEndpoints, UsageRecorder } from '../usage/index.js';
import type { ToolDefinition } from './tools.js';

/** Who calls, as the HTTP request to /mcp authenticated them. */
export interface ToolCaller {
  readonly principal: Principal;
  readonly ip: string;
  readonly requestId: string;
  /** Where problem `type` pages are for this request (problemBaseOf). */
  readonly problemBase: string | null;
  /** Told the limit headers of each call's quota decision (the HTTP answer carries the last). */
  readonly limits?: (headers: Record<string, string | number>) => void;
}

export interface ToolRunnerDeps {
  tools: readonly ToolDefinition[];
  spendQuota: SpendQuota;
  recorder: UsageRecorder;
  clock: Clock;
  /** Each REST route's declared cost, filled as the routes register. */
  quotaEndpoints: QuotaEndpoints;
  sla?: SlaCounter;
}

/** Runs a tool call for a caller; undefined for a tool that does not exist. */
export type ToolRunner = (
  name: string,
  args: Record<string, unknown>,
  caller: ToolCaller,
) => Promise<CallToolResult> | undefined;

interface AjvError {
  instancePath: string;
  keyword: string;
  params: Record<string, unknown>;
  message?: string;
}
type Validate = ((data: unknown) => boolean) & { errors?: AjvError[] | null };

/**
 * A tool call as its REST twin answers a request: the twin's allowlist and scope checks, the
 * arguments checked by the same JSON Schema (a number given as text written in decimal digits,
 * then types coerced as in a query string), the same service and plan checks, then the twin's
 * quota cost spent (nothing for a refusal). Every call counts in usage and the SLA under the
 * twin's endpoint name, with the status the twin would have answered.
 */
export function toolRunner(deps: ToolRunnerDeps): ToolRunner {
  const { spendQuota, recorder, clock, quotaEndpoints, sla } = deps;
  const compile = AjvCompiler()(
    {},
    { customOptions: { removeAdditional: false, coerceTypes: true, allErrors: true }, plugins: [] },
  ) as (route: { schema: object; method: string; url: string; httpPart: string }) => Validate;
  const tools = new Map(
    deps.tools.map((tool) => {
      const [method = 'GET', url = ''] = tool.endpoint.split(' ');
      const validate = compile({ schema: tool.input, method, url, httpPart: 'querystring' });
      return [tool.name, { tool, validate, decimal: decimalCheck(tool.input), path: url }] as const;
    }),
  );

  async function run(
    entry: NonNullable<ReturnType<typeof tools.get>>,
    args: Record<string, unknown>,
    caller: ToolCaller,
  ): Promise<object> {
    const { tool, validate, decimal } = entry;
    const admitted = checkAccess(caller.ip, tool.auth, caller.principal);
    if (admitted instanceof AppError) throw admitted;
    const notDecimal = decimal?.(args);
    if (notDecimal !== undefined) throw AppError.invalidParams([notDecimal]);
    const input = structuredClone(args);
    if (!validate(input)) throw invalidArguments(validate.errors ?? []);
    const body = await tool.run(input, admitted);
    const cost = quotaEndpoints.costOf(tool.endpoint);
    if (cost < 1) throw new Error(`${tool.endpoint} declares no quota cost`);
    const spent = await spendQuota(admitted, caller.ip, cost);
    if (spent instanceof AppError) {
      caller.limits?.(spent.headers);
      throw spent;
    }
    if (spent !== undefined) caller.limits?.(spent);
    return admitted.mode === 'test' ? markedForTest(body) : body;
  }

  return (name, args, caller) => {
    const entry = tools.get(name);
    if (entry === undefined) return undefined;
    const started = performance.now();
    let status = 500;
    const account = caller.principal.accountId;
    const settle = () => {
      if (caller.principal.mode === 'test') return; // outside usage and the SLA
      const now = clock.now();
      recorder.record(account, usageKeyOf(caller.principal), entry.tool.endpoint, status, now);
      sla?.count(account, status, now, performance.now() - started);
    };
    return run(entry, args, caller)
      .then(
        (body): CallToolResult => {
          status = 200;
          return { content: [{ type: 'text', text: JSON.stringify(body) }] };
        },
        (error: unknown): CallToolResult => {
          if (!(error instanceof AppError)) throw error;
          status = error.status;
          return refusal(error, entry.path, caller);
        },
      )
      .finally(settle);
  };
}

/**
 * A refusal as a tool error: the problem's sentence first (it names the plan, the scope or the
 * limit and when it resets), then the problem document the REST twin would have answered.
 */
function refusal(error: AppError, path: string, caller: ToolCaller): CallToolResult {
  return {
    isError: true,
    content: [
      { type: 'text', text: error.detail },
      {
        type: 'text',
        text: JSON.stringify(problemDocument(error, path, caller.requestId, caller.problemBase)),
      },
    ],
  };
}

/** The 400 of arguments that fail the tool's schema, naming each argument. */
function invalidArguments(errors: readonly AjvError[]): AppError {
  const params = new Map<string, InvalidParam>();
  for (const e of errors) {
    const name =
      (e.instancePath.slice(1) ||
        ((e.params.missingProperty ?? e.params.additionalProperty) as string | undefined)) ??
      'arguments';
    if (params.has(name)) continue;
    const allowed = e.params.allowedValues as readonly string[] | undefined;
    const reason =
      e.keyword === 'additionalProperties'
        ? 'is not an argument of this tool'
        : e.keyword === 'required'
          ? 'is required'
          : (e.message ?? 'is not valid');
    params.set(name, allowed === undefined ? { name, reason } : { name, reason, allowed });
  }
  return AppError.invalidParams([...params.values()]);
}

/** A tool's answer to a test-mode key, marked as its REST twin's body is (`meta.mode`). */
function markedForTest(body: object): object {
  const meta = (body as { meta?: object }).meta;
  return { ...body, meta: { ...meta, mode: 'test' } };
}
