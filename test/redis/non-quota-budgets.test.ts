// The shared limiter rebuilds an account's quota counters from its usage after a Redis
// connection is made; budgets that are not the plan's quota (test sends, redeliveries) count
// other things and are never raised to the account's API usage. Real HTTP, real Redis.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { RedisRateLimiter } from '../../src/limits/index.js';
import { openRedis, redisReady, type Redis } from '../../src/store/index.js';
import { accountOnPlan } from '../helpers/accounts.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { listenHttp, type HttpCall } from '../helpers/http.js';
import { answer, startReceiver, type Receiver } from '../helpers/receiver.js';
import { deleteKeys, redisAvailable, TEST_REDIS_URL, uniquePrefix } from '../helpers/redis.js';

const skip = !(await redisAvailable()) && 'no Redis reachable';

describe('non-quota budgets after a Redis reconciliation', { skip }, () => {
  const prefix = uniquePrefix();
  let redis: Redis;
  let t: TestApp;
  let call: HttpCall;
  let receiver: Receiver;

  before(async () => {
    redis = openRedis(TEST_REDIS_URL, { commandTimeoutMs: 5000 });
    await redisReady(redis);
    receiver = await startReceiver(answer(204));
    // A window in the future: Redis expires each counter at its window's end by its own clock.
    const now = new Date(Math.ceil(Date.now() / 86_400_000) * 86_400_000 + 86_400_000 + 600_000);
    t = await buildTestApp({
      now: now.toISOString(),
      env: { OUTBOUND_ALLOW_PRIVATE_TARGETS: 'true' },
      limiter: new RedisRateLimiter(redis, { prefix }),
    });
    ({ call } = await listenHttp(t));
  });
  after(async () => {
    await t.close();
    await receiver.close();
    await deleteKeys(TEST_REDIS_URL, prefix);
    redis.disconnect();
  });

  it('an account with 35 lookups this hour still has its 30 test sends', async () => {
    const { apiKey } = await accountOnPlan(t, 'business');
    const token = apiKey!;
    for (let i = 0; i < 35; i++)
      assert.equal((await call('GET', '/api/v1/countries', { token })).status, 200);
    await t.recorder.flush();
    const created = await call('POST', '/api/v1/webhooks', {
      token,
      body: { url: receiver.url, events: ['data.updated'] },
    });
    assert.equal(created.status, 201, created.body);
    const id = (created.json() as { id: string }).id;
    for (let i = 0; i < 30; i++) {
      const sent = await call('POST', `/api/v1/webhooks/${id}/test`, { token });
      assert.equal(sent.status, 200, `test send ${i + 1}: ${sent.body}`);
    }
    const over = await call('POST', `/api/v1/webhooks/${id}/test`, { token });
    assert.equal(over.status, 429, 'the 31st test send of the hour');
  });
});
