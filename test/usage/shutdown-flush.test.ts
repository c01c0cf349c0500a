// Usage is counted in memory and written in batches; a graceful stop (SIGTERM) writes what is
// still held, so no answered request goes uncounted. The flush interval is set past the test's
// length: only the shutdown writes anything.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { openPglite } from '../../src/store/index.js';
import { templateDir } from '../helpers/db.js';
import { call, LOOKUP, startInstance } from '../helpers/instances.js';
import { startSmtp } from '../helpers/smtp.js';
import { mailedToken, mailsTo } from '../accounts/mail.js';

const PASSWORD = 'a long enough passphrase';

describe('usage held in memory is written on SIGTERM (a real process, embedded database)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'salary-api-usage-flush-'));
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it("counts every request of a key and of a session, and the key's last use", async () => {
    // The tests' prepared database (migrated, bundled release loaded) as the embedded one.
    cpSync(await templateDir(), join(dataDir, 'pglite'), { recursive: true });
    const smtp = await startSmtp();
    const instance = await startInstance({
      DATA_DIR: dataDir,
      USAGE_FLUSH_SECONDS: '3600',
      SMTP_URL: smtp.url,
    });
    let accountId: string;
    let keyId: string;
    try {
      const signUp = await call(instance.url, '/api/v1/accounts', {
        method: 'POST',
        body: { email: `flush-${randomBytes(4).toString('hex')}@example.com`, password: PASSWORD },
      });
      assert.equal(signUp.status, 201, JSON.stringify(signUp.body));
      const signedUp = signUp.body as { account: { id: string }; session: { token: string } };
      accountId = signedUp.account.id;
      const session = signedUp.session.token;
      // The address confirmed from the mailed link, as a paid plan needs.
      const email = (signUp.body as { account: { email: string } }).account.email;
      const deadline = Date.now() + 20_000;
      while (mailsTo(smtp.received, email, 'Confirm your e-mail address').length === 0) {
        if (Date.now() > deadline) throw new Error('no verification mail within 20 s');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const token = mailedToken(
        smtp.received,
        email,
        'Confirm your e-mail address',
        'verify-email',
      );
      const verified = await call(instance.url, '/api/v1/email-verification', {
        method: 'POST',
        body: { token },
      });
      assert.equal(verified.status, 200, JSON.stringify(verified.body));
      const details = await call(instance.url, '/api/v1/account/billing-details', {
        method: 'PUT',
        token: session,
        body: { company_name: 'Flush B.V.', address_lines: ['Damrak 1'], country: 'NL' },
      });
      assert.equal(details.status, 200, JSON.stringify(details.body));
      const subscribed = await call(instance.url, '/api/v1/subscription', {
        method: 'POST',
        token: session,
        body: { plan: 'developer' },
      });
      assert.equal(subscribed.status, 200, JSON.stringify(subscribed.body));
      const apiKey = (subscribed.body as { api_key: { id: string; key: string } }).api_key;
      keyId = apiKey.id;
      for (let i = 0; i < 3; i++)
        assert.equal((await call(instance.url, LOOKUP, { token: apiKey.key })).status, 200);
      for (let i = 0; i < 2; i++)
        assert.equal((await call(instance.url, LOOKUP, { token: session })).status, 200);
      assert.equal(await instance.stop(), 0, instance.log());
    } finally {
      await instance.kill();
      await smtp.close();
    }

    const db = await openPglite(join(dataDir, 'pglite'));
    try {
      const rows = await db.query<{
        key_id: string;
        endpoint: string;
        status: number;
        count: string | number;
      }>(
        `SELECT key_id, endpoint, status, sum(count) AS count FROM usage_hourly
         WHERE account_id = $1 GROUP BY key_id, endpoint, status ORDER BY key_id, endpoint`,
        [accountId],
      );
      assert.deepEqual(
        rows.map((r) => [r.key_id, r.endpoint, r.status, Number(r.count)]),
        [
          ['', 'GET /api/v1/salary', 200, 2],
          ['', 'POST /api/v1/subscription', 200, 1],
          ['', 'PUT /api/v1/account/billing-details', 200, 1],
          [keyId, 'GET /api/v1/salary', 200, 3],
        ],
      );
      const [key] = await db.query<{ last_used_at: Date | null }>(
        'SELECT last_used_at FROM api_keys WHERE id = $1',
        [keyId],
      );
      assert.ok(key?.last_used_at != null, "the key's last use is written");
    } finally {
      await db.close();
    }
  });
});
