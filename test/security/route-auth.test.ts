import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import Fastify from 'fastify';
import { authenticateByRoute } from '../../src/http/auth-hook.js';
import { quotaByRoute, routeQuotaSpender } from '../../src/http/quota.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { accountOnPlan } from '../helpers/accounts.js';

/** Paths the router decodes to an account route: the raw URL must never decide authentication. */
const ENCODED: [string, string][] = [
  ['GET', '/%61pi/v1/keys'],
  ['GET', '/api/v1/%6Beys'],
  ['GET', '/%61pi/v1/account'],
  ['GET', '/%61pi/v1/account/audit-log'],
  ['GET', '/%61pi/v1/webhooks'],
  ['POST', '/%61pi/v1/webhooks'],
  ['GET', '/%61pi/v1/invoices'],
  ['GET', '/%61pi/v1/usage'],
  ['GET', '/%61pi/v1/subscription'],
  ['GET', '/%2561pi/v1/keys'],
  ['GET', '/api/v1/keys/'],
];

describe('authentication is decided by the matched route, never the raw URL', () => {
  let t: TestApp;
  let business: Awaited<ReturnType<typeof accountOnPlan>>;
  before(async () => {
    t = await buildTestApp();
    business = await accountOnPlan(t, 'business');
  });
  after(() => t.close());

  for (const [method, url] of ENCODED) {
    it(`${method} ${url} without a credential: 401 or 404, never a handler without a principal`, async () => {
      const res = await t.app.inject({
        method: method as 'GET',
        url,
        payload: method === 'POST' ? { url: 'https://example.com/hook', events: [] } : undefined,
      });
      assert.ok([401, 404].includes(res.statusCode), `${res.statusCode} ${res.body}`);
      assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
    });
  }

  it('a percent-encoded account path with a valid key answers as the plain path does', async () => {
    const auth = { authorization: `Bearer ${business.apiKey}` };
    const plain = await t.app.inject({ url: '/api/v1/keys', headers: auth });
    const encoded = await t.app.inject({ url: '/%61pi/v1/keys', headers: auth });
    assert.equal(plain.statusCode, 200);
    assert.equal(encoded.statusCode, 200);
    assert.deepEqual(encoded.json(), plain.json());
  });

  it('a percent-encoded data path spends quota and counts in usage as the plain path does', async () => {
    const res = await t.app.inject({
      url: '/%61pi/v1/salary?country=DE&job=software-engineer',
      headers: { authorization: `Bearer ${business.apiKey}` },
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.ok(res.headers['ratelimit-policy'] !== undefined, 'quota spent');
    const counted = t.recorder
      .pending(business.accountId)
      .filter((r) => r.endpoint === 'GET /api/v1/salary' && r.status === 200);
    assert.equal(
      counted.reduce((n, r) => n + r.count, 0),
      1,
    );
  });

  it('over real HTTP, other spellings of a path reach the same route and its authentication', async () => {
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    const query = '?country=DE&job=software-engineer';
    assert.equal((await fetch(`${base}/%61pi/v1/keys`)).status, 401);
    for (const path of ['/%61pi/v1/salary', '/api/v1/%73alary', '/api/v1/salary/']) {
      const res = await fetch(`${base}${path}${query}`);
      assert.equal(res.status, 200, path);
    }
    assert.equal((await fetch(`${base}/api/v1/salary${query}`)).status, 200);
  });

  it('refuses to register an API route without config.auth', async () => {
    const app = Fastify();
    authenticateByRoute(app, () => {
      throw new Error('not called');
    });
    assert.throws(
      () => app.get('/api/v1/undeclared', async () => 'x'),
      /GET \/api\/v1\/undeclared declares no config\.auth/,
    );
    app.get('/elsewhere', async () => 'x');
    await app.close();
  });
});

describe('quota is declared by the route', () => {
  const data = { access: 'data', scope: 'salary:read' } as const;

  it('refuses to register a data route without config.quota, or with a cost not a positive integer', async () => {
    const app = Fastify();
    quotaByRoute(app);
    assert.throws(
      () => app.get('/api/v1/figures', { config: { auth: data } }, async () => 'x'),
      /GET \/api\/v1\/figures serves data and declares no config\.quota/,
    );
    for (const cost of [0, -1, 1.5, Number.NaN]) {
      assert.throws(
        () => app.get(`/api/v1/cost`, { config: { auth: data, quota: { cost } } }, async () => 'x'),
        /config\.quota\.cost .* not a positive integer/,
        String(cost),
      );
    }
    assert.throws(
      () =>
        app.get(
          '/api/v1/open',
          { config: { auth: { access: 'public' }, quota: { cost: 1 } } },
          async () => 'x',
        ),
      /declares config\.quota but no caller whose quota to spend/,
    );
    app.get('/api/v1/two', { config: { auth: data, quota: { cost: 2 } } }, async () => 'x');
    app.get(
      '/api/v1/account-thing',
      { config: { auth: { access: 'account', scope: 'usage:read' } } },
      async () => 'x',
    );
    await app.close();
  });

  it('a handler that spends on a route without a declaration fails loudly (500), spending nothing', async () => {
    let spent = 0;
    const spend = routeQuotaSpender(() => {
      spent++;
      return undefined;
    });
    const app = Fastify();
    app.get('/undeclared', async (request, reply) => spend(request, reply, () => 'x'));
    const res = await app.inject({ method: 'GET', url: '/undeclared' });
    assert.equal(res.statusCode, 500);
    assert.match(res.json<{ message: string }>().message, /declares no config\.quota/);
    assert.equal(spent, 0);
    await app.close();
  });
});
