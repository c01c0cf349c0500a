import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { accountOnPlan } from '../helpers/accounts.js';
import { clientAndToken } from '../helpers/oauth.js';

const DE = '/api/v1/salary?country=DE&job=software-engineer&level=senior';

/** A refusal names the credential the caller used: an access token is not an "API key". */
describe('refusals name the credential used (OAuth token, API key)', () => {
  let t: TestApp;
  let session: string;

  before(async () => {
    t = await buildTestApp();
    ({ session } = await accountOnPlan(t, 'enterprise'));
  });
  after(() => t.close());

  async function client(body: Record<string, unknown>): Promise<string> {
    return (await clientAndToken(t, session, body)).accessToken;
  }

  async function key(body: Record<string, unknown>): Promise<string> {
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/v1/keys',
      headers: { authorization: `Bearer ${session}` },
      payload: body,
    });
    assert.equal(created.statusCode, 201, created.body);
    return created.json<{ key: string }>().key;
  }

  const get = (credential: string, url: string, remoteAddress = '127.0.0.1') =>
    t.app.inject({ url, remoteAddress, headers: { authorization: `Bearer ${credential}` } });

  it('a token without the scope: 403 SCOPE_MISSING naming the access token, on the JSON lookup and on other routes', async () => {
    const token = await client({ name: 'usage only', scopes: ['usage:read'] });
    for (const url of [DE, '/api/v1/keys']) {
      const res = await get(token, url);
      assert.equal(res.statusCode, 403, `${url}: ${res.body}`);
      const problem = res.json<{ code: string; detail: string }>();
      assert.equal(problem.code, 'SCOPE_MISSING');
      assert.match(problem.detail, /^This OAuth access token lacks the scope /);
      assert.doesNotMatch(problem.detail, /API key/);
    }
  });

  it('a key without the scope: the same refusal names the API key', async () => {
    const apiKey = await key({ name: 'usage only', scopes: ['usage:read'] });
    const res = await get(apiKey, '/api/v1/keys');
    assert.equal(res.statusCode, 403, res.body);
    assert.equal(res.json<{ detail: string }>().detail, 'This API key lacks the scope keys:read.');
  });

  it("a token outside its client's allowlist: 403 naming the OAuth client's allowlist", async () => {
    const token = await client({
      name: 'pinned',
      scopes: ['salary:read'],
      allowlist: ['127.0.0.1/32'],
    });
    const res = await get(token, DE, '192.0.2.7');
    assert.equal(res.statusCode, 403, res.body);
    const problem = res.json<{ code: string; detail: string }>();
    assert.equal(problem.code, 'ADDRESS_NOT_ALLOWED');
    assert.match(problem.detail, /this OAuth client's or the account's IP allowlist/);
  });

  it('a token creating a key broader than itself: 403 KEY_EXCEEDS_CALLER naming the access token', async () => {
    const token = await client({
      name: 'key maker',
      scopes: ['keys:write', 'salary:read'],
      allowlist: ['127.0.0.1/32'],
    });
    const create = (body: Record<string, unknown>) =>
      t.app.inject({
        method: 'POST',
        url: '/api/v1/keys',
        headers: { authorization: `Bearer ${token}` },
        payload: { name: 'minted', ...body },
      });
    const scopes = await create({ scopes: ['bulk:read'] });
    assert.equal(scopes.statusCode, 403, scopes.body);
    assert.match(
      scopes.json<{ detail: string }>().detail,
      /^This OAuth access token cannot create a key with scopes it does not hold itself: bulk:read\.$/,
    );
    const wider = await create({ scopes: ['salary:read'], allowlist: ['192.0.2.0/24'] });
    assert.equal(wider.statusCode, 403, wider.body);
    assert.match(
      wider.json<{ detail: string }>().detail,
      /^This OAuth access token is limited to its client's IP allowlist; /,
    );
  });

  it('a scoped key creating a broader key: the refusal names the API key', async () => {
    const apiKey = await key({ name: 'maker', scopes: ['keys:write'] });
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/keys',
      headers: { authorization: `Bearer ${apiKey}` },
      payload: { name: 'minted', scopes: ['bulk:read'] },
    });
    assert.equal(res.statusCode, 403, res.body);
    assert.match(res.json<{ detail: string }>().detail, /^This API key cannot create a key /);
  });
});
