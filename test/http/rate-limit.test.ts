import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { accountOnPlan } from '../helpers/accounts.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';

const URL_OK = '/api/v1/salary?country=DE&job=nurse&level=mid';

describe('Free plan limit: 100 requests per UTC clock hour per address', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({ now: '2026-11-22T10:15:30.250Z', env: { TRUST_PROXY: '10.0.0.1' } });
  });
  after(() => t.close());

  const get = (url: string, remoteAddress = '198.51.100.7', headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'GET', url, remoteAddress, headers });

  it('admits exactly 100 in the hour with headers counting down, then 429 to the top of the hour', async () => {
    t.clock.set('2026-11-22T10:15:30.250Z');
    for (let i = 1; i <= 100; i++) {
      const res = await get(URL_OK, '198.51.100.7');
      assert.equal(res.statusCode, 200, `request ${i}`);
      assert.equal(res.headers['x-ratelimit-limit'], '100');
      assert.equal(res.headers['x-ratelimit-remaining'], String(100 - i));
      assert.equal(
        res.headers['x-ratelimit-reset'],
        String(Date.parse('2026-11-22T11:00:00Z') / 1000),
      );
      assert.equal(res.headers['ratelimit-policy'], '"hourly";q=100;w=3600');
      assert.equal(res.headers.ratelimit, `"hourly";r=${100 - i};t=2670`);
    }
    const refused = await get(URL_OK, '198.51.100.7');
    assert.equal(refused.statusCode, 429);
    assert.match(String(refused.headers['content-type']), /problem\+json/);
    // 10:15:30.250 → 11:00:00 is 2669.75 s: whole seconds, rounded up.
    assert.equal(refused.headers['retry-after'], '2670');
    const problem = refused.json();
    assert.equal(problem.code, 'RATE_LIMITED');
    assert.equal(problem.retry_after, 2670);
    assert.equal(refused.headers['x-ratelimit-remaining'], '0');
  });

  it('counts the catalogue endpoints against the same quota', async () => {
    assert.equal((await get('/api/v1/countries', '198.51.100.7')).statusCode, 429);
    assert.equal((await get('/api/v1/jobs', '198.51.100.7')).statusCode, 429);
  });

  it('keeps other addresses independent', async () => {
    assert.equal((await get(URL_OK, '198.51.100.8')).headers['x-ratelimit-remaining'], '99');
  });

  it('resets at the top of the hour, not an hour after the first request', async () => {
    t.clock.set('2026-11-22T10:59:59.999Z');
    assert.equal((await get(URL_OK, '198.51.100.7')).statusCode, 429);
    t.clock.set('2026-11-22T11:00:00.000Z');
    const res = await get(URL_OK, '198.51.100.7');
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['x-ratelimit-remaining'], '99');
  });

  it('does not spend quota on refused requests (400, 401, 403, 404, 406)', async () => {
    t.clock.set('2026-11-22T12:00:00Z');
    const address = '203.0.113.50';
    const refused = [
      '/api/v1/salary?country=XX&job=nurse',
      '/api/v1/salary?country=DE&job=nurse&format=csv',
      '/api/v1/salary?country=DE&job=nurse&year=2020',
      '/api/v1/salary?country=DE&job=nurse&year=2031',
    ];
    for (const url of refused) assert.notEqual((await get(url, address)).statusCode, 200);
    assert.equal((await get(URL_OK, address, { authorization: 'Bearer nope' })).statusCode, 401);
    assert.equal((await get(URL_OK, address, { accept: 'image/png' })).statusCode, 406);
    assert.equal((await get(URL_OK, address)).headers['x-ratelimit-remaining'], '99');
  });

  it('does not spend quota on 429s: the next window starts from zero', async () => {
    t.clock.set('2026-11-22T13:00:00Z');
    const address = '203.0.113.51';
    for (let i = 0; i < 100; i++) await get(URL_OK, address);
    for (let i = 0; i < 20; i++) assert.equal((await get(URL_OK, address)).statusCode, 429);
    t.clock.set('2026-11-22T14:00:00Z');
    assert.equal((await get(URL_OK, address)).headers['x-ratelimit-remaining'], '99');
  });

  it('counts an IPv6 client by its /64 and IPv4-mapped IPv6 as IPv4', async () => {
    t.clock.set('2026-11-22T15:00:00Z');
    await get(URL_OK, '2001:db8:1:2::1');
    const sameNet = await get(URL_OK, '2001:db8:1:2:ffff:ffff:ffff:fffe');
    assert.equal(sameNet.headers['x-ratelimit-remaining'], '98');
    const otherNet = await get(URL_OK, '2001:db8:1:3::1');
    assert.equal(otherNet.headers['x-ratelimit-remaining'], '99');
    await get(URL_OK, '192.0.2.9');
    assert.equal((await get(URL_OK, '::ffff:192.0.2.9')).headers['x-ratelimit-remaining'], '98');
  });

  it('believes X-Forwarded-For only from a trusted proxy', async () => {
    t.clock.set('2026-11-22T16:00:00Z');
    // Through the trusted proxy, each forwarded client has its own bucket.
    const viaProxy = (client: string) => get(URL_OK, '10.0.0.1', { 'x-forwarded-for': client });
    assert.equal((await viaProxy('192.0.2.100')).headers['x-ratelimit-remaining'], '99');
    assert.equal((await viaProxy('192.0.2.101')).headers['x-ratelimit-remaining'], '99');
    // From an untrusted peer, forged headers change nothing: all count against the peer.
    const forged = (client: string) => get(URL_OK, '198.18.0.1', { 'x-forwarded-for': client });
    assert.equal((await forged('192.0.2.200')).headers['x-ratelimit-remaining'], '99');
    assert.equal((await forged('192.0.2.201')).headers['x-ratelimit-remaining'], '98');
    assert.equal((await forged('192.0.2.202')).headers['x-ratelimit-remaining'], '97');
  });
});

