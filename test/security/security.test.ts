import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { accountOnPlan } from '../helpers/accounts.js';

describe('security: wrong key, revoked key, other account, wrong address, missing scope', () => {
  let t: TestApp;
  let alice: Awaited<ReturnType<typeof accountOnPlan>>;
  let bob: Awaited<ReturnType<typeof accountOnPlan>>;
  let ent: Awaited<ReturnType<typeof accountOnPlan>>;
  before(async () => {
    t = await buildTestApp({ env: { TRUST_PROXY: '10.0.0.1' } });
    alice = await accountOnPlan(t, 'business');
    bob = await accountOnPlan(t, 'business');
    ent = await accountOnPlan(t, 'enterprise');
  });
  after(() => t.close());

  const req = (
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    url: string,
    token?: string,
    opts: { payload?: object; remoteAddress?: string; headers?: Record<string, string> } = {},
  ) =>
    t.app.inject({
      method,
      url,
      payload: opts.payload,
      remoteAddress: opts.remoteAddress,
      headers: {
        ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
        ...opts.headers,
      },
    });

  const protectedEndpoints: ['GET' | 'POST' | 'PUT' | 'DELETE', string, object?][] = [
    ['GET', '/api/v1/account'],
    ['GET', '/api/v1/keys'],
    ['POST', '/api/v1/keys', {}],
    ['GET', '/api/v1/subscription'],
    ['GET', '/api/v1/invoices'],
    ['GET', '/api/v1/balance'],
    ['GET', '/api/v1/usage'],
    ['PUT', '/api/v1/account/allowlist', { allowlist: [] }],
    ['GET', '/api/v1/account/audit-log'],
  ];

  for (const [method, url, payload] of protectedEndpoints) {
    it(`${method} ${url}: no credential 401, wrong or malformed key 401`, async () => {
      assert.equal((await req(method, url, undefined, { payload })).statusCode, 401);
      for (const token of ['sk_live_' + 'A'.repeat(43), 'sess_nope', 'sk_test_x', 'garbage']) {
        const res = await req(method, url, token, { payload });
        assert.equal(res.statusCode, 401, `${token}: ${res.body}`);
        assert.equal(res.json().code, 'UNAUTHENTICATED');
      }
    });
  }

  it('a revoked key and a logged-out session stop working at once', async () => {
    const created = (
      await req('POST', '/api/v1/keys', alice.session, { payload: { name: 'temp' } })
    ).json();
    assert.equal((await req('GET', '/api/v1/countries', created.key)).statusCode, 200);
    await req('DELETE', `/api/v1/keys/${created.id}`, alice.session);
    assert.equal((await req('GET', '/api/v1/countries', created.key)).statusCode, 401);
    const { token } = (
      await req('POST', '/api/v1/sessions', undefined, {
        payload: { email: alice.email, password: 'a long enough passphrase' },
      })
    ).json();
    assert.equal((await req('GET', '/api/v1/account', token)).statusCode, 200);
    assert.equal((await req('DELETE', '/api/v1/sessions/current', token)).statusCode, 204);
    assert.equal((await req('GET', '/api/v1/account', token)).statusCode, 401);
  });

  it("another account's key and invoice are 404, never shown or changed", async () => {
    const bobKeyId = (await req('GET', '/api/v1/keys', bob.session)).json().data[0].id;
    const bobInvoiceId = (await req('GET', '/api/v1/invoices', bob.session)).json().data[0].id;
    assert.equal((await req('GET', `/api/v1/keys/${bobKeyId}`, alice.apiKey!)).statusCode, 404);
    assert.equal(
      (await req('PATCH', `/api/v1/keys/${bobKeyId}`, alice.apiKey!, { payload: { name: 'mine' } }))
        .statusCode,
      404,
    );
    assert.equal((await req('DELETE', `/api/v1/keys/${bobKeyId}`, alice.apiKey!)).statusCode, 404);
    assert.equal(
      (await req('POST', `/api/v1/keys/${bobKeyId}/rotate`, alice.apiKey!, { payload: {} }))
        .statusCode,
      404,
    );
    assert.equal(
      (await req('GET', `/api/v1/invoices/${bobInvoiceId}`, alice.apiKey!)).statusCode,
      404,
    );
    assert.equal(
      (await req('GET', '/api/v1/countries', bob.apiKey!)).statusCode,
      200,
      "bob's key untouched",
    );
  });

  it('an IP allowlist refuses other addresses with 403, judging X-Forwarded-For only from trusted proxies', async () => {
    assert.equal(
      (
        await req('PUT', '/api/v1/account/allowlist', alice.session, {
          payload: { allowlist: ['203.0.113.0/24', '2001:db8::/48'] },
        })
      ).statusCode,
      200,
    );
    const url = '/api/v1/salary?country=DE&job=nurse';
    assert.equal(
      (await req('GET', url, alice.apiKey!, { remoteAddress: '203.0.113.9' })).statusCode,
      200,
    );
    assert.equal(
      (await req('GET', url, alice.apiKey!, { remoteAddress: '2001:db8:0:1::5' })).statusCode,
      200,
    );
    assert.equal(
      (await req('GET', url, alice.apiKey!, { remoteAddress: '::ffff:203.0.113.9' })).statusCode,
      200,
    );
    const refused = await req('GET', url, alice.apiKey!, { remoteAddress: '198.51.100.1' });
    assert.equal(refused.statusCode, 403);
    assert.equal(refused.json().code, 'ADDRESS_NOT_ALLOWED');
    // A forged header from an untrusted peer does not pass the allowlist …
    assert.equal(
      (
        await req('GET', url, alice.apiKey!, {
          remoteAddress: '198.51.100.1',
          headers: { 'x-forwarded-for': '203.0.113.9' },
        })
      ).statusCode,
      403,
    );
    // … but the same header from the trusted proxy does.
    assert.equal(
      (
        await req('GET', url, alice.apiKey!, {
          remoteAddress: '10.0.0.1',
          headers: { 'x-forwarded-for': '203.0.113.9' },
        })
      ).statusCode,
      200,
    );
    // A key-level list narrows further.
    const keyId = (await req('GET', '/api/v1/keys', alice.session))
      .json()
      .data.find((k: { status: string }) => k.status === 'active').id;
    await req('PATCH', `/api/v1/keys/${keyId}`, alice.session, {
      payload: { allowlist: ['203.0.113.7'] },
    });
    assert.equal(
      (await req('GET', url, alice.apiKey!, { remoteAddress: '203.0.113.9' })).statusCode,
      403,
    );
    assert.equal(
      (await req('GET', url, alice.apiKey!, { remoteAddress: '203.0.113.7' })).statusCode,
      200,
    );
    // Bad entries are refused with a reason.
    const bad = await req('PUT', '/api/v1/account/allowlist', alice.session, {
      payload: { allowlist: ['10.0.0.0/33', 'example.com'] },
    });
    assert.equal(bad.statusCode, 400);
    assert.match(bad.json().detail, /not an IP address or CIDR range/);
  });

  it('an Enterprise key without a scope gets 403 naming it', async () => {
    const readOnly = (
      await req('POST', '/api/v1/keys', ent.session, {
        payload: { name: 'reader', scopes: ['salary:read'] },
      })
    ).json();
    assert.equal(
      (await req('GET', '/api/v1/salary?country=DE&job=nurse', readOnly.key)).statusCode,
      200,
    );
    for (const [method, url, scope] of [
      ['GET', '/api/v1/keys', 'keys:read'],
      ['POST', '/api/v1/keys', 'keys:write'],
      ['GET', '/api/v1/usage', 'usage:read'],
      ['GET', '/api/v1/invoices', 'billing:read'],
    ] as const) {
      const res = await req(method, url, readOnly.key, {
        payload: method === 'POST' ? {} : undefined,
      });
      assert.equal(res.statusCode, 403, url);
      assert.equal(res.json().code, 'SCOPE_MISSING');
      assert.equal(res.json().required_scope, scope);
    }
    const unknown = await req('POST', '/api/v1/keys', ent.session, {
      payload: { scopes: ['root'] },
    });
    assert.equal(unknown.statusCode, 400);
  });

  it('never logs or stores a key in plain text', async () => {
    const rows = await t.db.query<{ text: string }>(
      'SELECT row_to_json(k)::text AS text FROM api_keys k',
    );
    for (const secret of [alice.apiKey!, bob.apiKey!, ent.apiKey!]) {
      assert.ok(
        rows.every((r) => !r.text.includes(secret.slice(8))),
        'no key material in api_keys',
      );
    }
    const idem = await t.db.query<{ response: string }>('SELECT response FROM idempotency_keys');
    assert.ok(idem.every((r) => !r.response.includes('sk_live_')));
  });
});
