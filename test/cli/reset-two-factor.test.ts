// The operator's reset of a customer's two-factor sign-in (a lost device), through the CLI on
// PostgreSQL: turned off, audited as the operator's, mailed through the notice outbox.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createSecretBox } from '../../src/lib/secret-box.js';
import { freshPostgres, postgresAvailable, type TestDb } from '../helpers/db.js';
import { runCli } from '../helpers/process.js';

describe('salary-api account reset-two-factor', async () => {
  const enabled = await postgresAvailable();
  let pg: TestDb & { url: string };
  before(async () => {
    if (enabled) pg = await freshPostgres();
  });
  after(async () => {
    await pg?.cleanup();
  });
  const skip = !enabled && 'no PostgreSQL reachable';
  const env = () => ({
    DATABASE_URL: pg.url,
    SECRET_KEY: 'cli-test-secret-key-0123456789abcdefgh',
  });

  it(
    'turns two-factor off, audited and mailed; an account without it is left as it is',
    { skip },
    async () => {
      const created = await runCli(
        ['account', 'create', '--email', 'lost-device@example.com', '--plan', 'free', '--json'],
        env(),
      );
      assert.equal(created.code, 0, created.stderr);
      const accountId = JSON.parse(created.stdout).account.id as string;
      const sealed = createSecretBox(env().SECRET_KEY, 'totp-secrets').seal('JBSWY3DPEHPK3PXP');
      await pg.db.query(
        `INSERT INTO account_totp (account_id, secret_sealed, created_at, enabled_at, last_step)
       VALUES ($1, $2, now(), now(), 1)`,
        [accountId, sealed],
      );
      await pg.db.query(
        `INSERT INTO totp_recovery_codes (account_id, code_hash) VALUES ($1, 'x'), ($1, 'y')`,
        [accountId],
      );

      const reset = await runCli(
        ['account', 'reset-two-factor', 'lost-device@example.com', '--json'],
        env(),
      );
      assert.equal(reset.code, 0, reset.stderr);
      assert.deepEqual(JSON.parse(reset.stdout), { account_id: accountId, was_enabled: true });
      const left = await pg.db.query(
        `SELECT 1 FROM account_totp WHERE account_id = $1
       UNION ALL SELECT 1 FROM totp_recovery_codes WHERE account_id = $1`,
        [accountId],
      );
      assert.equal(left.length, 0);
      const audit = await pg.db.query<{ actor: string; ip: string }>(
        `SELECT actor, ip FROM audit_log WHERE account_id = $1 AND action = 'totp.reset'`,
        [accountId],
      );
      assert.deepEqual(audit, [{ actor: 'operator', ip: 'cli' }]);
      const notices = await pg.db.query(
        `SELECT 1 FROM notices WHERE account_id = $1 AND kind = 'totp.reset'`,
        [accountId],
      );
      assert.equal(notices.length, 1);

      const again = await runCli(['account', 'reset-two-factor', 'lost-device@example.com'], env());
      assert.equal(again.code, 0, again.stderr);
      assert.match(again.stdout, /had no two-factor sign-in on; nothing changed/);
      const unknown = await runCli(['account', 'reset-two-factor', 'nobody@example.com'], env());
      assert.notEqual(unknown.code, 0);
      assert.match(unknown.stderr, /needs the e-mail address of an existing account/);
    },
  );
});
