import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { freshPostgres, postgresAvailable, type TestDb } from '../helpers/db.js';
import { call, LOOKUP, startInstance, until, type Instance } from '../helpers/instances.js';
import { PrivateRedis, redisAvailable, uniquePrefix } from '../helpers/redis.js';
import { loadBundledRelease, operatorServices, paidAccount, type Services } from './fixture.js';

const enabled = (await redisAvailable()) && (await postgresAvailable());
const skip = !enabled && 'no PostgreSQL or Redis';
const LIMIT = 60;

/**
 * Two `serve` processes share a private Redis (no persistence) and PostgreSQL, Developer limited
 * to 60 requests a day. Redis loses its counts; what the instances admitted must still count.
 */
describe('limits across a Redis data loss', { skip }, () => {
  let db: TestDb & { url: string };
  let redis: PrivateRedis;
  let s: Services;
  let env: Record<string, string>;
  const instances: Instance[] = [];

  before(async () => {
    [db, redis] = await Promise.all([freshPostgres(), PrivateRedis.start()]);
    await loadBundledRelease(db.db);
    s = await operatorServices(db.db, {});
    env = {
      DATABASE_URL: db.url,
      REDIS_URL: redis.url,
      REDIS_KEY_PREFIX: uniquePrefix(),
      USAGE_FLUSH_SECONDS: '1',
      PLAN_OVERRIDES: JSON.stringify({ developer: { requestLimit: LIMIT } }),
    };
    instances.push(...(await Promise.all([0, 1].map(() => startInstance(env)))));
  });
  after(async () => {
    await Promise.all(instances.map((i) => i.kill()));
    await redis?.stop();
    await db?.cleanup();
  });

  /** `n` lookups spread over `on`; how many were admitted (200). */
  async function admitted(on: Instance[], token: string, n: number): Promise<number> {
    let ok = 0;
    for (let i = 0; i < n; i++) {
      const { status } = await call(on[i % on.length]!.url, LOOKUP, { token });
      assert.ok(status === 200 || status === 429, String(status));
      if (status === 200) ok++;
    }
    return ok;
  }
  /** The account's requests in the usage tables; with `served`, only those answered below 400. */
  const written = async (accountId: string, served = false) =>
    Number(
      (
        await db.db.query<{ n: number | null }>(
          `SELECT sum(count) AS n FROM usage_hourly
           WHERE account_id = $1${served ? ' AND status < 400' : ''}`,
          [accountId],
        )
      )[0]?.n ?? 0,
    );
  const allReady = () =>
    until(
      async () =>
        (await Promise.all(instances.map((i) => call(i.url, '/ready')))).every(
          (r) => r.status === 200,
        ),
      15_000,
      100,
    );

  it('a Redis restarted empty does not hand out the day again', async () => {
    const { apiKey, accountId } = await paidAccount(s, 'developer');
    assert.equal(await admitted(instances, apiKey, 40), 40);
    await until(async () => (await written(accountId)) >= 40, 10_000, 100);

    await redis.stop();
    await redis.start(); // empty
    await allReady();
    const after = await admitted(instances, apiKey, LIMIT);
    assert.equal(after, LIMIT - 40, `admitted ${after} after the restart, ${40 + after} in all`);
  });

  it('an instance restarted during a Redis outage does not start from zero', async () => {
    const { apiKey, accountId } = await paidAccount(s, 'developer');
    assert.equal(await admitted([instances[0]!], apiKey, 30), 30);
    await until(async () => (await written(accountId)) >= 30, 10_000, 100);

    await redis.stop();
    await instances[1]!.kill();
    instances[1] = await startInstance(env);
    const during = await admitted([instances[1]], apiKey, LIMIT);
    assert.equal(during, LIMIT - 30, `the restarted instance admitted ${during} during the outage`);
    // What it admitted reaches the usage tables (its next flush) before Redis returns: the
    // floor the other instance rebuilds an empty Redis from is the usage written so far.
    await until(async () => (await written(accountId, true)) >= LIMIT, 10_000, 100);

    await redis.start();
    await allReady();
    const later = await admitted(instances, apiKey, 10);
    assert.equal(later, 0, 'Redis, back empty, knows the day is used up');
  });
});
