// The account's data export and its deletion over HTTP: what the export holds (and never
// holds), what deletion stops at once, erases and keeps.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { listAudit } from '../../src/audit/index.js';
import { accountOnPlan } from '../helpers/accounts.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { basicAuth, clientAndToken } from '../helpers/oauth.js';
import { answer, startReceiver, type Receiver } from '../helpers/receiver.js';

type Json = Record<string, unknown>;
const PASSWORD = 'a long enough passphrase';

describe('account data export and deletion', () => {
  let t: TestApp;
  let receiver: Receiver;
  before(async () => {
    receiver = await startReceiver(answer(200, 'ok'));
    t = await buildTestApp({ env: { OUTBOUND_ALLOW_PRIVATE_TARGETS: 'true' } });
  });
  after(async () => {
    await t.close();
    await receiver.close();
  });

  const call = (method: 'GET' | 'POST', url: string, token?: string, payload?: Json) =>
    t.app.inject({
      method,
      url,
      headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
      ...(payload === undefined ? {} : { payload }),
    });

  /** A Business account with an invoice, a webhook and a second session. */
  async function customer() {
    const c = await accountOnPlan(t, 'business');
    const hook = await call('POST', '/api/v1/webhooks', c.apiKey as string, {
      url: receiver.url,
      events: ['data.updated'],
    });
    assert.equal(hook.statusCode, 201, hook.body);
    const login = await call('POST', '/api/v1/sessions', undefined, {
      email: c.email,
      password: PASSWORD,
    });
    assert.equal(login.statusCode, 201, login.body);
    return {
      ...c,
      apiKey: c.apiKey as string,
      secret: hook.json<{ secret: string }>().secret,
      second: login.json<{ token: string }>().token,
    };
  }

  it('exports everything held about the account as a JSON attachment, without secrets', async () => {
    const c = await customer();
    const res = await call('GET', '/api/v1/account/export', c.session);
    assert.equal(res.statusCode, 200, res.body);
    assert.match(
      res.headers['content-disposition'] as string,
      new RegExp(`^attachment; filename="${c.accountId}-export-\\d{4}-\\d{2}-\\d{2}\\.json"$`),
    );
    interface Export {
      account: Json;
      subscription: Json;
      api_keys: Json[];
      invoices: Json[];
      invoice_lines: Json[];
      webhooks: Json[];
      sessions: Json[];
      audit_log: Json[];
      retained_after_deletion: string[];
    }
    const data = res.json<Export>();
    assert.equal(data.account.email, c.email);
    assert.equal(data.api_keys.length, 1);
    assert.ok(String(data.api_keys[0]?.prefix).startsWith('sk_live_'));
    assert.equal(data.subscription.plan, 'business');
    assert.ok(data.invoices.length >= 1, 'the first invoice is in the export');
    assert.ok(data.invoice_lines.length >= 1);
    assert.equal(data.webhooks[0]?.url, receiver.url);
    assert.equal(data.sessions.length, 2);
    const actions = data.audit_log.map((e) => e.action);
    assert.ok(actions.includes('accounts.create') && actions.includes('accounts.export'));
    assert.ok(data.retained_after_deletion.some((s) => s.includes('10 years')));
    for (const secret of [c.apiKey, c.session, c.second, c.secret, 'scrypt$', 'key_hash'])
      assert.ok(!res.body.includes(secret), `the export holds ${secret.slice(0, 8)}…`);

    assert.equal((await call('GET', '/api/v1/account/export')).statusCode, 401);
  });

  it('refuses a deletion without the confirmation or with a wrong password, naming the field', async () => {
    const c = await customer();
    const unconfirmed = await call('POST', '/api/v1/account/deletion', c.session, {
      password: PASSWORD,
      confirm: 'yes',
    });
    assert.equal(unconfirmed.statusCode, 400);
    assert.equal(unconfirmed.json().invalid_params[0].name, 'confirm');
    const wrong = await call('POST', '/api/v1/account/deletion', c.session, {
      password: 'not the password at all',
      confirm: 'DELETE',
    });
    assert.equal(wrong.statusCode, 400);
    assert.equal(wrong.json().invalid_params[0].name, 'password');
    const missing = await call('POST', '/api/v1/account/deletion', c.session, {
      confirm: 'DELETE',
    });
    assert.equal(missing.statusCode, 400);
    // Nothing happened: the key still answers.
    assert.equal((await call('GET', '/api/v1/account', c.apiKey)).statusCode, 200);
    const actions = (await listAudit(t.db, c.accountId, 20)).map((e) => e.action);
    assert.ok(actions.includes('accounts.delete_failed'));
  });

  it('deletes: keys and sessions stop at once, the address is free, invoices stay', async () => {
    const c = await customer();
    const res = await call('POST', '/api/v1/account/deletion', c.session, {
      password: PASSWORD,
      confirm: 'DELETE',
    });
    assert.equal(res.statusCode, 200, res.body);
    const result = res.json<Json & { retained: string[] }>();
    assert.equal(result.account_id, c.accountId);
    assert.equal(result.api_keys_revoked, 1);
    assert.equal(result.sessions_ended, 2);
    assert.equal(result.subscription_canceled, true);
    assert.ok(Number(result.invoices_kept) >= 1);
    assert.ok(result.retained.some((s) => s.includes('10 years')));

    for (const token of [c.apiKey, c.session, c.second])
      assert.equal((await call('GET', '/api/v1/account', token)).statusCode, 401);
    const salary = await call(
      'GET',
      '/api/v1/salary?country=DE&job=software-engineer&level=senior',
      c.apiKey,
    );
    assert.equal(salary.statusCode, 401);
    const login = await call('POST', '/api/v1/sessions', undefined, {
      email: c.email,
      password: PASSWORD,
    });
    assert.equal(login.statusCode, 401);

    const [row] = await t.db.query<Json>(
      'SELECT email, status, name, password_hash, deleted_at FROM accounts WHERE id = $1',
      [c.accountId],
    );
    assert.equal(row?.email, `deleted+${c.accountId}@invalid`);
    assert.equal(row?.status, 'deleted');
    assert.notEqual(row?.deleted_at, null);
    const count = async (sql: string) =>
      Number((await t.db.query<{ n: string }>(sql, [c.accountId]))[0]?.n);
    assert.equal(
      await count('SELECT count(*) AS n FROM webhook_endpoints WHERE account_id = $1'),
      0,
    );
    assert.equal(await count('SELECT count(*) AS n FROM billing_details WHERE account_id = $1'), 0);
    assert.ok((await count('SELECT count(*) AS n FROM invoices WHERE account_id = $1')) >= 1);
    const [sub] = await t.db.query<Json>('SELECT status FROM subscriptions WHERE account_id = $1', [
      c.accountId,
    ]);
    assert.equal(sub?.status, 'canceled');
    const audit = (await listAudit(t.db, c.accountId, 5)).find(
      (e) => e.action === 'accounts.delete',
    );
    assert.equal(audit?.data.sessions_ended, 2);

    // The address signs up again as a new account.
    const again = await call('POST', '/api/v1/accounts', undefined, {
      email: c.email,
      password: PASSWORD,
    });
    assert.equal(again.statusCode, 201, again.body);
    assert.notEqual(again.json().account.id, c.accountId);
  });

  it('the operator deletes by address without a password', async () => {
    const c = await accountOnPlan(t, 'developer');
    const result = await t.services.accounts.operatorDeleteAccount(c.email);
    assert.equal(result.account_id, c.accountId);
    assert.equal((await call('GET', '/api/v1/account', c.apiKey as string)).statusCode, 401);
    await assert.rejects(t.services.accounts.operatorDeleteAccount(c.email), /No account/);
  });

  it('deletes the account’s OAuth clients: no new token, and its tokens introspect inactive', async () => {
    const c = await accountOnPlan(t, 'enterprise');
    const { client, accessToken } = await clientAndToken(t, c.session, {
      name: 'integration',
      scopes: ['salary:read'],
    });
    const form = (path: string, payload: string) =>
      t.app.inject({
        method: 'POST',
        url: path,
        headers: {
          authorization: basicAuth(client.client_id, client.client_secret),
          'content-type': 'application/x-www-form-urlencoded',
        },
        payload,
      });
    const introspected = async () =>
      (await form('/oauth/introspect', `token=${accessToken}`)).json<{ active: boolean }>().active;
    assert.equal(await introspected(), true);

    await t.services.accounts.operatorDeleteAccount(c.email);
    await t.oauth.refresh();
    const token = await form('/oauth/token', 'grant_type=client_credentials');
    assert.equal(token.statusCode, 401, token.body);
    assert.equal(token.json<{ error: string }>().error, 'invalid_client');
    assert.equal((await form('/oauth/introspect', `token=${accessToken}`)).statusCode, 401);
    const row = (
      await t.db.query<{ deleted_at: unknown; secret_hash: string | null }>(
        'SELECT deleted_at, secret_hash FROM oauth_clients WHERE id = $1',
        [client.client_id],
      )
    )[0];
    assert.notEqual(row?.deleted_at, null);
    assert.equal(row?.secret_hash, null);
  });
});
