import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sha256Hex } from '../../src/lib/crypto.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { until } from '../helpers/instances.js';

const PASSWORD = 'correct horse battery staple';

describe('Idempotency-Key storage', () => {
  let t: TestApp;
  before(async () => {
    // The purge runs with the periodic billing timer: once a second here.
    t = await buildTestApp({ env: { BILLING_INTERVAL_SECONDS: '1' } });
    await t.services.accounts.signUp({ email: 'ada@example.com', password: PASSWORD }, '1.2.3.4');
  });
  after(() => t.close());

  const logIn = (password: string, key: string) =>
    t.app.inject({
      method: 'POST',
      url: '/api/v1/sessions',
      headers: { 'idempotency-key': key },
      payload: { email: 'ada@example.com', password },
    });
  const rows = () =>
    t.db.query<{ key: string; request_hash: string; response: string }>(
      'SELECT key, request_hash, response FROM idempotency_keys',
    );

  it('keeps no unkeyed digest of a body holding a password, nor the token in clear', async () => {
    const first = await logIn(PASSWORD, 'login-1');
    assert.equal(first.statusCode, 201);
    const token = first.json<{ token: string }>().token;
    const body = JSON.stringify({ email: 'ada@example.com', password: PASSWORD });
    const [row] = (await rows()).filter((r) => r.key === 'login-1');
    assert.ok(row !== undefined);
    assert.notEqual(row.request_hash, sha256Hex(`POST /api/v1/sessions\n${body}`));
    assert.ok(!row.response.includes(token), 'the stored response is sealed');
    assert.ok(!row.response.includes(PASSWORD));

    const replay = await logIn(PASSWORD, 'login-1');
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.equal(replay.json<{ token: string }>().token, token);
    const other = await logIn('another password entirely', 'login-1');
    assert.equal(other.statusCode, 409, 'a different body under the same key is still told apart');
    assert.equal(other.json<{ code: string }>().code, 'IDEMPOTENCY_KEY_REUSED');
  });

  it('purges rows after their 24 hours, from the periodic job', async () => {
    await logIn(PASSWORD, 'login-2');
    assert.ok((await rows()).some((r) => r.key === 'login-2'));
    t.clock.advance(24 * 3_600_000 + 60_000);
    await until(async () => (await rows()).length === 0, 5_000, 50);
  });
});
