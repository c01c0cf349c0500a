import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { accountOnPlan } from '../helpers/accounts.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { listenHttp, type HttpCall } from '../helpers/http.js';

/** Each tool, arguments for it, and the REST request that must answer the same. */
const TWINS: readonly { tool: string; args: Record<string, unknown>; rest: string }[] = [
  {
    tool: 'salary_lookup',
    args: { country: 'de', job: 'software-engineer', level: 'senior' },
    rest: '/api/v1/salary?country=de&job=software-engineer&level=senior',
  },
  {
    tool: 'salary_history',
    args: { country: 'NL', job: 'nurse' },
    rest: '/api/v1/salary/history?country=NL&job=nurse',
  },
  {
    tool: 'salary_position',
    args: { country: 'FR', job: 'chef', level: 'mid', salary: 31000 },
    rest: '/api/v1/salary/position?country=FR&job=chef&level=mid&salary=31000',
  },
  {
    tool: 'compare_countries',
    args: { job: 'nurse', level: 'mid' },
    rest: '/api/v1/bulk/countries?job=nurse&level=mid',
  },
  { tool: 'list_countries', args: {}, rest: '/api/v1/countries' },
  { tool: 'list_jobs', args: {}, rest: '/api/v1/jobs' },
];

const textOf = (result: CallToolResult, part = 0): string => {
  const content = result.content[part];
  assert.equal(content?.type, 'text');
  return content.text;
};

