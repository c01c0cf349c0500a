import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { verifyAuditChain } from '../../src/audit/index.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { accountOnPlan, giveBillingDetails, verifyEmailOf } from '../helpers/accounts.js';

const PASSWORD = 'correct horse battery staple';

describe('accounts, sessions, subscription and keys', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({ now: '2026-11-10T09:00:00Z' });
  });
  after(() => t.close());

  const post = (
    url: string,
    payload: unknown,
    token?: string,
    headers: Record<string, string> = {},
  ) =>
    t.app.inject({
      method: 'POST',
      url,
      payload: payload as object,
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
    });
  const get = (url: string, token?: string, remoteAddress?: string) =>
    t.app.inject({
      method: 'GET',
      url,
      remoteAddress,
      headers: token ? { authorization: `Bearer ${token}` } : {},
    });

  let session = '';
  let apiKey = '';

  it('signs up on Free with a session token; a duplicate e-mail is 409 whatever its case', async () => {
    const res = await post('/api/v1/accounts', { email: 'ada@example.com', password: PASSWORD });
    assert.equal(res.statusCode, 201, res.body);
    const body = res.json();
    assert.equal(body.account.plan, 'free');
    assert.match(body.session.token, /^sess_/);
    session = body.session.token;
    const again = await post('/api/v1/accounts', { email: 'ADA@example.com', password: PASSWORD });
    assert.equal(again.statusCode, 409);
    assert.equal(again.json().code, 'EMAIL_TAKEN');
  });

  it('refuses weak passwords saying why, and bad e-mails', async () => {
    const cases: [string, string, string][] = [
      ['short@example.com', 'tiny', 'WEAK_PASSWORD'],
      ['same@example.com', 'aaaaaaaaaaaaaaa', 'WEAK_PASSWORD'],
      ['common@example.com', 'password1234', 'WEAK_PASSWORD'],
      ['margaret@example.com', 'hello-margaret-123', 'WEAK_PASSWORD'],
      ['not-an-email', PASSWORD, 'INVALID_PARAMETER'],
    ];
    for (const [email, password, code] of cases) {
      const res = await post('/api/v1/accounts', { email, password });
      assert.equal(res.statusCode, 400, `${email}: ${res.body}`);
      assert.equal(res.json().code, code);
    }
    const extra = await post('/api/v1/accounts', {
      email: 'x@example.com',
      password: PASSWORD,
      plan: 'enterprise',
    });
    assert.equal(extra.statusCode, 400);
  });

  it('logs in; a wrong password is 401 and repeated failures are throttled with 429', async () => {
    const ok = await post('/api/v1/sessions', { email: 'ada@example.com', password: PASSWORD });
    assert.equal(ok.statusCode, 201);
    const codes: number[] = [];
    for (let i = 0; i < 11; i++) {
      codes.push(
        (
          await t.app.inject({
            method: 'POST',
            url: '/api/v1/sessions',
            remoteAddress: `192.0.2.${i + 1}`,
            payload: { email: 'ada@example.com', password: 'wrong password!!' },
          })
        ).statusCode,
      );
    }
    assert.deepEqual(
      codes,
      [...Array(10).fill(401), 429],
      'ten failures per account per hour, from any address',
    );
    const blocked = await t.app.inject({
      method: 'POST',
      url: '/api/v1/sessions',
      remoteAddress: '192.0.2.99',
      payload: { email: 'ada@example.com', password: PASSWORD },
    });
    assert.equal(blocked.statusCode, 429);
    assert.ok(Number(blocked.headers['retry-after']) > 0);
    t.clock.advance(3_600_000);
    assert.equal(
      (await post('/api/v1/sessions', { email: 'ada@example.com', password: PASSWORD })).statusCode,
      201,
    );
  });

  it('Free accounts cannot create keys (403 naming Developer)', async () => {
    const res = await post('/api/v1/keys', { name: 'ci' }, session);
    assert.equal(res.statusCode, 403);
    assert.equal(res.json().required_plan, 'developer');
  });

  it('subscribing to Developer issues the first API key at once, shown once', async () => {
    const unverified = await post('/api/v1/subscription', { plan: 'developer' }, session);
    assert.equal(unverified.statusCode, 403, unverified.body);
    assert.equal(unverified.json().code, 'EMAIL_NOT_VERIFIED');
    const account = (await get('/api/v1/account', session)).json();
    assert.equal(account.email_verified_at, null);
    await verifyEmailOf(t, account.id);
    await giveBillingDetails(t, account.id);
    const res = await post('/api/v1/subscription', { plan: 'developer' }, session);
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.equal(body.subscription.plan, 'developer');
    assert.equal(body.subscription.status, 'active');
    assert.match(body.api_key.key, /^sk_live_[A-Za-z0-9_-]{43}$/);
    assert.equal(body.invoices[0].subtotal_cents, 4900);
    apiKey = body.api_key.key;
    const listed = (await get('/api/v1/keys', session)).json().data;
    assert.equal(listed.length, 1);
    assert.equal(listed[0].key, undefined, 'a listing never shows the secret');
    assert.equal(listed[0].prefix, apiKey.slice(0, 12));
    const stored = await t.db.query<{ key_hash: string }>('SELECT key_hash FROM api_keys');
    assert.ok(
      stored.every((r) => !r.key_hash.includes(apiKey.slice(8))),
      'only a hash is stored',
    );
  });

  it('serves the key at the Developer plan: CSV allowed, daily limit per account, 1 year of history', async () => {
    const res = await get('/api/v1/salary?country=DE&job=nurse&year=2025', apiKey);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.headers['x-ratelimit-limit'], '10000');
    assert.equal(res.headers['ratelimit-policy'], '"daily";q=10000;w=86400');
    assert.equal(
      (await get('/api/v1/salary?country=DE&job=nurse&year=2024', apiKey)).json().required_plan,
      'business',
    );
    assert.equal(
      (await get('/api/v1/salary?country=DE&job=nurse&format=xlsx', apiKey)).json().required_plan,
      'business',
    );
  });

  it('a second key on Developer is 409; rotation keeps the old key for the grace period', async () => {
    const second = await post('/api/v1/keys', { name: 'second' }, session);
    assert.equal(second.statusCode, 409);
    assert.equal(second.json().code, 'KEY_LIMIT_REACHED');
    const keyId = (await get('/api/v1/keys', session)).json().data[0].id;
    const rotated = await post(`/api/v1/keys/${keyId}/rotate`, {}, session);
    assert.equal(rotated.statusCode, 201, rotated.body);
    const fresh = rotated.json().key.key;
    assert.equal(
      (await get('/api/v1/countries', apiKey)).statusCode,
      200,
      'old key works during the grace period',
    );
    assert.equal((await get('/api/v1/countries', fresh)).statusCode, 200);
    t.clock.advance(24 * 3_600_000 + 1);
    assert.equal((await get('/api/v1/countries', apiKey)).statusCode, 401, 'old key expired');
    apiKey = fresh;
  });

  it('revoking a key stops it at once', async () => {
    const keyId = (await get('/api/v1/keys', session))
      .json()
      .data.find((k: { status: string }) => k.status === 'active').id;
    assert.equal(
      (
        await t.app.inject({
          method: 'DELETE',
          url: `/api/v1/keys/${keyId}`,
          headers: { authorization: `Bearer ${session}` },
        })
      ).statusCode,
      200,
    );
    const res = await get('/api/v1/salary?country=DE&job=nurse', apiKey);
    assert.equal(res.statusCode, 401);
    assert.equal(
      (
        await t.app.inject({
          method: 'POST',
          url: '/api/v1/keys',
          payload: {},
          headers: { authorization: `Bearer ${session}` },
        })
      ).statusCode,
      201,
    );
  });

  it('records security events in a hash-chained audit log the account can read', async () => {
    const log = (await get('/api/v1/account/audit-log', session))
      .json()
      .data.map((e: { action: string }) => e.action);
    for (const action of [
      'accounts.create',
      'sessions.create',
      'sessions.create_failed',
      'accounts.email_verified',
      'subscriptions.change',
      'keys.create',
      'keys.rotate',
      'keys.revoke',
    ]) {
      assert.ok(log.includes(action), action);
    }
    assert.equal(await verifyAuditChain(t.db), null);
    await t.db.query(
      "UPDATE audit_log SET data = '{\"forged\":true}' WHERE action = 'keys.revoke'",
    );
    assert.notEqual(await verifyAuditChain(t.db), null, 'an edited entry breaks the chain');
  });

  it('honours Idempotency-Key: a retried create returns the first result, never a duplicate', async () => {
    const headers = { 'idempotency-key': 'signup-42' };
    const first = await post(
      '/api/v1/accounts',
      { email: 'grace@example.com', password: PASSWORD },
      undefined,
      headers,
    );
    const retry = await post(
      '/api/v1/accounts',
      { email: 'grace@example.com', password: PASSWORD },
      undefined,
      headers,
    );
    assert.equal(first.statusCode, 201);
    assert.equal(retry.statusCode, 201);
    assert.equal(retry.headers['idempotent-replayed'], 'true');
    assert.equal(retry.json().account.id, first.json().account.id);
    assert.equal(
      retry.json().session.token,
      first.json().session.token,
      'the first result, secret included (kept sealed)',
    );
    const other = await post(
      '/api/v1/accounts',
      { email: 'other@example.com', password: PASSWORD },
      undefined,
      headers,
    );
    assert.equal(other.statusCode, 409);
    assert.equal(other.json().code, 'IDEMPOTENCY_KEY_REUSED');
    const rows = await t.db.query(
      "SELECT 1 FROM accounts WHERE lower(email) = 'grace@example.com'",
    );
    assert.equal(rows.length, 1);
  });
  it('an upgrade mid-window raises the daily limit at once without resetting what was used', async () => {
    const other = await accountOnPlan(t, 'developer');
    const apiKey = other.apiKey!;
    const session = other.session;
    await get('/api/v1/countries', apiKey);
    const before = await get('/api/v1/countries', apiKey);
    const used = 10_000 - Number(before.headers['x-ratelimit-remaining']);
    assert.ok(used >= 2);
    const up = await post('/api/v1/subscription', { plan: 'business' }, session);
    assert.equal(up.statusCode, 200, up.body);
    const after = await get('/api/v1/countries', apiKey);
    assert.equal(after.headers['x-ratelimit-limit'], '100000');
    assert.equal(after.headers['x-ratelimit-remaining'], String(100_000 - used - 1));
    const down = await post('/api/v1/subscription', { plan: 'developer' }, session);
    assert.equal(
      down.json().subscription.pending_plan,
      'developer',
      'the downgrade waits for the period end',
    );
    assert.equal((await get('/api/v1/countries', apiKey)).headers['x-ratelimit-limit'], '100000');
  });
});
