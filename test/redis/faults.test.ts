import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { DAY_MS, windowStart } from '../../src/limits/index.js';
import { migrate, openPostgres, type Db } from '../../src/store/index.js';
import { freshPostgres, postgresAvailable, type TestDb } from '../helpers/db.js';
import { call, LOOKUP, startInstance, until, type Instance } from '../helpers/instances.js';
import { PrivatePostgres } from '../helpers/private-postgres.js';
import {
  deleteKeys,
  PrivateRedis,
  redisAvailable,
  TEST_REDIS_URL,
  uniquePrefix,
} from '../helpers/redis.js';
import { loadBundledRelease, operatorServices, paidAccount, type Services } from './fixture.js';

const enabled = (await redisAvailable()) && (await postgresAvailable());
const skip = !enabled && 'no PostgreSQL or Redis';

/** Requests in a loop until stopped: every status and the slowest answer. */
function loadLoop(url: string, token: string) {
  let running = true;
  const statuses: (number | string)[] = [];
  let slowestMs = 0;
  const done = (async () => {
    while (running) {
      const started = performance.now();
      try {
        statuses.push((await call(url, LOOKUP, { token, timeoutMs: 5000 })).status);
      } catch (error) {
        statuses.push(`failed: ${(error as Error).message}`);
      }
      slowestMs = Math.max(slowestMs, performance.now() - started);
      await new Promise((r) => setTimeout(r, 2));
    }
  })();
  return {
    statuses,
    async stop() {
      running = false;
      await done;
      return { statuses, slowestMs };
    },
  };
}

describe('Redis restarted under load', { skip }, () => {
  const prefix = uniquePrefix();
  let pg: TestDb & { url: string };
  let redisServer: PrivateRedis;
  let s: Services;
  const instances: Instance[] = [];

  before(async () => {
    [pg, redisServer] = await Promise.all([freshPostgres(), PrivateRedis.start()]);
    await loadBundledRelease(pg.db);
    s = await operatorServices(pg.db, {});
    const env = {
      DATABASE_URL: pg.url,
      REDIS_URL: redisServer.url,
      REDIS_KEY_PREFIX: prefix,
      PLAN_OVERRIDES: JSON.stringify({ developer: { requestLimit: 1000 } }),
    };
    instances.push(...(await Promise.all([0, 1].map(() => startInstance(env)))));
  });
  after(async () => {
    await Promise.all(instances.map((i) => i.kill()));
    await redisServer?.stop();
    await pg?.cleanup();
  });

  it('keeps serving without hanging or refusing, reports not ready, and shares limits again when Redis is back', async () => {
    const { apiKey, accountId } = await paidAccount(s, 'developer');
    const counterKey = `${prefix}rl:{acct:${accountId}}:daily:${windowStart(Date.now(), DAY_MS)}`;
    const loads = instances.map((i) => loadLoop(i.url, apiKey));
    await until(() => loads.every((l) => l.statuses.length >= 3), 10_000);

    await redisServer.stop();
    // Both instances have noticed, and go on answering meanwhile.
    const answered = loads.map((l) => l.statuses.length);
    await until(
      async () =>
        loads.every((l, n) => l.statuses.length >= answered[n]! + 3) &&
        (await Promise.all(instances.map((i) => call(i.url, '/ready')))).every(
          (r) => r.status === 503,
        ),
      10_000,
      50,
    );
    for (const instance of instances) {
      const ready = await call(instance.url, '/ready');
      assert.equal(ready.status, 503);
      assert.match(JSON.stringify(ready.body), /"redis":"unavailable/);
      assert.ok(ready.headers.get('retry-after') !== null);
    }

    await redisServer.start(); // empty: nothing survived
    await until(
      async () =>
        (await Promise.all(instances.map((i) => call(i.url, '/ready')))).every(
          (r) => r.status === 200,
        ),
      10_000,
      100,
    );
    const results = await Promise.all(loads.map((l) => l.stop()));
    const statuses = results.flatMap((r) => r.statuses);
    assert.deepEqual(
      statuses.filter((x) => x !== 200),
      [],
      'every request answered 200: no false 429, no error',
    );
    const slowest = Math.max(...results.map((r) => r.slowestMs));
    assert.ok(slowest < 1500, `slowest answer ${slowest.toFixed(0)} ms`);
    assert.ok(instances.every((i) => /Redis unavailable/.test(i.log())));

    const redis = new Redis(redisServer.url);
    try {
      const before = Number(await redis.get(counterKey));
      assert.ok(before > 0, 'requests after the restart were counted in Redis');
      for (let n = 0; n < 6; n++)
        assert.equal((await call(instances[n % 2]!.url, LOOKUP, { token: apiKey })).status, 200);
      assert.equal(
        Number(await redis.get(counterKey)),
        before + 6,
        'counted in Redis again, by both instances',
      );
    } finally {
      redis.disconnect();
    }
  });
});

describe('PostgreSQL restarted under load', { skip }, () => {
  const prefix = uniquePrefix();
  let server: PrivatePostgres;
  let db: Db;
  let s: Services;
  let instance: Instance;

  before(async () => {
    server = await PrivatePostgres.start();
    db = openPostgres(server.url, { max: 2 });
    await migrate(db);
    await loadBundledRelease(db);
    s = await operatorServices(db, {});
    instance = await startInstance({
      DATABASE_URL: server.url,
      REDIS_URL: TEST_REDIS_URL,
      REDIS_KEY_PREFIX: prefix,
      USAGE_FLUSH_SECONDS: '1',
    });
  });
  after(async () => {
    await instance?.kill();
    await db?.close().catch(() => undefined);
    await server?.destroy();
    await deleteKeys(TEST_REDIS_URL, prefix);
  });

  it('serves lookups from memory, answers writes 503 with Retry-After, and recovers by itself', async () => {
    const owner = await paidAccount(s, 'enterprise');
    const load = loadLoop(instance.url, owner.apiKey);
    await until(() => load.statuses.length >= 3, 10_000);

    await server.stop();
    const write = await call(instance.url, '/api/v1/keys', {
      method: 'POST',
      token: owner.session,
      body: { name: 'during the outage' },
    });
    assert.equal(write.status, 503, JSON.stringify(write.body));
    assert.ok(write.headers.get('retry-after') !== null);
    assert.equal((await call(instance.url, '/ready')).status, 503);
    // A usage flush (every second here) fails meanwhile.
    await until(() => /usage\.flush failed/.test(instance.log()), 10_000, 50);

    await server.start();
    await until(
      async () =>
        (
          await call(instance.url, '/api/v1/keys', {
            method: 'POST',
            token: owner.session,
            body: { name: 'after the outage' },
          })
        ).status === 201,
      15_000,
      200,
    );
    assert.equal((await call(instance.url, '/ready')).status, 200);
    const { statuses, slowestMs } = await load.stop();
    assert.deepEqual(
      statuses.filter((x) => x !== 200),
      [],
      'lookups served from memory throughout',
    );
    assert.ok(slowestMs < 1500, `slowest lookup ${slowestMs.toFixed(0)} ms`);

    // Usage counted during the outage is written once the database is back: nothing lost.
    const served = statuses.length;
    await until(
      async () => {
        const rows = await db.query<{ n: number }>(
          `SELECT coalesce(sum(count), 0)::int AS n FROM usage_hourly
           WHERE account_id = $1 AND endpoint LIKE '%salary%'`,
          [owner.accountId],
        );
        return (rows[0]?.n ?? 0) >= served;
      },
      10_000,
      200,
    );
  });
});
