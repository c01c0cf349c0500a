import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { accountOnPlan } from '../helpers/accounts.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { listenHttp, type HttpCall } from '../helpers/http.js';

const nested = (depth: number, open = '[', close = ']') => open.repeat(depth) + close.repeat(depth);

describe('deeply nested JSON bodies are refused with 400, never a 500', () => {
  let t: TestApp;
  let call: HttpCall;
  let session: string;
  before(async () => {
    t = await buildTestApp();
    ({ call } = await listenHttp(t));
    session = (await accountOnPlan(t, 'enterprise')).session;
  });
  after(() => t.close());

  const targets: [string, string, boolean][] = [
    ['POST', '/api/v1/accounts', false],
    ['POST', '/api/v1/sessions', false],
    ['POST', '/api/v1/keys', true],
    ['PUT', '/api/v1/account/schema', true],
    ['POST', '/api/v1/webhooks', true],
    ['DELETE', '/api/v1/sessions/current', true],
  ];
  for (const [method, path, auth] of targets) {
    it(`${method} ${path}: 200,000 nested [ (400 KB) and deep objects are 400 INVALID_BODY`, async () => {
      const deepObject = `${'{"a":'.repeat(5_000)}1${'}'.repeat(5_000)}`;
      for (const body of [nested(200_000), nested(1_000), deepObject]) {
        const withKey: Record<string, string> = { 'idempotency-key': `deep-${Math.random()}` };
        for (const headers of [{}, withKey]) {
          const res = await call(method, path, {
            body,
            headers,
            ...(auth ? { token: session } : {}),
          });
          assert.equal(res.status, 400, res.body.slice(0, 300));
          assert.equal(res.json().code, 'INVALID_BODY');
          assert.match(res.json().detail, /deeper than 32 levels/);
        }
      }
    });
  }

  it('a wide body (60,000 members, 200,000 empty arrays) is 400 at once with a small answer', async () => {
    const members = `{${Array.from({ length: 60_000 }, (_, i) => `"k${i}":{}`).join(',')}}`;
    const arrays = `[${Array.from({ length: 200_000 }, () => '[]').join(',')}]`;
    for (const body of [members, arrays]) {
      for (const path of ['/api/v1/accounts', '/api/v1/sessions']) {
        const res = await call('POST', path, { body });
        assert.equal(res.status, 400);
        assert.equal(res.json().code, 'INVALID_BODY');
        assert.match(res.json().detail, /more than 10000 values/);
        assert.ok(res.body.length < 2_000, `${res.body.length} bytes`);
      }
    }
  });

  it('many unknown members within the limits are named 20 at most', async () => {
    const body = Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`k${i}`, 1]));
    const res = await call('POST', '/api/v1/accounts', { body });
    assert.equal(res.status, 400);
    assert.equal(res.json().invalid_params.length, 20);
    assert.match(res.json().detail, /\(and \d+ more\)\.$/);
    assert.ok(res.body.length < 8_000, `${res.body.length} bytes`);
  });

  it('Infinity and 1e309 in a query or a body are 400, never reach the database', async () => {
    for (const limit of ['Infinity', '1e309', '-Infinity', '%20Infinity']) {
      const res = await call('GET', `/api/v1/account/audit-log?limit=${limit}`, { token: session });
      assert.equal(res.status, 400, `${limit}: ${res.body}`);
      assert.equal(res.json().invalid_params[0].name, 'limit');
    }
    const body = await call('POST', '/api/v1/keys', { token: session, body: '{"name":1e309}' });
    assert.equal(body.status, 400, body.body);
    assert.match(body.json().detail, /too large/);
  });

  it('a body nested exactly 32 levels passes the parser (and meets the schema)', async () => {
    const res = await call('POST', '/api/v1/keys', {
      token: session,
      body: { name: 'depth', scopes: ['salary:read'], allowlist: [] },
    });
    assert.equal(res.status, 201, res.body);
    const edge = await call('POST', '/api/v1/sessions', { body: nested(32) });
    assert.equal(edge.status, 400);
    assert.doesNotMatch(edge.json().detail, /deeper than/);
    const over = await call('POST', '/api/v1/sessions', { body: nested(33) });
    assert.match(over.json().detail, /deeper than 32 levels/);
  });
});
