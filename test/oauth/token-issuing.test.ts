import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { verifyAuditChain } from '../../src/audit/index.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { accountOnPlan } from '../helpers/accounts.js';
import { clonePglite } from '../helpers/db.js';
import { basicAuth, createClient, type CreatedClient } from '../helpers/oauth.js';
import { sha256Hex } from '../../src/lib/crypto.js';
import type { Db } from '../../src/store/index.js';

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
    const c = await createClient(t, session, { name: 'concurrent', scopes: ['salary:read'] });
    return basicAuth(c.client_id, c.client_secret);
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

/** Issuing a token reads the client from memory; a change made elsewhere is re-read once. */
describe('token endpoint reads clients from memory', () => {
  let t: TestApp;
  let session: string;
  const statements: string[] = [];
  before(async () => {
    const copy = await clonePglite();
    const counted: Db = {
      ...copy.db,
      query: (sql, params) => {
        statements.push(sql);
        return copy.db.query(sql, params);
      },
      close: async () => {
        await copy.cleanup();
      },
    };
    // No periodic refresh of the registry within the test (it would read oauth_clients on a
    // timer of its own); the re-read on an unknown secret still happens.
    t = await buildTestApp({ db: counted, env: { CREDENTIAL_REFRESH_SECONDS: '60' } });
    ({ session } = await accountOnPlan(t, 'enterprise'));
  });
  after(() => t.close());

  function token(id: string, secret: string) {
    return t.app.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: {
        authorization: basicAuth(id, secret),
        'content-type': 'application/x-www-form-urlencoded',
      },
      payload: 'grant_type=client_credentials',
    });
  }

  it('issues tokens without a query for the client row, and takes a secret rotated elsewhere at once', async () => {
    const { id, client_secret: secret } = await createClient<CreatedClient & { id: string }>(
      t,
      session,
      { name: 'from memory', scopes: ['salary:read'] },
    );
    assert.equal((await token(id, secret)).statusCode, 200);
    statements.length = 0;
    for (let i = 0; i < 3; i++) assert.equal((await token(id, secret)).statusCode, 200);
    const clientReads = statements.filter((sql) => /FROM oauth_clients/i.test(sql));
    assert.deepEqual(clientReads, [], 'no client row read per token');

    // Another instance rotates the secret: only the database knows it yet.
    const rotated = 'rotated-secret-0123456789abcdefghijklmnopqrstuv';
    t.clock.advance(1_000);
    await t.db.query(
      `UPDATE oauth_clients SET previous_secret_hash = secret_hash, secret_hash = $2,
         previous_secret_expires_at = $3, updated_at = $4 WHERE id = $1`,
      [
        id,
        sha256Hex(rotated),
        new Date(t.clock.now() + 86_400_000).toISOString(),
        new Date(t.clock.now()).toISOString(),
      ],
    );
    t.clock.advance(1_000);
    const fresh = await token(id, rotated);
    assert.equal(fresh.statusCode, 200, fresh.body);
    assert.equal((await token(id, secret)).statusCode, 200, 'the old secret still works a day');
    // A wrong secret is refused; repeated at once, it costs no re-read each.
    statements.length = 0;
    for (let i = 0; i < 5; i++)
      assert.equal((await token(id, 'wrong-secret-0123456789')).statusCode, 401);
    const rereads = statements.filter((sql) => /FROM oauth_clients/i.test(sql));
    assert.ok(rereads.length <= 1, `at most one re-read within 100 ms: ${rereads.length}`);
  });

  it('never lets an older row of a client replace a newer one or bring a deleted client back', async () => {
    const authority = t.oauth;
    const make = (name: string) =>
      createClient<CreatedClient & { id: string }>(t, session, { name, scopes: ['salary:read'] });
    const later = (row: { updatedAt: string }) =>
      new Date(Date.parse(row.updatedAt) + 1_000).toISOString();

    // A re-read that began before the deletion delivers the row as it was, after it.
    const gone = await make('deleted');
    const before = authority.client(gone.id)!;
    authority.applyClient({ ...before, deletedAt: later(before), updatedAt: later(before) });
    authority.applyClient(before);
    assert.equal(authority.client(gone.id), undefined);
    assert.equal((await token(gone.id, gone.client_secret)).statusCode, 401);

    const kept = await make('renamed');
    const original = authority.client(kept.id)!;
    authority.applyClient({ ...original, name: 'newer', updatedAt: later(original) });
    authority.applyClient(original);
    assert.equal(authority.client(kept.id)?.name, 'newer');
  });
});
