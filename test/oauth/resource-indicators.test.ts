// RFC 8707 over real HTTP: the token endpoint issues a token for the resource the client names
// (the REST API at <base>/api/v1 or the MCP server at <base>/mcp), its `aud` is that resource,
// and each resource refuses tokens issued for the other; an unknown resource is invalid_target.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decodeJwt } from 'jose';
import { accountOnPlan } from '../helpers/accounts.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { listenHttp, type HttpCall } from '../helpers/http.js';
import { basicAuth, createClient, type CreatedClient } from '../helpers/oauth.js';

const ISSUER = 'https://api.example.test';
const API = `${ISSUER}/api/v1`;
const MCP = `${ISSUER}/mcp`;
const DE = '/api/v1/salary?country=DE&job=software-engineer&level=senior';
const LIST = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
const MCP_ACCEPT = { accept: 'application/json, text/event-stream' };

describe('OAuth resource indicators (RFC 8707)', () => {
  let t: TestApp;
  let call: HttpCall;
  let client: CreatedClient;

  before(async () => {
    t = await buildTestApp({ env: { PUBLIC_BASE_URL: ISSUER } });
    ({ call } = await listenHttp(t));
    const { session } = await accountOnPlan(t, 'enterprise');
    client = await createClient(t, session, { name: 'agent', scopes: ['salary:read'] });
  });
  after(() => t.close());

  const token = (form: string) =>
    call('POST', '/oauth/token', {
      headers: {
        authorization: basicAuth(client.client_id, client.client_secret),
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: `grant_type=client_credentials${form}`,
    });

  async function accessToken(form: string): Promise<string> {
    const res = await token(form);
    assert.equal(res.status, 200, res.body);
    return res.json().access_token as string;
  }

  it('a token asked for the MCP resource has it as aud, works at /mcp and is refused at /api/v1', async () => {
    const mcp = await accessToken(`&resource=${encodeURIComponent(MCP)}`);
    assert.equal(decodeJwt(mcp).aud, MCP);
    const listed = await call('POST', '/mcp', { token: mcp, headers: MCP_ACCEPT, body: LIST });
    assert.equal(listed.status, 200, listed.body);
    assert.ok(Array.isArray(listed.json().result.tools));
    const rest = await call('GET', DE, { token: mcp });
    assert.equal(rest.status, 401, rest.body);
    assert.equal(rest.json().code, 'UNAUTHENTICATED');
    assert.match(rest.json().detail, /resource=https:\/\/api\.example\.test\/api\/v1/);
    assert.match(rest.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
  });

  it('a token for the REST API (named, or by default) works there and is refused at /mcp', async () => {
    for (const form of [`&resource=${encodeURIComponent(API)}`, '']) {
      const api = await accessToken(form);
      assert.equal(decodeJwt(api).aud, API, form);
      assert.equal((await call('GET', DE, { token: api })).status, 200, form);
      const refused = await call('POST', '/mcp', { token: api, headers: MCP_ACCEPT, body: LIST });
      assert.equal(refused.status, 401, refused.body);
      assert.match(refused.json().detail, /resource=https:\/\/api\.example\.test\/mcp/);
      // The refusal points the client at the resource's metadata, which names the resource.
      const challenge = refused.headers.get('www-authenticate') ?? '';
      const metadataUrl = /resource_metadata="([^"]+)"/.exec(challenge)?.[1];
      assert.equal(metadataUrl, `${ISSUER}/.well-known/oauth-protected-resource/mcp`);
      const metadata = (await call('GET', '/.well-known/oauth-protected-resource/mcp')).json();
      assert.equal(metadata.resource, MCP);
    }
  });

  it('introspection reports the audience the token was issued for', async () => {
    const mcp = await accessToken(`&resource=${encodeURIComponent(MCP)}`);
    const res = await call('POST', '/oauth/introspect', {
      headers: {
        authorization: basicAuth(client.client_id, client.client_secret),
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: `token=${mcp}`,
    });
    assert.equal(res.status, 200, res.body);
    assert.equal(res.json().active, true);
    assert.equal(res.json().aud, MCP);
  });

  for (const [name, form] of [
    ['another host', `&resource=${encodeURIComponent('https://evil.example/mcp')}`],
    ['another path', `&resource=${encodeURIComponent(`${ISSUER}/api/v2`)}`],
    ['a relative reference', '&resource=%2Fmcp'],
    ['an empty value', '&resource='],
    ['two resources', `&resource=${encodeURIComponent(API)}&resource=${encodeURIComponent(MCP)}`],
  ]) {
    it(`${name}: 400 invalid_target naming the resources allowed, no token`, async () => {
      const res = await token(form!);
      assert.equal(res.status, 400, res.body);
      assert.equal(res.json().error, 'invalid_target');
      assert.equal(res.json().access_token, undefined);
      if (name !== 'two resources') {
        assert.match(res.json().error_description, new RegExp(`${API} or ${MCP}`));
      }
    });
  }
});
