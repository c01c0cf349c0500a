import assert from 'node:assert/strict';
import { once } from 'node:events';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { systemClock } from '../../src/lib/clock.js';
import { prefixedId } from '../../src/lib/ids.js';
import { createSecretBox } from '../../src/lib/secret-box.js';
import { resolvePlans } from '../../src/plans/index.js';
import { openPglite, openPostgres } from '../../src/store/index.js';
import {
  createHttpSender,
  createWebhookWorker,
  webhookPublisher,
} from '../../src/webhooks/index.js';
import { accountOnPlan } from '../helpers/accounts.js';
import { buildTestApp, TEST_SECRET_KEY } from '../helpers/app.js';
import { freshPostgres, postgresAvailable, templateDir } from '../helpers/db.js';
import { spawnCli } from '../helpers/process.js';
import { startReceiver } from '../helpers/receiver.js';
import { recordEvent, registerWebhook, verify } from '../helpers/webhooks.js';

describe('webhook delivery survives a crash (real processes, embedded database)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'salary-api-webhooks-crash-'));
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it(
    'a serve process killed mid-delivery delivers the event after restart',
    { timeout: 60_000 },
    async () => {
      cpSync(await templateDir(), join(dataDir, 'pglite'), { recursive: true });
      // Hang on the first request (the process is killed while it waits), answer 200 afterwards.
      const receiver = await startReceiver((_req, n, res) => {
        if (n > 1) res.writeHead(200).end();
      });
      const env = {
        DATA_DIR: dataDir,
        PORT: '0',
        ACCESS_LOG: 'false',
        SECRET_KEY: TEST_SECRET_KEY,
        OUTBOUND_ALLOW_PRIVATE_TARGETS: 'true',
        WEBHOOK_POLL_SECONDS: '0.1',
      };
      try {
        const db = await openPglite(join(dataDir, 'pglite'));
        const t = await buildTestApp({ db, env, now: new Date().toISOString() });
        const { apiKey } = await accountOnPlan(t, 'business');
        const hook = await registerWebhook(t, apiKey as string, receiver.url);
        const eventId = await recordEvent(t, { release: 'crash-test' });
        await t.close();
        await db.close();

        let log = '';
        const first = spawnCli(['serve'], env);
        first.stdout?.on('data', (d: Buffer) => (log += d.toString()));
        first.stderr?.on('data', (d: Buffer) => (log += d.toString()));
        await receiver.waitFor(1, 30_000).catch((error: Error) => {
          first.kill('SIGKILL');
          throw new Error(`${error.message}\n${log}`);
        });
        first.kill('SIGKILL');
        await once(first, 'exit');

        const second = spawnCli(['serve'], env);
        second.stdout?.on('data', (d: Buffer) => (log += d.toString()));
        second.stderr?.on('data', (d: Buffer) => (log += d.toString()));
        try {
          await receiver.waitFor(2, 30_000);
          // Stop once the outcome is recorded (the log line follows the commit).
          const deadline = Date.now() + 10_000;
          while (
            !/"ok":true,"msg":"webhook delivery attempted"/.test(log) &&
            Date.now() < deadline
          ) {
            await new Promise((r) => setTimeout(r, 50));
          }
        } catch (error) {
          throw new Error(`${(error as Error).message}\n${log}`);
        } finally {
          second.kill('SIGTERM');
          await once(second, 'exit');
        }
        assert.match(log, /"queue":"webhooks\.deliver","items":1,.*claims resumed/);
        const [killed, resumed] = receiver.received;
        assert.equal(killed!.headers['webhook-id'], eventId);
        assert.equal(resumed!.headers['webhook-id'], eventId);
        assert.deepEqual(verify(hook.secret, resumed!), {
          type: 'data.updated',
          timestamp: JSON.parse(resumed!.body).timestamp,
          data: { release: 'crash-test' },
        });

        const check = await openPglite(join(dataDir, 'pglite'));
        const rows = await check.query<{ status: string; attempts: number }>(
          'SELECT status, attempts FROM webhook_deliveries WHERE event_id = $1',
          [eventId],
        );
        await check.close();
        assert.deepEqual(rows, [{ status: 'succeeded', attempts: 2 }], log);
      } finally {
        await receiver.close();
      }
    },
  );
});

describe('two workers on one PostgreSQL database', async () => {
  const available = await postgresAvailable();
  let pg: Awaited<ReturnType<typeof freshPostgres>>;
  before(async () => {
    if (available) pg = await freshPostgres();
  });
  after(() => pg?.cleanup());

  it('deliver each event exactly once', { skip: !available && 'no PostgreSQL' }, async () => {
    const receiver = await startReceiver((_req, _n, res) => {
      setTimeout(() => res.writeHead(200).end(), 2);
    });
    // Two instances: separate connection pools, as two processes would have.
    const dbA = openPostgres(pg.url);
    const dbB = openPostgres(pg.url);
    try {
      const box = createSecretBox(TEST_SECRET_KEY, 'webhook-secrets');
      const now = new Date().toISOString();
      const accountId = prefixedId('acct');
      await pg.db.query(
        `INSERT INTO accounts (id, email, password_hash, plan, created_at, updated_at)
         VALUES ($1, $2, 'x', 'business', $3, $3)`,
        [accountId, `${accountId}@example.com`, now],
      );
      for (const path of ['a', 'b']) {
        await pg.db.query(
          `INSERT INTO webhook_endpoints (id, account_id, url, events, secret_enc, created_at, updated_at)
           VALUES ($1, $2, $3, '{data.updated}', $4, $5, $5)`,
          [prefixedId('wh'), accountId, `${receiver.url}/${path}`, box.seal('whsec_c2VjcmV0'), now],
        );
      }
      const publish = webhookPublisher(resolvePlans(), systemClock);
      const events = 150;
      for (let i = 0; i < events; i++) {
        await pg.db.transaction(async (tx) => {
          const id = `evt_${i}`;
          await tx.query(
            `INSERT INTO events (id, type, created_at, data) VALUES ($1, 'data.updated', $2, '{}')`,
            [id, now],
          );
          await publish(tx, { id, type: 'data.updated' });
        });
      }
      const worker = (db: typeof dbA) =>
        createWebhookWorker({
          db,
          clock: systemClock,
          box,
          sender: createHttpSender({ allowPrivate: true }),
          logger: pino({ level: 'silent' }),
          concurrency: 8,
        });
      const [a, b] = await Promise.all([worker(dbA).runOnce(), worker(dbB).runOnce()]);
      assert.equal(a + b, events * 2);
      assert.ok(a > 0 && b > 0, `both workers took part (${a} + ${b})`);
      const seen = new Map<string, number>();
      for (const r of receiver.received) {
        const key = `${r.path} ${r.headers['webhook-id'] as string}`;
        seen.set(key, (seen.get(key) ?? 0) + 1);
      }
      assert.equal(seen.size, events * 2);
      assert.ok(
        [...seen.values()].every((n) => n === 1),
        'no event delivered twice',
      );
      const pending = await pg.db.query<{ n: string }>(
        "SELECT count(*) AS n FROM webhook_deliveries WHERE status <> 'succeeded'",
      );
      assert.equal(Number(pending[0]!.n), 0);
    } finally {
      await dbA.close();
      await dbB.close();
      await receiver.close();
    }
  });
});
