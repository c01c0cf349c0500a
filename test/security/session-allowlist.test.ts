import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { accountOnPlan } from '../helpers/accounts.js';

const ON_LIST = '203.0.113.5';
const OFF_LIST = '198.51.100.1';
const DATA = [
  '/api/v1/salary?country=DE&job=software-engineer',
  '/api/v1/salary/history?country=DE&job=software-engineer',
  '/api/v1/bulk/archive?format=csv',
  '/api/v1/bulk/countries?job=software-engineer',
  '/api/v1/bulk/jobs?country=DE',
  '/api/v1/countries',
  '/api/v1/jobs',
];

describe('the account allowlist binds sessions on data routes; account management stays open', () => {
  let t: TestApp;
  let business: Awaited<ReturnType<typeof accountOnPlan>>;
  before(async () => {
    t = await buildTestApp();
    business = await accountOnPlan(t, 'business');
  });
  after(() => t.close());

  const call = (
    method: 'GET' | 'PUT',
    url: string,
    token: string,
    from: string,
    payload?: object,
  ) =>
    t.app.inject({
      method,
      url,
      payload,
      remoteAddress: from,
      headers: { authorization: `Bearer ${token}` },
    });
  const setAllowlist = (allowlist: string[], from: string) =>
    call('PUT', '/api/v1/account/allowlist', business.session, from, { allowlist });

  it('refuses the session from an address off the list on every data route, like the key', async () => {
    assert.equal((await setAllowlist(['203.0.113.0/24'], ON_LIST)).statusCode, 200);
    for (const url of DATA) {
      for (const token of [business.session, business.apiKey!]) {
        const off = await call('GET', url, token, OFF_LIST);
        assert.equal(off.statusCode, 403, `${url}: ${off.body}`);
        assert.equal(off.json().code, 'ADDRESS_NOT_ALLOWED');
        assert.equal((await call('GET', url, token, ON_LIST)).statusCode, 200, url);
      }
    }
  });

  it('lets the session manage the account from anywhere, so a wrong list can be fixed', async () => {
    assert.equal((await setAllowlist(['192.0.2.1'], ON_LIST)).statusCode, 200);
    assert.equal(
      (await call('GET', '/api/v1/account', business.session, OFF_LIST)).statusCode,
      200,
    );
    assert.equal((await call('GET', '/api/v1/keys', business.session, OFF_LIST)).statusCode, 200);
    const byKey = await call('GET', '/api/v1/account', business.apiKey!, OFF_LIST);
    assert.equal(byKey.statusCode, 403, 'a key stays bound on account routes');
    assert.equal((await setAllowlist([], OFF_LIST)).statusCode, 200);
    const url = DATA[0]!;
    assert.equal((await call('GET', url, business.session, OFF_LIST)).statusCode, 200);
  });

  it('the JSON lookup refuses the session too (real HTTP)', async () => {
    await setAllowlist(['203.0.113.0/24'], ON_LIST);
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = t.app.server.address() as AddressInfo;
    const res = await fetch(`http://127.0.0.1:${port}${DATA[0]}`, {
      headers: { authorization: `Bearer ${business.session}` },
    });
    assert.equal(res.status, 403);
    assert.equal(((await res.json()) as { code: string }).code, 'ADDRESS_NOT_ALLOWED');
  });
});
