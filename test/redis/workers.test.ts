import assert from 'node:assert/strict';
import { once } from 'node:events';
import { after, before, describe, it } from 'node:test';
import { TEST_SECRET_KEY } from '../helpers/app.js';
import { freshPostgres, postgresAvailable, type TestDb } from '../helpers/db.js';
import { call, LOOKUP, startInstance, until } from '../helpers/instances.js';
import { runCli } from '../helpers/process.js';
import { deleteKeys, redisAvailable, TEST_REDIS_URL, uniquePrefix } from '../helpers/redis.js';

const enabled = (await redisAvailable()) && (await postgresAvailable());

describe('salary-api serve --workers N', { skip: !enabled && 'no PostgreSQL or Redis' }, () => {
  const prefix = uniquePrefix();
  let pg: TestDb & { url: string };
  before(async () => {
    pg = await freshPostgres();
  });
  after(async () => {
    await deleteKeys(TEST_REDIS_URL, prefix);
    await pg?.cleanup();
  });

  it('refuses without REDIS_URL or without DATABASE_URL, saying why', async () => {
    const noRedis = await runCli(['serve', '--workers', '2'], {
      DATABASE_URL: pg.url,
      SECRET_KEY: TEST_SECRET_KEY,
    });
    assert.equal(noRedis.code, 1);
    assert.match(noRedis.stderr, /--workers needs REDIS_URL/);
    const embedded = await runCli(['serve', '--workers', '2'], { REDIS_URL: TEST_REDIS_URL });
    assert.equal(embedded.code, 1);
    assert.match(embedded.stderr, /--workers needs DATABASE_URL/);
    const bad = await runCli(['serve', '--workers', 'many'], {});
    assert.equal(bad.code, 2);
  });

  it('runs N processes on one port, replaces a dead worker and stops them all on SIGTERM', async () => {
    const server = await startInstance(
      { DATABASE_URL: pg.url, REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: prefix },
      ['serve', '--workers', '2'],
    );
    const workerPids = () =>
      [...server.log().matchAll(/"worker":(\d+).*?"msg":"worker started"/g)].map((m) =>
        Number(m[1]),
      );
    const listening = () => server.log().match(/salary API listening/g)?.length ?? 0;
    await until(async () => listening() === 2, 30_000, 50);
    assert.equal(workerPids().length, 2);
    const statuses = await Promise.all(
      Array.from({ length: 40 }, () => call(server.url, LOOKUP).then((r) => r.status)),
    );
    assert.ok(
      statuses.every((x) => x === 200),
      String(statuses),
    );

    process.kill(workerPids()[0]!, 'SIGKILL');
    await until(async () => listening() === 3, 30_000, 50);
    assert.match(server.log(), /worker died; starting a replacement/);
    assert.equal((await call(server.url, LOOKUP)).status, 200);

    server.child.kill('SIGTERM');
    const [code] = (await once(server.child, 'exit')) as [number | null];
    assert.equal(code, 0, server.log());
    assert.match(server.log(), /all workers stopped/);
    for (const pid of workerPids()) assert.throws(() => process.kill(pid, 0), 'worker gone');
  });
});
