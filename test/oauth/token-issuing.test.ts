import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { verifyAuditChain } from '../../src/audit/index.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { accountOnPlan } from '../helpers/accounts.js';

/** Many token requests at once: one signing key, one committed audit row per token. */
describe('token endpoint under concurrent requests', () => {
  let t: TestApp;
  let session: string;
  before(async () => {
    t = await buildTestApp();
    ({ session } = await accountOnPlan(t, 'enterprise'));
  });
  after(() => t.close());

  async function basic(): Promise<string> {
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/v1/oauth/clients',
      headers: { authorization: `Bearer ${session}` },
      payload: { name: 'concurrent', scopes: ['salary:read'] },
    });
    const c = created.json<{ client_id: string; client_secret: string }>();
    return `Basic ${Buffer.from(`${c.client_id}:${c.client_secret}`).toString('base64')}`;
  }

  it('the first tokens, requested together on a fresh server, make one signing key, and every token has its audit row', async () => {
    const credentials = await Promise.all(Array.from({ length: 4 }, () => basic()));
    const responses = await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        t.app.inject({
          method: 'POST',
          url: '/oauth/token',
          headers: {
            authorization: credentials[i % credentials.length]!,
            'content-type': 'application/x-www-form-urlencoded',
          },
          payload: 'grant_type=client_credentials',
        }),
      ),
    );
    for (const res of responses) assert.equal(res.statusCode, 200, res.body);
    const keys = await t.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM oauth_signing_keys',
    );
    assert.equal(keys[0]?.n, 1, 'one signing key, not one per concurrent first request');
    const jtis = responses.map(
      (res) =>
        (
          JSON.parse(
            Buffer.from(
              res.json<{ access_token: string }>().access_token.split('.')[1]!,
              'base64url',
            ).toString(),
          ) as { jti: string }
        ).jti,
    );
    const rows = await t.db.query<{ jti: string }>(
      "SELECT data->>'jti' AS jti FROM audit_log WHERE action = 'oauth.token_issue'",
    );
    assert.deepEqual(rows.map((r) => r.jti).sort(), [...jtis].sort());
    assert.equal(await verifyAuditChain(t.db), null);
  });
});