describe('plan limits from configuration', () => {
  it('uses PLAN_OVERRIDES for the Free limit', async () => {
    const t = await buildTestApp({ env: { PLAN_OVERRIDES: '{"free":{"requestLimit":3}}' } });
    try {
      const codes = [];
      for (let i = 0; i < 4; i++) codes.push((await t.app.inject(URL_OK)).statusCode);
      assert.deepEqual(codes, [200, 200, 200, 429]);
    } finally {
      await t.close();
    }
  });
});

describe('in-process limits after a restart', () => {
  let first: TestApp;
  let second: TestApp | undefined;
  before(async () => {
    first = await buildTestApp({
      now: '2026-11-22T10:15:00Z',
      env: { PLAN_OVERRIDES: '{"developer":{"requestLimit":5}}' },
    });
  });
  after(async () => {
    await second?.close();
    await first.close();
  });

  it("a new process starts from today's usage, not from a fresh quota", async () => {
    const { apiKey } = await accountOnPlan(first, 'developer');
    const lookup = (t: TestApp) =>
      t.app.inject({ method: 'GET', url: URL_OK, headers: { authorization: `Bearer ${apiKey}` } });
    // Yesterday's requests count for nothing today; three today.
    first.clock.set('2026-11-21T23:00:00Z');
    assert.equal((await lookup(first)).statusCode, 200);
    first.clock.set('2026-11-22T09:00:00Z');
    for (let i = 0; i < 3; i++) assert.equal((await lookup(first)).statusCode, 200);
    await first.recorder.flush();
    // The same database, a new process (its own in-process limiter), later the same day.
    second = await buildTestApp({
      now: '2026-11-22T14:00:00Z',
      db: first.db,
      env: { PLAN_OVERRIDES: '{"developer":{"requestLimit":5}}' },
    });
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await lookup(second)).statusCode);
    assert.deepEqual(statuses, [200, 200, 429]);
  });
});
