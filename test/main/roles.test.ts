import assert from 'node:assert/strict';
import { once } from 'node:events';
import { after, before, describe, it } from 'node:test';
import { freshPostgres, postgresAvailable, type TestDb } from '../helpers/db.js';
import { call, LOOKUP, startInstance } from '../helpers/instances.js';
import { runCli, spawnCli } from '../helpers/process.js';
import { TEST_SECRET_KEY } from '../helpers/app.js';
import { deleteKeys, redisAvailable, TEST_REDIS_URL, uniquePrefix } from '../helpers/redis.js';

const skip = !((await postgresAvailable()) && (await redisAvailable())) && 'no PostgreSQL or Redis';
/** A PostgreSQL address nothing listens on: a role that got as far as connecting would fail. */
const NO_DATABASE = 'postgres://postgres@127.0.0.1:1/none';

describe('serve --role', () => {
  it('refuses a single role on the embedded database, naming DATABASE_URL', async () => {
    const result = await runCli(['serve', '--role', 'worker'], { DATA_DIR: '/nonexistent' });
    assert.equal(result.code, 2);
    assert.match(result.stderr, /--role worker needs DATABASE_URL/);
    const bad = await runCli(['serve', '--role', 'cron'], {});
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--role must be all, api or worker/);
  });

  it('refuses a single role without REDIS_URL, before it starts: export runs and lookups share one quota', async () => {
    for (const role of ['api', 'worker']) {
      const result = await runCli(['serve', '--role', role], { DATABASE_URL: NO_DATABASE });
      assert.equal(result.code, 2, result.stderr);
      assert.match(result.stderr, new RegExp(`--role ${role} needs REDIS_URL`));
    }
  });

  it('refuses the worker role without PUBLIC_BASE_URL (it signs links for the API’s address)', async () => {
    const result = await runCli(['serve', '--role', 'worker'], {
      DATABASE_URL: NO_DATABASE,
      REDIS_URL: TEST_REDIS_URL,
    });
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, /--role worker needs PUBLIC_BASE_URL/);
  });

  describe('on PostgreSQL, the API and the worker as two processes', { skip }, () => {
    let pg: TestDb & { url: string };
    before(async () => {
      pg = await freshPostgres();
    });
    after(() => pg?.cleanup());

    it('the API role serves lookups (warning without PUBLIC_BASE_URL); the worker role runs without listening; both stop cleanly', async () => {
      const prefix = uniquePrefix();
      const env = { DATABASE_URL: pg.url, REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: prefix };
      after(() => deleteKeys(TEST_REDIS_URL, prefix));
      // A former variable name is still read, with a warning line naming the new one.
      const api = await startInstance({ ...env, CREDENTIAL_REFRESH_MS: '1000' }, [
        'serve',
        '--role',
        'api',
      ]);
      try {
        const res = await call(api.url, LOOKUP);
        assert.equal(res.status, 200);
        assert.match(api.log(), /salary API listening at http/);
        assert.match(api.log(), /"level":40.*PUBLIC_BASE_URL is not set/);
        assert.match(
          api.log(),
          /"level":40.*CREDENTIAL_REFRESH_MS is read as CREDENTIAL_REFRESH_SECONDS=1; rename it/,
        );
      } finally {
        assert.equal(await api.stop(), 0);
      }
      const worker = spawnCli(['serve', '--role', 'worker'], {
        ...env,
        PUBLIC_BASE_URL: 'https://api.example.com',
        ACCESS_LOG: 'false',
        SECRET_KEY: TEST_SECRET_KEY,
        LOG_LEVEL: 'debug',
      });
      let log = '';
      worker.stdout?.on('data', (d: Buffer) => (log += d.toString()));
      worker.stderr?.on('data', (d: Buffer) => (log += d.toString()));
      const deadline = Date.now() + 60_000;
      while (!/salary API worker running/.test(log) && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 100));
      assert.match(log, /"role":"worker".*salary API worker running/);
      assert.doesNotMatch(log, /"address"/);
      // The worker runs its jobs: deliveries, notices, export runs, the billing cycle and the rest.
      const started = /"jobs":(\[[^\]]*\]).*"msg":"jobs started"/.exec(log)?.[1];
      assert.ok(started !== undefined, log);
      for (const job of ['webhooks.deliver', 'notices.send', 'exports.run', 'billing.cycle'])
        assert.ok((JSON.parse(started) as string[]).includes(job), `${job} in ${started}`);
      worker.kill('SIGTERM');
      const [code] = (await once(worker, 'exit')) as [number | null];
      assert.equal(code, 0, log);
    });
  });
});