describe('MCP server at /mcp (the SDK client over Streamable HTTP)', () => {
  let t: TestApp;
  let base: string;
  let call: HttpCall;
  let business: { accountId: string; apiKey: string | null; session: string };
  let developer: { accountId: string; apiKey: string | null; session: string };
  const clients: Client[] = [];

  async function connect(token?: string): Promise<Client> {
    const client = new Client({ name: 'salary-api-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(
      new URL('/mcp', base),
      token === undefined
        ? undefined
        : { requestInit: { headers: { authorization: `Bearer ${token}` } } },
    );
    await client.connect(transport);
    clients.push(client);
    return client;
  }
  const callTool = async (client: Client, name: string, args: Record<string, unknown> = {}) =>
    (await client.callTool({ name, arguments: args })) as CallToolResult;

  before(async () => {
    t = await buildTestApp();
    ({ base, call } = await listenHttp(t));
    business = await accountOnPlan(t, 'business');
    developer = await accountOnPlan(t, 'developer');
  });
  after(async () => {
    for (const client of clients) await client.close();
    await t.close();
  });

  it('lists the six tools, each with an input schema and a description', async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    assert.deepEqual(
      tools.map((tool) => tool.name),
      TWINS.map((twin) => twin.tool),
    );
    for (const tool of tools) {
      assert.equal(tool.inputSchema.type, 'object');
      assert.ok((tool.description ?? '').length > 80, tool.name);
      assert.equal(tool.annotations?.readOnlyHint, true);
    }
    const position = tools.find((tool) => tool.name === 'salary_position')!;
    assert.deepEqual(position.inputSchema.required, ['country', 'job', 'level', 'salary']);
  });

  it('answers each tool exactly as its REST endpoint answers the same credential', async () => {
    const client = await connect(business.apiKey!);
    for (const twin of TWINS) {
      const result = await callTool(client, twin.tool, twin.args);
      assert.equal(result.isError, undefined, `${twin.tool}: ${textOf(result)}`);
      const rest = await call('GET', twin.rest, { token: business.apiKey! });
      assert.equal(rest.status, 200, rest.body);
      assert.deepEqual(JSON.parse(textOf(result)), rest.json(), twin.tool);
    }
  });

  it('refuses a Free caller compare_countries as a tool error naming Business', async () => {
    const client = await connect();
    const result = await callTool(client, 'compare_countries', { job: 'nurse' });
    assert.equal(result.isError, true);
    assert.match(textOf(result), /Business plan/);
    const problem = JSON.parse(textOf(result, 1));
    assert.equal(problem.code, 'FEATURE_NOT_IN_PLAN');
    assert.equal(problem.required_plan, 'business');
    assert.equal(problem.instance, '/api/v1/bulk/countries');
  });

  it('answers bad arguments as a tool error naming the argument', async () => {
    const client = await connect(developer.apiKey!);
    for (const [args, name] of [
      [{ country: 'DE', job: 'nurse', level: 'mid', salary: -5 }, 'salary'],
      [{ country: 'DE', job: 'nurse', level: 'mid', salary: 'lots' }, 'salary'],
      [{ country: 'DE', job: 'nurse', level: 'mid' }, 'salary'],
      [{ country: 'ZZ', job: 'nurse', level: 'mid', salary: 40000 }, 'country'],
      [{ country: 'DE', job: 'nurse', level: 'boss', salary: 40000 }, 'level'],
      // A number given as text must be decimal digits, as in the REST twin's query string.
      [{ country: 'DE', job: 'nurse', level: 'mid', salary: '4e4' }, 'salary'],
      [{ country: 'DE', job: 'nurse', level: 'mid', salary: 40000, year: '0x7E6' }, 'year'],
    ] as const) {
      const result = await callTool(client, 'salary_position', args);
      assert.equal(result.isError, true, JSON.stringify(args));
      const problem = JSON.parse(textOf(result, 1));
      assert.equal(problem.status, 400);
      assert.equal(problem.invalid_params[0].name, name, JSON.stringify(problem));
    }
  });

  it('counts every call under its REST endpoint name in usage and quota', async () => {
    const key = developer.apiKey!;
    const quotaBefore = (await call('GET', '/api/v1/usage', { token: developer.session })).json()
      .quota.used;
    const client = await connect(key);
    await callTool(client, 'salary_lookup', { country: 'AT', job: 'chef' });
    await callTool(client, 'salary_lookup', { country: 'AT', job: 'chef', level: 'lead' });
    await callTool(client, 'list_jobs');
    await callTool(client, 'salary_position', {
      country: 'AT',
      job: 'chef',
      level: 'lead',
      salary: 50000,
    });
    const refused = await callTool(client, 'compare_countries', { job: 'chef' });
    assert.equal(refused.isError, true);
    await t.recorder.flush();
    const report = (await call('GET', '/api/v1/usage', { token: developer.session })).json();
    assert.equal(report.by_endpoint['GET /api/v1/salary'], 2);
    assert.equal(report.by_endpoint['GET /api/v1/jobs'], 1);
    // Including the seven refused by the argument test above.
    assert.equal(report.by_endpoint['GET /api/v1/salary/position'], 8);
    assert.equal(report.by_endpoint['GET /api/v1/bulk/countries'], 1);
    assert.equal(report.by_status['403'], 1);
    assert.equal(report.by_endpoint['POST /mcp'], undefined);
    // Answered calls spend the quota, refusals none.
    assert.equal(report.quota.used - quotaBefore, 4);
  });

  it('gives the 101st anonymous call in an hour a limit error naming the plan and the reset', async () => {
    const client = await connect();
    for (let i = 1; i <= 100; i++) {
      const result = await callTool(client, 'list_countries');
      assert.equal(result.isError, undefined, `call ${i}: ${textOf(result)}`);
    }
    const refused = await callTool(client, 'list_countries');
    assert.equal(refused.isError, true);
    assert.match(
      textOf(refused),
      /Free plan allows 100 requests per hour; the limit resets in \d+ s/,
    );
    const problem = JSON.parse(textOf(refused, 1));
    assert.equal(problem.code, 'RATE_LIMITED');
    assert.equal(problem.retry_after, 45 * 60);
    // The same bucket as the REST endpoints: the address's hour is spent there too.
    assert.equal((await call('GET', '/api/v1/countries')).status, 429);
  });

  it('authenticates like the REST routes: an unknown credential is a 401 pointing at the metadata', async () => {
    const res = await call('POST', '/mcp', {
      token: 'sk_live_unknown',
      headers: { accept: 'application/json, text/event-stream' },
      body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    });
    assert.equal(res.status, 401);
    const challenge = res.headers.get('www-authenticate') ?? '';
    assert.match(challenge, /^Bearer realm="salary-api", error="invalid_token"/);
    const url = /resource_metadata="([^"]+)"/.exec(challenge)?.[1];
    assert.ok(url?.endsWith('/.well-known/oauth-protected-resource/mcp'), challenge);
    const metadata = (await call('GET', '/.well-known/oauth-protected-resource/mcp')).json();
    // Stateless: no stream to open or session to end.
    for (const method of ['GET', 'DELETE']) {
      const res = await call(method, '/mcp');
      assert.equal(res.status, 405, method);
      assert.equal(res.headers.get('allow'), 'POST');
    }
    assert.equal(metadata.resource, url!.replace('/.well-known/oauth-protected-resource', ''));
    assert.equal(metadata.authorization_servers.length, 1);
    assert.deepEqual(metadata.scopes_supported, ['salary:read', 'bulk:read']);
  });

  it('answers a lookup pinned to an older release as REST does, naming that release', async () => {
    const own = (await accountOnPlan(t, 'developer')).apiKey!;
    const client = await connect(own);
    const args = { country: 'DE', job: 'nurse', level: 'mid', release: '2026.11.7' };
    const result = await callTool(client, 'salary_lookup', args);
    assert.equal(result.isError, undefined, textOf(result));
    const body = JSON.parse(textOf(result));
    assert.equal(body.meta.release.version, '2026.11.7');
    const rest = await call(
      'GET',
      '/api/v1/salary?country=DE&job=nurse&level=mid&release=2026.11.7',
      {
        token: developer.apiKey!,
      },
    );
    assert.deepEqual(body, rest.json());
    const active = await callTool(client, 'salary_lookup', { ...args, release: undefined });
    // 2026.11.8's notes state the typical error of a cell with its own unit-level rows as 7 %.
    const activeBody = JSON.parse(textOf(active));
    assert.equal(activeBody.meta.release.version, '2026.11.8');
    assert.notEqual(activeBody.data[0].confidence_note, body.data[0].confidence_note);
  });
});
