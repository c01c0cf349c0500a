import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { accountOnPlan } from '../helpers/accounts.js';
import { createClient } from '../helpers/oauth.js';

describe('the OAuth endpoints ignore Idempotency-Key', () => {
  let t: TestApp;
  let a: { client_id: string; client_secret: string };
  let b: { client_id: string; client_secret: string };

  before(async () => {
    t = await buildTestApp({ env: { PUBLIC_BASE_URL: 'https://api.example.test' } });
    const { session } = await accountOnPlan(t, 'enterprise');
    const create = (name: string) => createClient(t, session, { name, scopes: ['salary:read'] });
    a = await create('a');
    b = await create('b');
  });
  after(() => t.close());

  const token = (basic: string) =>
    t.app.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(basic).toString('base64')}`,
        'idempotency-key': 'same-key',
      },
      payload: 'grant_type=client_credentials',
    });

  it("never replays one client's token response to another caller from the same address", async () => {
    const first = await token(`${a.client_id}:${a.client_secret}`);
    assert.equal(first.statusCode, 200, first.body);
    const tokenA = first.json<{ access_token: string }>().access_token;
    // A wrong secret with the same body and key: refused, not answered with A's token.
    const wrong = await token(`${a.client_id}:not-the-secret`);
    assert.equal(wrong.statusCode, 401, wrong.body);
    assert.doesNotMatch(wrong.body, new RegExp(tokenA.slice(-20)));
    // Another client: its own token.
    const other = await token(`${b.client_id}:${b.client_secret}`);
    assert.equal(other.statusCode, 200, other.body);
    assert.equal(other.headers['idempotent-replayed'], undefined);
    const claims = JSON.parse(
      Buffer.from(
        other.json<{ access_token: string }>().access_token.split('.')[1]!,
        'base64url',
      ).toString(),
    ) as { client_id: string };
    assert.equal(claims.client_id, b.client_id);
  });
});
