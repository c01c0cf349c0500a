import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { DAY_MS, windowStart } from '../../src/limits/index.js';
import { freshPostgres, postgresAvailable, type TestDb } from '../helpers/db.js';
import { call, LOOKUP, startInstance, until, type Instance } from '../helpers/instances.js';
import { runCli } from '../helpers/process.js';
import { startReceiver } from '../helpers/receiver.js';
import { setVersion, writeRelease, writeReleaseVersion } from '../helpers/release-file.js';
import { deleteKeys, redisAvailable, TEST_REDIS_URL, uniquePrefix } from '../helpers/redis.js';
import { loadBundledRelease, operatorServices, paidAccount, type Services } from './fixture.js';

const enabled = (await redisAvailable()) && (await postgresAvailable());
const LIMIT = 150;

describe(
  'three instances on PostgreSQL and Redis',
  { skip: !enabled && 'no PostgreSQL or Redis' },
  () => {
    const prefix = uniquePrefix();
    const work = mkdtempSync(join(tmpdir(), 'salary-api-instances-'));
    let pg: TestDb & { url: string };
    let s: Services;
    let redis: Redis;
    const instances: Instance[] = [];
    const env = (): Record<string, string> => ({
      DATABASE_URL: pg.url,
      REDIS_URL: TEST_REDIS_URL,
      REDIS_KEY_PREFIX: prefix,
      REDIS_TIMEOUT_SECONDS: '5',
      PLAN_OVERRIDES: JSON.stringify({ developer: { requestLimit: LIMIT } }),
      // Long polls: what arrives within a second arrives through Redis pub/sub.
      CREDENTIAL_REFRESH_SECONDS: '30',
      RELEASE_POLL_SECONDS: '3600',
      WEBHOOK_POLL_SECONDS: '600',
      OUTBOUND_ALLOW_PRIVATE_TARGETS: 'true',
      USAGE_FLUSH_SECONDS: '1',
    });

    before(async () => {
      pg = await freshPostgres();
      await loadBundledRelease(pg.db);
      s = await operatorServices(pg.db, env());
      redis = new Redis(TEST_REDIS_URL);
      instances.push(...(await Promise.all([0, 1, 2].map(() => startInstance(env())))));
    });

    after(async () => {
      await Promise.all(instances.map((i) => i.kill()));
      redis?.disconnect();
      await deleteKeys(TEST_REDIS_URL, prefix);
      await pg?.cleanup();
      rmSync(work, { recursive: true, force: true });
    });

    it('admits exactly N of N + k concurrent requests spread over three instances', async (t) => {
      const { apiKey, accountId } = await paidAccount(s, 'developer');
      const total = 450;
      const statuses = await Promise.all(
        Array.from({ length: total }, (_, i) =>
          call(instances[i % 3]!.url, LOOKUP, { token: apiKey }).then((r) => r.status),
        ),
      );
      const ok = statuses.filter((x) => x === 200).length;
      const limited = statuses.filter((x) => x === 429).length;
      t.diagnostic(
        `${total} concurrent requests over 3 instances, limit ${LIMIT}: ${ok} × 200, ${limited} × 429`,
      );
      assert.equal(ok, LIMIT);
      assert.equal(limited, total - LIMIT);
      const counter = await redis.get(
        `${prefix}rl:{acct:${accountId}}:daily:${windowStart(Date.now(), DAY_MS)}`,
      );
      assert.equal(counter, String(LIMIT));
    });

    it('a key revoked on one instance is refused by every instance within a second', async (t) => {
      const { apiKey, keyId, session } = await paidAccount(s, 'developer');
      for (const instance of instances)
        assert.equal((await call(instance.url, LOOKUP, { token: apiKey })).status, 200);
      const revoked = await call(instances[0]!.url, `/api/v1/keys/${keyId}`, {
        method: 'DELETE',
        token: session,
      });
      assert.equal(revoked.status, 200, JSON.stringify(revoked.body));
      const refusedEverywhere = async () =>
        (
          await Promise.all(
            instances.map((i) => call(i.url, LOOKUP, { token: apiKey }).then((r) => r.status)),
          )
        ).every((status) => status === 401);
      const ms = await until(refusedEverywhere, 1000);
      t.diagnostic(`revocation reached every instance in ${ms.toFixed(0)} ms`);
    });

    it('a contract set by the CLI reaches every instance within a second', async (t) => {
      const { apiKey, email } = await paidAccount(s, 'developer');
      const cli = await runCli(
        [
          'account',
          'contract',
          '--email',
          email,
          '--price-cents',
          '90000',
          '--limit',
          '7',
          '--sla',
          '99.9',
        ],
        env(),
      );
      assert.equal(cli.code, 0, cli.stderr);
      const ms = await until(async () => {
        const policies = await Promise.all(
          instances.map((i) =>
            call(i.url, LOOKUP, { token: apiKey }).then((r) => r.headers.get('ratelimit-policy')),
          ),
        );
        return policies.every((p) => p?.includes('q=7') === true);
      }, 1000);
      t.diagnostic(
        `contract change reached every instance in ${ms.toFixed(0)} ms after the CLI exited`,
      );
    });

    it('an allowlist edited on one instance applies on every instance within a second', async (t) => {
      const { apiKey, session } = await paidAccount(s, 'enterprise');
      for (const instance of instances)
        assert.equal((await call(instance.url, LOOKUP, { token: apiKey })).status, 200);
      const edited = await call(instances[1]!.url, '/api/v1/account/allowlist', {
        method: 'PUT',
        token: session,
        body: { allowlist: ['203.0.113.0/24'] },
      });
      assert.equal(edited.status, 200, JSON.stringify(edited.body));
      const ms = await until(async () => {
        const statuses = await Promise.all(
          instances.map((i) => call(i.url, LOOKUP, { token: apiKey }).then((r) => r.status)),
        );
        return statuses.every((status) => status === 403);
      }, 1000);
      t.diagnostic(`allowlist edit reached every instance in ${ms.toFixed(0)} ms`);
    });

    it('counts failed log-ins across instances', async () => {
      const { email } = await paidAccount(s, 'developer');
      const attempt = (i: number) =>
        call(instances[i % 3]!.url, '/api/v1/sessions', {
          method: 'POST',
          body: { email, password: 'not the password at all' },
        }).then((r) => r.status);
      for (let i = 0; i < 10; i++) assert.equal(await attempt(i), 401);
      for (let i = 0; i < 3; i++)
        assert.equal(await attempt(i), 429, 'the 11th anywhere is refused');
    });

    it('a release loaded by the CLI becomes active on every instance without a restart, and its webhook event goes out at once', async (t) => {
      const receiver = await startReceiver();
      try {
        const owner = await paidAccount(s, 'business');
        const created = await call(instances[0]!.url, '/api/v1/webhooks', {
          method: 'POST',
          token: owner.session,
          body: { url: receiver.url, events: ['data.updated'] },
        });
        assert.equal(created.status, 201);
        const file = writeReleaseVersion(join(work, 'next.jsonl'), '2026.11.9');
        const cli = await runCli(['data', 'load', file], env());
        assert.equal(cli.code, 0, cli.stderr);
        const loaded = Date.now();
        // The webhook poll is ten minutes: only the release notice explains a quick delivery.
        const arrived = receiver.waitFor(1, 10_000).then(() => Date.now());
        await until(
          async () => {
            const versions = await Promise.all(
              instances.map((i) =>
                call(i.url, '/ready').then((r) => (r.body as { release: string }).release),
              ),
            );
            return versions.every((v) => v === '2026.11.9');
          },
          10_000,
          50,
        );
        t.diagnostic(`data.updated received ${(await arrived) - loaded} ms after data load exited`);
        const event = JSON.parse(receiver.received[0]!.body) as {
          type: string;
          data: { release: string };
        };
        assert.equal(event.type, 'data.updated');
        assert.equal(event.data.release, '2026.11.9');
        await new Promise((resolve) => setTimeout(resolve, 300));
        assert.equal(receiver.received.length, 1, 'three instances kicked, one delivery');
      } finally {
        await receiver.close();
      }
    });

    it('answers during a release switch come whole from one release, never a mix of two', async () => {
      const owner = await paidAccount(s, 'business');
      // The next release: every figure 10 % up, so each record tells which release it came from.
      const FIELDS = ['p10', 'p25', 'median', 'p75', 'p90', 'mean'] as const;
      const file = writeRelease(join(work, 'scaled.jsonl'), (lines) => {
        setVersion(lines, '2026.11.10');
        for (let i = 1; i < lines.length; i++) {
          const r = JSON.parse(lines[i]!) as Record<string, unknown>;
          for (const f of FIELDS) r[f] = Math.round((r[f] as number) * 1.1);
          lines[i] = JSON.stringify(r);
        }
      });
      const before = await call(instances[0]!.url, '/ready');
      const old = (before.body as { release: string }).release;
      const path = '/api/v1/bulk/jobs?country=DE';
      type Answer = {
        meta: { release: { version: string } };
        data: { job: string; level: string; median: number }[];
      };
      const figures = async (url: string) => {
        const res = await call(url, path, { token: owner.apiKey });
        assert.equal(res.status, 200, JSON.stringify(res.body));
        return res.body as Answer;
      };
      const reference = await figures(instances[0]!.url);
      assert.equal(reference.meta.release.version, old);
      const oldMedian = new Map(reference.data.map((r) => [`${r.job} ${r.level}`, r.median]));
      assert.ok(oldMedian.size >= 21, 'a bulk answer of every job');

      const answers: Answer[] = [];
      let loading = true;
      const traffic = Promise.all(
        instances.map(async (instance) => {
          while (loading) answers.push(await figures(instance.url));
        }),
      );
      const cli = await runCli(['data', 'load', file], env());
      assert.equal(cli.code, 0, cli.stderr);
      await until(
        async () =>
          (
            await Promise.all(
              instances.map((i) =>
                call(i.url, '/ready').then((r) => (r.body as { release: string }).release),
              ),
            )
          ).every((v) => v === '2026.11.10'),
        10_000,
        50,
      );
      answers.push(...(await Promise.all(instances.map((i) => figures(i.url)))));
      loading = false;
      await traffic;

      const releases = new Set(answers.map((a) => a.meta.release.version));
      assert.deepEqual([...releases].sort(), [old, '2026.11.10'].sort(), 'both releases answered');
      for (const answer of answers) {
        const scaled = answer.meta.release.version === '2026.11.10';
        for (const r of answer.data) {
          const was = oldMedian.get(`${r.job} ${r.level}`)!;
          assert.equal(
            r.median,
            scaled ? Math.round(was * 1.1) : was,
            `${answer.meta.release.version}: ${r.job} ${r.level} from the other release`,
          );
        }
      }
    });

    it('kill -9 of one instance under load: the others keep serving, nothing acknowledged is lost, the restarted one catches up', async () => {
      const owner = await paidAccount(s, 'enterprise');
      // Acknowledged writes on the instance about to die: a new key, and usage that was flushed.
      const victim = instances[2]!;
      const created = await call(victim.url, '/api/v1/keys', {
        method: 'POST',
        token: owner.session,
        body: { name: 'made before the crash' },
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const newKey = (created.body as { key: string; id: string }).key;
      for (let i = 0; i < 20; i++)
        assert.equal((await call(victim.url, LOOKUP, { token: owner.apiKey })).status, 200);
      const flushed = async () => {
        const rows = await pg.db.query<{ n: number }>(
          'SELECT coalesce(sum(count), 0)::int AS n FROM usage_hourly WHERE account_id = $1',
          [owner.accountId],
        );
        return (rows[0]?.n ?? 0) >= 20;
      };
      await until(flushed, 10_000, 100);

      let loading = true;
      const survivors = instances.slice(0, 2);
      const answered = survivors.map(() => 0);
      const load = survivors.map(async (instance, n) => {
        const seen: number[] = [];
        while (loading) {
          seen.push((await call(instance.url, LOOKUP, { token: owner.apiKey })).status);
          answered[n]!++;
        }
        return seen;
      });
      await until(() => answered.every((a) => a >= 3), 10_000);
      await victim.kill();
      // The survivors go on answering while it is down.
      const before = [...answered];
      await until(() => answered.every((a, n) => a >= before[n]! + 3), 10_000);
      // While it is down: a key revoked and one created elsewhere.
      const other = await call(instances[0]!.url, '/api/v1/keys', {
        method: 'POST',
        token: owner.session,
        body: { name: 'made while one instance was down' },
      });
      assert.equal(other.status, 201);
      const revoke = await call(instances[1]!.url, `/api/v1/keys/${owner.keyId}`, {
        method: 'DELETE',
        token: owner.session,
      });
      assert.equal(revoke.status, 200);
      loading = false;
      const seen = (await Promise.all(load)).flat();
      const notOk = seen.filter((x) => x !== 200 && x !== 401);
      assert.deepEqual(
        notOk,
        [],
        'survivors answered every request (401 once the key was revoked)',
      );
      assert.ok(seen.filter((x) => x === 200).length > 20, `${seen.length} requests served`);

      assert.equal((await call(instances[0]!.url, LOOKUP, { token: newKey })).status, 200);
      assert.ok(await flushed(), 'flushed usage survives');

      const restarted = await startInstance(env());
      instances[2] = restarted;
      assert.equal((await call(restarted.url, LOOKUP, { token: newKey })).status, 200);
      const otherKey = (other.body as { key: string }).key;
      assert.equal((await call(restarted.url, LOOKUP, { token: otherKey })).status, 200);
      assert.equal((await call(restarted.url, LOOKUP, { token: owner.apiKey })).status, 401);
    });
  },
);
