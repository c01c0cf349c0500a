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

describe('allowlist edges over real HTTP, the client named by a trusted proxy', () => {
  let s: Served;
  let keyOnly: string;
  before(async () => {
    s = await serve('127.0.0.1');
    // A second Business account with no account list: only its key's list applies.
    const other = await accountOnPlan(s.t, 'business');
    const keys = await s.t.app.inject({
      url: '/api/v1/keys',
      headers: { authorization: `Bearer ${other.session}` },
    });
    const keyId = keys.json<{ data: { id: string }[] }>().data[0]!.id;
    const patched = await s.t.app.inject({
      method: 'PATCH',
      url: `/api/v1/keys/${keyId}`,
      headers: { authorization: `Bearer ${other.session}` },
      payload: { allowlist: ['198.51.100.7', '2001:db8:abcd:12::/64'] },
    });
    assert.equal(patched.statusCode, 200, patched.body);
    keyOnly = other.apiKey!;
  });
  after(() => s.t.close());

  /** The status for `client`, the same for the cached JSON lookup and for a CSV file. */
  const statusFrom = async (key: string, client: string) => {
    const statuses: number[] = [];
    for (const url of [SALARY, `${SALARY}&format=csv`]) {
      const res = await get(s, { authorization: `Bearer ${key}`, 'x-forwarded-for': client }, url);
      await res.arrayBuffer();
      statuses.push(res.status);
    }
    assert.equal(statuses[0], statuses[1], `${client}: JSON and CSV agree`);
    return statuses[0];
  };

  it(`the account list ${ALLOWED_NET}: its first and last address pass, their neighbours do not`, async () => {
    const cases: [string, number][] = [
      ['203.0.112.255', 403],
      ['203.0.113.0', 200],
      ['203.0.113.255', 200],
      ['203.0.114.0', 403],
      ['::ffff:203.0.113.255', 200],
      ['::ffff:203.0.114.0', 403],
    ];
    for (const [client, status] of cases)
      assert.equal(await statusFrom(s.businessKey, client), status, client);
  });

  it("a key's list of one IPv4 address and an IPv6 /64", async () => {
    const cases: [string, number][] = [
      ['198.51.100.6', 403],
      ['198.51.100.7', 200],
      ['198.51.100.8', 403],
      ['::ffff:198.51.100.7', 200],
      ['2001:db8:abcd:11:ffff:ffff:ffff:ffff', 403],
      ['2001:db8:abcd:12::', 200],
      ['2001:db8:abcd:12:ffff:ffff:ffff:ffff', 200],
      ['2001:db8:abcd:13::', 403],
    ];
    for (const [client, status] of cases)
      assert.equal(await statusFrom(keyOnly, client), status, client);
  });
});

describe('an IPv4 client of a dual-stack listener (peer address ::ffff:127.0.0.1)', () => {
  it('passes an allowlist naming its IPv4 address, and not one naming its neighbour', async () => {
    const t = await buildTestApp();
    try {
      const business = await accountOnPlan(t, 'business');
      const setList = async (allowlist: string[]) => {
        const res = await t.app.inject({
          method: 'PUT',
          url: '/api/v1/account/allowlist',
          headers: { authorization: `Bearer ${business.session}` },
          payload: { allowlist },
        });
        assert.equal(res.statusCode, 200, res.body);
      };
      await t.app.listen({ host: '::', port: 0, ipv6Only: false });
      const { port } = t.app.server.address() as AddressInfo;
      const call = async () => {
        const res = await fetch(`http://127.0.0.1:${port}${SALARY}`, {
          headers: { authorization: `Bearer ${business.apiKey}` },
        });
        return { status: res.status, body: (await res.json()) as { address?: string } };
      };
      await setList(['127.0.0.0']);
      const refused = await call();
      assert.equal(refused.status, 403);
      assert.match(refused.body.address ?? '', /127\.0\.0\.1$/, 'the peer seen as itself');
      await setList(['127.0.0.1']);
      assert.equal((await call()).status, 200);
      await setList(['::ffff:127.0.0.0/120']);
      assert.equal((await call()).status, 200, 'a mapped range is its IPv4 range');
    } finally {
      await t.close();
    }
  });
});
