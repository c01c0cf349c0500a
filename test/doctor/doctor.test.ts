import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/config/index.js';
import { BEFORE_OPEN_CHECKS, DEFAULT_CHECKS, runChecks } from '../../src/doctor/index.js';
import { createSecretBox } from '../../src/lib/secret-box.js';
import { clonePglite, type TestDb } from '../helpers/db.js';
import { startSmtp } from '../helpers/smtp.js';

const KEY = 'doctor-secret-key-0123456789abcdefghijkl';

describe('doctor checks', () => {
  let t: TestDb;
  const dir = mkdtempSync(join(tmpdir(), 'salary-api-doctor-'));
  before(async () => {
    t = await clonePglite();
    await t.db.query(
      `INSERT INTO accounts (id, email, password_hash, created_at, updated_at)
       VALUES ('acc_doctor', 'd@example.com', 'x', now(), now())`,
    );
  });
  after(async () => {
    await t.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  const statusOf = async (env: Record<string, string>, name: string) => {
    const config = loadConfig({ DATA_DIR: dir, ...env });
    const results = await runChecks({ config, db: t.db, now: Date.now }, [
      ...BEFORE_OPEN_CHECKS,
      ...DEFAULT_CHECKS,
    ]);
    return results.find((r) => r.check === name)!;
  };

  it('passes the migrated database and the bundled release', async () => {
    assert.equal((await statusOf({}, 'database')).status, 'ok');
    assert.match((await statusOf({}, 'data release')).detail, /^2026\.11\.8, loaded \d+ days ago$/);
  });

  it('checks the SMTP server named by SMTP_URL: skipped without, ok when it answers, failed when gone', async () => {
    assert.equal((await statusOf({}, 'SMTP')).status, 'skip');
    const smtp = await startSmtp();
    try {
      assert.equal((await statusOf({ SMTP_URL: smtp.url }, 'SMTP')).status, 'ok');
    } finally {
      await smtp.close();
    }
    const gone = await statusOf({ SMTP_URL: smtp.url }, 'SMTP');
    assert.equal(gone.status, 'fail');
    assert.match(gone.fix ?? '', /SMTP_URL/);
  });

  it('fails a DATA_DIR readable by others, with the command to fix it', async () => {
    writeFileSync(join(dir, 'secret-key'), `${KEY}\n`, { mode: 0o600 });
    chmodSync(dir, 0o700);
    assert.equal((await statusOf({}, 'DATA_DIR permissions')).status, 'ok');
    chmodSync(join(dir, 'secret-key'), 0o644);
    const loose = await statusOf({}, 'DATA_DIR permissions');
    assert.equal(loose.status, 'fail');
    assert.match(loose.fix ?? '', /chmod -R go-rwx/);
    chmodSync(join(dir, 'secret-key'), 0o600);
  });

  it('fails a SECRET_KEY that does not decrypt the stored secrets', async () => {
    const [account] = await t.db.query<{ id: string }>('SELECT id FROM accounts LIMIT 1');
    if (account === undefined) return assert.fail('the test database has no account');
    const sealed = createSecretBox(KEY, 'webhook-secrets').seal('whsec_test');
    await t.db.query(
      `INSERT INTO webhook_endpoints (id, account_id, url, events, secret_enc, created_at, updated_at)
       VALUES ('whe_doctor', $1, 'https://example.com/hook', '{}', $2, now(), now())`,
      [account.id, sealed],
    );
    assert.equal((await statusOf({ SECRET_KEY: KEY }, 'secret key')).status, 'ok');
    const wrong = await statusOf({ SECRET_KEY: `${KEY}-other` }, 'secret key');
    assert.equal(wrong.status, 'fail');
    assert.match(wrong.detail, /does not decrypt/);
  });
  it('fails while invoices would lack seller settings, naming each, and passes once all are set', async () => {
    const bare = await statusOf({}, 'seller (invoices)');
    assert.equal(bare.status, 'fail');
    assert.equal(
      bare.detail,
      'invoices would lack SELLER_NAME, SELLER_ADDRESS, SELLER_COUNTRY, SELLER_VAT_NUMBER, SELLER_IBAN',
    );
    assert.match(bare.fix ?? '', /^set SELLER_NAME, .*README set-up/);
    const partial = await statusOf(
      { SELLER_NAME: 'Loonwijzer BV', SELLER_ADDRESS: 'Keizersgracht 1; 1015 CJ Amsterdam' },
      'seller (invoices)',
    );
    assert.equal(
      partial.detail,
      'invoices would lack SELLER_COUNTRY, SELLER_VAT_NUMBER, SELLER_IBAN',
    );
    const full = await statusOf(
      {
        SELLER_NAME: 'Loonwijzer BV',
        SELLER_ADDRESS: 'Keizersgracht 1; 1015 CJ Amsterdam',
        SELLER_COUNTRY: 'NL',
        SELLER_VAT_NUMBER: 'NL 8123.4567.8B01',
        SELLER_IBAN: 'NL91ABNA0417164300',
      },
      'seller (invoices)',
    );
    assert.equal(full.status, 'ok');
    assert.equal(full.detail, 'Loonwijzer BV, NL812345678B01');
  });
});
