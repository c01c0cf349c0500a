import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { accountOnPlan } from '../helpers/accounts.js';

/**
 * Forged X-Forwarded-For over real HTTP on 127.0.0.1, so Fastify's trustProxy judges the real
 * peer address: the header counts only when the peer is a configured proxy.
 */
const SALARY = '/api/v1/salary?country=DE&job=nurse';
const FREE_LIMIT = 100;
const ALLOWED_NET = '203.0.113.0/24';

interface Served {
  t: TestApp;
  base: string;
  businessKey: string;
}

async function serve(trustProxy: string | undefined): Promise<Served> {
  const t = await buildTestApp(
    trustProxy === undefined ? {} : { env: { TRUST_PROXY: trustProxy } },
  );
  const business = await accountOnPlan(t, 'business');
  const set = await t.app.inject({
    method: 'PUT',
    url: '/api/v1/account/allowlist',
    headers: { authorization: `Bearer ${business.session}` },
    payload: { allowlist: [ALLOWED_NET] },
  });
  assert.equal(set.statusCode, 200, set.body);
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = t.app.server.address() as AddressInfo;
  return { t, base: `http://127.0.0.1:${port}`, businessKey: business.apiKey! };
}

const get = (s: Served, headers: Record<string, string>, url = SALARY) =>
  fetch(`${s.base}${url}`, { headers });

/** A different, plausible client address for every request. */
const forged = (i: number) =>
  [
    `198.51.100.${i % 250}`,
    `203.0.113.${i % 250}, 127.0.0.1`,
    `2001:db8::${i.toString(16)}`,
    `10.0.${i % 250}.1`,
    `garbage-${i}`,
  ][i % 5]!;

async function exhaustFreeQuota(s: Served): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i <= FREE_LIMIT; i++) {
    const res = await get(s, { 'x-forwarded-for': forged(i) });
    await res.arrayBuffer();
    statuses.push(res.status);
  }
  return statuses;
}

for (const [name, trustProxy] of [
  ['TRUST_PROXY unset', undefined],
  ['TRUST_PROXY naming another address than the peer', '10.9.9.9,192.0.2.0/24'],
] as const) {
  describe(`forged X-Forwarded-For, ${name}`, () => {
    let s: Served;
    before(async () => {
      s = await serve(trustProxy);
    });
    after(() => s.t.close());

    it('the 101st Free request in the hour from one peer is 429, whatever X-Forwarded-For says', async () => {
      const statuses = await exhaustFreeQuota(s);
      assert.deepEqual(statuses.slice(0, FREE_LIMIT), Array(FREE_LIMIT).fill(200));
      assert.equal(statuses[FREE_LIMIT], 429);
      const res = await get(s, { 'x-forwarded-for': '192.0.2.77' });
      assert.equal(res.status, 429);
      assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
      assert.equal(((await res.json()) as { code: string }).code, 'RATE_LIMITED');
    });

    it("a Business account's IP allowlist is not passed by naming an allowed address", async () => {
      for (const xff of ['203.0.113.9', '203.0.113.9, 203.0.113.10', '127.0.0.1, 203.0.113.9']) {
        const res = await get(s, {
          authorization: `Bearer ${s.businessKey}`,
          'x-forwarded-for': xff,
        });
        const body = (await res.json()) as { code: string; address: string };
        assert.equal(res.status, 403, xff);
        assert.equal(body.code, 'ADDRESS_NOT_ALLOWED');
        assert.equal(body.address, '127.0.0.1', 'judged by the peer address');
      }
    });
  });
}

describe('X-Forwarded-For from a trusted proxy (TRUST_PROXY is the peer)', () => {
  let s: Served;
  before(async () => {
    s = await serve('127.0.0.1');
  });
  after(() => s.t.close());

  it('gives each forwarded client its own Free bucket', async () => {
    const statuses: number[] = [];
    for (let i = 0; i <= FREE_LIMIT; i++) {
      const res = await get(s, { 'x-forwarded-for': `198.51.100.${i % 250}` });
      await res.arrayBuffer();
      statuses.push(res.status);
    }
    assert.deepEqual(statuses, Array(FREE_LIMIT + 1).fill(200));
    // One forwarded client still runs out: the limit is per client, not per proxy.
    for (let i = 0; i < FREE_LIMIT - 1; i++) {
      await (await get(s, { 'x-forwarded-for': '198.51.100.7' })).arrayBuffer();
    }
    assert.equal((await get(s, { 'x-forwarded-for': '198.51.100.7' })).status, 429);
  });

  it('judges the allowlist by the forwarded client address', async () => {
    const auth = { authorization: `Bearer ${s.businessKey}` };
    const allowed = await get(s, { ...auth, 'x-forwarded-for': '203.0.113.9' });
    await allowed.arrayBuffer();
    assert.equal(allowed.status, 200);
    const refused = await get(s, { ...auth, 'x-forwarded-for': '198.51.100.1' });
    assert.equal(refused.status, 403);
    assert.equal(((await refused.json()) as { address: string }).address, '198.51.100.1');
    const direct = await get(s, auth);
    assert.equal(direct.status, 403, 'without the header the proxy itself is the client');
    await direct.arrayBuffer();
  });
});
