import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { deleteKeys, redisAvailable, TEST_REDIS_URL, uniquePrefix } from '../helpers/redis.js';

const PASSWORD = 'a long enough passphrase';
const LOOKUP = '/api/v1/salary?country=DE&job=software-engineer';
const redis = await redisAvailable();
const DAY_MS = 86_400_000;
const FUTURE = new Date(
  Math.ceil(Date.now() / DAY_MS) * DAY_MS + 2 * DAY_MS + 36_900_000,
).toISOString();

for (const limiter of ['memory', 'redis'] as const) {
  describe(
    `sign-ups are throttled per address; a Free account counts in its address bucket (${limiter})`,
    { skip: limiter === 'redis' && !redis && 'no Redis' },
    () => {
      let t: TestApp;
      let n = 0;
      const prefix = uniquePrefix();
      before(async () => {
        t = await buildTestApp({
          env: limiter === 'redis' ? { REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: prefix } : {},
          // Redis expires a counter at its window's end by its own clock: windows in the future.
          now: FUTURE,
        });
      });
      after(async () => {
        await t.close();
        if (limiter === 'redis') await deleteKeys(TEST_REDIS_URL, prefix);
      });

      const signUp = (remoteAddress: string) =>
        t.app.inject({
          method: 'POST',
          url: '/api/v1/accounts',
          payload: { email: `signup-${n++}@example.com`, password: PASSWORD },
          remoteAddress,
        });
      const get = (url: string, remoteAddress: string, token?: string) =>
        t.app.inject({
          url,
          remoteAddress,
          headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
        });

      it('30 parallel sign-ups from one /64: 10 accepted, the rest 429 with Retry-After', async () => {
        const results = await Promise.all(
          Array.from({ length: 30 }, (_, i) => signUp(`2001:db8:5:6::${(i + 1).toString(16)}`)),
        );
        const statuses = results.map((r) => r.statusCode);
        assert.equal(statuses.filter((s) => s === 201).length, 10, statuses.join(','));
        const refused = results.filter((r) => r.statusCode === 429);
        assert.equal(refused.length, 20);
        for (const r of refused) {
          assert.equal(r.json().code, 'TOO_MANY_ATTEMPTS');
          assert.ok(Number(r.headers['retry-after']) > 0);
        }
        // The next hour admits sign-ups again.
        t.clock.advance(60 * 60_000);
        assert.equal((await signUp('2001:db8:5:6::abc')).statusCode, 201);
      });

      it('sign-ups after the address used its anonymous hour get no more requests from it', async () => {
        const address = '198.51.100.30';
        for (let i = 0; i < 100; i++)
          assert.equal((await get('/api/v1/countries', address)).statusCode, 200);
        assert.equal((await get('/api/v1/countries', address)).statusCode, 429);
        for (let i = 0; i < 3; i++) {
          const res = await signUp(address);
          assert.equal(res.statusCode, 201, res.body);
          const session = res.json<{ session: { token: string } }>().session.token;
          const data = await get(LOOKUP, address, session);
          assert.equal(data.statusCode, 429, data.body);
          assert.equal(data.json().code, 'RATE_LIMITED');
        }
      });

      it("a Free account's requests use up its address's anonymous hour as well", async () => {
        const address = '198.51.100.31';
        const res = await signUp(address);
        const session = res.json<{ session: { token: string } }>().session.token;
        for (let i = 0; i < 100; i++)
          assert.equal((await get(LOOKUP, address, session)).statusCode, 200);
        assert.equal(
          (await get(LOOKUP, address)).statusCode,
          429,
          'anonymous from the same address',
        );
        assert.equal((await get(LOOKUP, '198.51.100.32')).statusCode, 200, 'another address');
      });
    },
  );
}

describe('a Free account over real HTTP spends the address bucket too', () => {
  let t: TestApp;
  let base: string;
  before(async () => {
    t = await buildTestApp();
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  });
  after(() => t.close());

  it('100 session lookups leave none for anonymous callers of 127.0.0.1', async () => {
    const res = await fetch(`${base}/api/v1/accounts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'fast@example.com', password: PASSWORD }),
    });
    const { session } = (await res.json()) as { session: { token: string } };
    const authorization = `Bearer ${session.token}`;
    for (let i = 0; i < 100; i++)
      assert.equal((await fetch(`${base}${LOOKUP}`, { headers: { authorization } })).status, 200);
    assert.equal((await fetch(`${base}${LOOKUP}`)).status, 429);
  });
});
