// MCP tool calls behave as their REST twins, over real HTTP (JSON-RPC POSTs to /mcp): the
// twin's scope check, the twin's SLA counting, and a white-label account's labelling.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createLicenseService } from '../../src/licensing/index.js';
import { accountOnPlan } from '../helpers/accounts.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { listenHttp, type HttpCall } from '../helpers/http.js';

/** Every way this service's name is spelled: the host, the product, the package. */
const OUR_NAME = /salary-api|salary api|European Salary Data/i;
const ATTRIBUTION = 'Data: Acme Pay Insights, modelled from official statistics.';

interface ToolResult {
  isError?: boolean;
  content: { type: string; text: string }[];
}

describe('MCP tool calls as their REST twins', () => {
  let t: TestApp;
  let call: HttpCall;
  let id = 0;

  before(async () => {
    t = await buildTestApp();
    ({ call } = await listenHttp(t));
  });
  after(() => t.close());

  async function tool(
    token: string,
    name: string,
    args: Record<string, unknown>,
  ): Promise<{ result: ToolResult; raw: string }> {
    const res = await call('POST', '/mcp', {
      token,
      headers: { accept: 'application/json, text/event-stream' },
      body: { jsonrpc: '2.0', id: ++id, method: 'tools/call', params: { name, arguments: args } },
    });
    assert.equal(res.status, 200, res.body);
    return { result: res.json().result as ToolResult, raw: res.body };
  }

  it('compare_countries with a key lacking bulk:read is refused, as GET /api/v1/bulk/countries is', async () => {
    const business = await accountOnPlan(t, 'enterprise');
    const made = await call('POST', '/api/v1/keys', {
      token: business.session,
      body: { name: 'lookups only', scopes: ['salary:read'] },
    });
    assert.equal(made.status, 201, made.body);
    const key = made.json().key as string;
    const rest = await call('GET', '/api/v1/bulk/countries?job=nurse&level=mid', { token: key });
    assert.equal(rest.status, 403, rest.body);
    const { result } = await tool(key, 'compare_countries', { job: 'nurse', level: 'mid' });
    assert.equal(result.isError, true, JSON.stringify(result).slice(0, 300));
    const problem = JSON.parse(result.content[1]!.text) as { status: number; code: string };
    assert.equal(problem.status, 403);
    assert.equal(problem.code, rest.json().code);
    // With the scope, the same call is answered.
    const { result: allowed } = await tool(business.apiKey!, 'compare_countries', {
      job: 'nurse',
      level: 'mid',
    });
    assert.notEqual(allowed.isError, true, JSON.stringify(allowed).slice(0, 300));
  });

  it('a tool call counts in the SLA like its REST twin: one served request', async () => {
    const business = await accountOnPlan(t, 'business');
    // The counts this instance holds for the account (GET /api/v1/sla adds them to its report;
    // that report counts intervals, not requests, so the counts are read here).
    const served = () =>
      [...t.sla.counter.pending(business.accountId).values()].reduce((n, c) => n + c.served, 0);
    assert.equal(served(), 0);
    const { result } = await tool(business.apiKey!, 'salary_lookup', {
      country: 'DE',
      job: 'software-engineer',
      level: 'senior',
    });
    assert.notEqual(result.isError, true);
    assert.equal(served(), 1);
    assert.equal((await call('GET', '/api/v1/countries', { token: business.apiKey! })).status, 200);
    assert.equal(served(), 2, 'the REST twin counts the same way');
  });

  it("a white-label account's salary_position names the licensee's attribution, never us", async () => {
    const wl = await accountOnPlan(t, 'enterprise');
    const licenses = createLicenseService({ db: t.db, clock: t.clock, registry: t.licenses });
    await licenses.record(wl.accountId, {
      licensee: 'Acme Pay Insights',
      attribution: ATTRIBUTION,
      whiteLabel: true,
      permittedUse: 'Resale to HR software customers within the EU.',
      termEnd: '2027-12-31',
    });
    const { result, raw } = await tool(wl.apiKey!, 'salary_position', {
      country: 'FR',
      job: 'chef',
      level: 'mid',
      salary: 31000,
    });
    assert.notEqual(result.isError, true, raw.slice(0, 300));
    assert.doesNotMatch(raw, OUR_NAME);
    const answer = JSON.parse(result.content[0]!.text) as { meta: { attribution?: string } };
    assert.equal(answer.meta.attribution, ATTRIBUTION);
  });
});
