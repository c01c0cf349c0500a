import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { systemClock } from '../../src/lib/clock.js';
import { prefixedId } from '../../src/lib/ids.js';
import { createSecretBox } from '../../src/lib/secret-box.js';
import { createHttpSender, createWebhookWorker } from '../../src/webhooks/index.js';
import { generateSigningSecret } from '../../src/webhooks/signature.js';
import { TEST_SECRET_KEY } from '../helpers/app.js';
import { freshPostgres, postgresAvailable, type TestDb } from '../helpers/db.js';
import { runCli } from '../helpers/process.js';
import { writeReleaseVersion } from '../helpers/release-file.js';
import { startReceiver } from '../helpers/receiver.js';
import { verify } from '../helpers/webhooks.js';

describe('salary-api data load and webhooks (PostgreSQL)', async () => {
  const enabled = await postgresAvailable();
  const skip = !enabled && 'no PostgreSQL reachable';
  const work = mkdtempSync(join(tmpdir(), 'salary-api-webhooks-cli-'));
  let pg: TestDb & { url: string };
  before(async () => {
    if (enabled) pg = await freshPostgres();
  });
  after(async () => {
    await pg?.cleanup();
    rmSync(work, { recursive: true, force: true });
  });

  it(
    'data load writes one delivery per subscribed, enabled endpoint in its transaction; it arrives signed',
    { skip, timeout: 60_000 },
    async () => {
      const receiver = await startReceiver();
      const box = createSecretBox(TEST_SECRET_KEY, 'webhook-secrets');
      const secret = generateSigningSecret();
      const now = new Date().toISOString();
      const endpoint = async (plan: string, enabled: boolean, path: string): Promise<string> => {
        const accountId = prefixedId('acct');
        await pg.db.query(
          `INSERT INTO accounts (id, email, password_hash, plan, created_at, updated_at)
         VALUES ($1, $2, 'x', $3, $4, $4)`,
          [accountId, `${accountId}@example.com`, plan, now],
        );
        const id = prefixedId('wh');
        await pg.db.query(
          `INSERT INTO webhook_endpoints (id, account_id, url, events, enabled, secret_enc, created_at, updated_at)
         VALUES ($1, $2, $3, '{data.updated}', $4, $5, $6, $6)`,
          [id, accountId, `${receiver.url}/${path}`, enabled, box.seal(secret), now],
        );
        return id;
      };
      try {
        const subscribed = await endpoint('business', true, 'yes');
        await endpoint('business', false, 'disabled');
        await endpoint('developer', true, 'downgraded');

        const file = writeReleaseVersion(join(work, 'release.jsonl.gz'), '2026.11.9');
        const res = await runCli(['data', 'load', file, '--json'], { DATABASE_URL: pg.url });
        assert.equal(res.code, 0, res.stderr);
        const eventId = (JSON.parse(res.stdout) as { event: { id: string } }).event.id;

        const rows = await pg.db.query<{ endpoint_id: string; event_id: string; status: string }>(
          'SELECT endpoint_id, event_id, status FROM webhook_deliveries',
        );
        assert.deepEqual(rows, [{ endpoint_id: subscribed, event_id: eventId, status: 'pending' }]);

        const worker = createWebhookWorker({
          db: pg.db,
          clock: systemClock,
          box,
          sender: createHttpSender({ allowPrivate: true }),
          logger: pino({ level: 'silent' }),
          concurrency: 2,
        });
        assert.equal(await worker.runOnce(), 1);
        assert.deepEqual(
          receiver.received.map((r) => r.path),
          ['/hook/yes'],
        );
        const payload = verify(secret, receiver.received[0]!) as {
          type: string;
          data: { release: string; previous_release: string | null };
        };
        assert.equal(payload.type, 'data.updated');
        assert.equal(payload.data.release, '2026.11.9');
        assert.equal(receiver.received[0]!.headers['webhook-id'], eventId);
      } finally {
        await receiver.close();
      }
    },
  );

  it('serve refuses to start on PostgreSQL without SECRET_KEY, saying so', { skip }, async () => {
    const res = await runCli(['serve'], { DATABASE_URL: pg.url, PORT: '0' }, 30_000);
    assert.equal(res.code, 1);
    assert.match(res.stderr, /SECRET_KEY must be set when DATABASE_URL is set/);
  });
});
