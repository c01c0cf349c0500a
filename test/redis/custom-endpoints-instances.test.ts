import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { freshPostgres, postgresAvailable, type TestDb } from '../helpers/db.js';
import { call, startInstance, until, type Instance } from '../helpers/instances.js';
import { runCli } from '../helpers/process.js';
import { deleteKeys, redisAvailable, TEST_REDIS_URL, uniquePrefix } from '../helpers/redis.js';
import { loadBundledRelease, operatorServices, paidAccount, type Services } from './fixture.js';

const enabled = (await redisAvailable()) && (await postgresAvailable());

/** A GET with a Host header of our choosing (fetch does not let one set it). */
function getWithHost(base: string, path: string, host: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}${path}`, { headers: { host } }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve(body));
    });
    req.on('error', reject);
    req.end();
  });
}

describe(
  'custom endpoints and licences across two instances on PostgreSQL and Redis',
  { skip: !enabled && 'no PostgreSQL or Redis' },
  () => {
    const prefix = uniquePrefix();
    let pg: TestDb & { url: string };
    let s: Services;
    const instances: Instance[] = [];
    const env = (): Record<string, string> => ({
      DATABASE_URL: pg.url,
      REDIS_URL: TEST_REDIS_URL,
      REDIS_KEY_PREFIX: prefix,
      REDIS_TIMEOUT_SECONDS: '5',
      // Long polls: what arrives within a second arrives through Redis pub/sub.
      CREDENTIAL_REFRESH_SECONDS: '30',
      RELEASE_POLL_SECONDS: '3600',
      WEBHOOK_POLL_SECONDS: '600',
    });

    before(async () => {
      pg = await freshPostgres();
      await loadBundledRelease(pg.db);
      s = await operatorServices(pg.db, env());
      instances.push(...(await Promise.all([0, 1].map(() => startInstance(env())))));
    });

    after(async () => {
      await Promise.all(instances.map((i) => i.kill()));
      await deleteKeys(TEST_REDIS_URL, prefix);
      await pg?.cleanup();
    });

    it('a custom endpoint created, changed and deleted on one instance is so on the other within a second', async (t) => {
      const { apiKey, session } = await paidAccount(s, 'enterprise');
      const [a, b] = instances as [Instance, Instance];
      const path = '/api/v1/custom/team-pay';
      assert.equal((await call(b.url, path, { token: apiKey })).status, 404);
      const created = await call(a.url, '/api/v1/custom-endpoints', {
        method: 'POST',
        token: session,
        body: { slug: 'team-pay', query: { countries: ['AT', 'DE'], jobs: ['chef'] } },
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const id = (created.body as { id: string }).id;
      const countriesOn = async (i: Instance): Promise<string[] | number> => {
        const res = await call(i.url, path, { token: apiKey });
        if (res.status !== 200) return res.status;
        const rows = (res.body as { data: { country: string }[] }).data;
        return [...new Set(rows.map((r) => r.country))].sort();
      };
      let ms = await until(async () => Array.isArray(await countriesOn(b)), 1000);
      t.diagnostic(`creation reached the other instance in ${ms.toFixed(0)} ms`);
      assert.deepEqual(await countriesOn(b), ['AT', 'DE']);

      const put = await call(a.url, `/api/v1/custom-endpoints/${id}`, {
        method: 'PUT',
        token: session,
        body: { slug: 'team-pay', query: { countries: ['AT'], jobs: ['chef'] } },
      });
      assert.equal(put.status, 200);
      ms = await until(async () => JSON.stringify(await countriesOn(b)) === '["AT"]', 1000);
      t.diagnostic(`change reached the other instance in ${ms.toFixed(0)} ms`);

      const del = await call(a.url, `/api/v1/custom-endpoints/${id}`, {
        method: 'DELETE',
        token: session,
      });
      assert.equal(del.status, 204);
      ms = await until(async () => (await countriesOn(b)) === 404, 1000);
      t.diagnostic(`deletion reached the other instance in ${ms.toFixed(0)} ms`);
    });

    it('a white-label licence and a host name recorded by the CLI reach every instance within a second', async (t) => {
      const { apiKey, email } = await paidAccount(s, 'enterprise');
      const cli = await runCli(
        [
          'account',
          'license',
          '--email',
          email,
          '--licensee',
          'Nordlys Data AS',
          '--attribution',
          'Source: Nordlys Data AS',
          '--white-label',
          '--term-end',
          '2030-06-30',
          '--json',
        ],
        env(),
      );
      assert.equal(cli.code, 0, cli.stderr);
      assert.equal((JSON.parse(cli.stdout) as { white_label: boolean }).white_label, true);
      const lookup = '/api/v1/salary?country=IT&job=chef&level=mid';
      const ms = await until(async () => {
        const metas = await Promise.all(
          instances.map((i) =>
            call(i.url, lookup, { token: apiKey }).then(
              (r) => (r.body as { meta?: { attribution?: string } }).meta?.attribution,
            ),
          ),
        );
        return metas.every((m) => m === 'Source: Nordlys Data AS');
      }, 1000);
      t.diagnostic(`licence reached every instance in ${ms.toFixed(0)} ms after the CLI exited`);
      const shown = await call(instances[1]!.url, '/api/v1/account/license', { token: apiKey });
      assert.equal(shown.status, 200);
      assert.equal((shown.body as { term_end: string }).term_end, '2030-06-30');

      const host = await runCli(
        ['account', 'host', '--email', email, '--host', 'data.nordlys.example'],
        env(),
      );
      assert.equal(host.code, 0, host.stderr);
      await until(async () => {
        const titles = await Promise.all(
          instances.map(async (i) => {
            const doc = await getWithHost(i.url, '/api/v1/openapi.json', 'data.nordlys.example');
            return (JSON.parse(doc) as { info: { title: string } }).info.title;
          }),
        );
        return titles.every((title) => title === 'Nordlys Data AS data API');
      }, 1000);

      const bad = await runCli(
        [
          'account',
          'license',
          '--email',
          email,
          '--licensee',
          'X',
          '--attribution',
          'Y',
          '--term-end',
          '2030-02-30',
        ],
        env(),
      );
      assert.notEqual(bad.code, 0);
      assert.match(bad.stderr, /term end/);
    });
  },
);
