import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { after, before, describe, it } from 'node:test';
import { freshPostgres, postgresAvailable, type TestDb } from '../helpers/db.js';
import { call, LOOKUP, startInstance, until, type Instance } from '../helpers/instances.js';
import { deleteKeys, redisAvailable, TEST_REDIS_URL, uniquePrefix } from '../helpers/redis.js';
import { loadBundledRelease, operatorServices, paidAccount, type Services } from './fixture.js';

const enabled = (await redisAvailable()) && (await postgresAvailable());

async function form(url: string, path: string, body: Record<string, string>, basic: string) {
  const res = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(basic).toString('base64')}`,
    },
    body: new URLSearchParams(body).toString(),
  });
  return { status: res.status, text: await res.text() };
}

/**
 * An account made by the test's own services reaches a running instance by Redis pub/sub, or by
 * the re-read an unknown credential starts at most every 100 ms: its session works there soon,
 * not necessarily at once.
 */
async function sessionKnownTo(instance: Instance, session: string): Promise<void> {
  await until(
    async () => (await call(instance.url, '/api/v1/account', { token: session })).status === 200,
    2000,
    20,
  );
}

describe(
  'OAuth access tokens across two instances on PostgreSQL and Redis',
  { skip: !enabled && 'no PostgreSQL or Redis' },
  () => {
    const prefix = uniquePrefix();
    let pg: TestDb & { url: string };
    let s: Services;
    const instances: Instance[] = [];
    const env = (): Record<string, string> => ({
      DATABASE_URL: pg.url,
      REDIS_URL: TEST_REDIS_URL,
      REDIS_KEY_PREFIX: prefix,
      PUBLIC_BASE_URL: 'https://api.example.test',
      // Long polls: what arrives within a second arrives through Redis pub/sub.
      CREDENTIAL_REFRESH_SECONDS: '30',
      RELEASE_POLL_SECONDS: '3600',
      WEBHOOK_POLL_SECONDS: '600',
    });

    before(async () => {
      pg = await freshPostgres();
      await loadBundledRelease(pg.db);
      s = await operatorServices(pg.db, env());
      instances.push(...(await Promise.all([0, 1].map(() => startInstance(env())))));
    });

    after(async () => {
      await Promise.all(instances.map((i) => i.kill()));
      await deleteKeys(TEST_REDIS_URL, prefix);
      await pg?.cleanup();
    });

    it('a token issued on one works on the other; revoked on one, refused on the other within a second', async () => {
      const [a, b] = instances as [Instance, Instance];
      const { session } = await paidAccount(s, 'enterprise');
      await sessionKnownTo(a, session);
      const created = await call(a.url, '/api/v1/oauth/clients', {
        method: 'POST',
        token: session,
        body: { name: 'm2m', scopes: ['salary:read'] },
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const { client_id: id, client_secret: secret } = created.body as {
        client_id: string;
        client_secret: string;
      };
      const issued = await form(
        a.url,
        '/oauth/token',
        { grant_type: 'client_credentials' },
        `${id}:${secret}`,
      );
      assert.equal(issued.status, 200, issued.text);
      const token = (JSON.parse(issued.text) as { access_token: string }).access_token;
      assert.equal((await call(b.url, LOOKUP, { token })).status, 200);
      assert.equal((await call(a.url, LOOKUP, { token })).status, 200);

      const revoked = await form(a.url, '/oauth/revoke', { token }, `${id}:${secret}`);
      assert.equal(revoked.status, 200, revoked.text);
      assert.equal((await call(a.url, LOOKUP, { token })).status, 401);
      await until(async () => (await call(b.url, LOOKUP, { token })).status === 401, 1000);

      // A client deleted on the other instance: its new token stops on both.
      const second = await form(
        b.url,
        '/oauth/token',
        { grant_type: 'client_credentials' },
        `${id}:${secret}`,
      );
      const token2 = (JSON.parse(second.text) as { access_token: string }).access_token;
      assert.equal((await call(a.url, LOOKUP, { token: token2 })).status, 200);
      await sessionKnownTo(b, session);
      const deleted = await call(b.url, `/api/v1/oauth/clients/${id}`, {
        method: 'DELETE',
        token: session,
      });
      assert.equal(deleted.status, 204);
      await until(async () => (await call(a.url, LOOKUP, { token: token2 })).status === 401, 1000);
    });

    it('a client made on one instance gets a token on the other at once (unknown ids re-read)', async () => {
      const [a, b] = instances as [Instance, Instance];
      const { session } = await paidAccount(s, 'enterprise');
      await sessionKnownTo(a, session);
      const created = await call(a.url, '/api/v1/oauth/clients', {
        method: 'POST',
        token: session,
        body: { name: 'fresh', scopes: ['salary:read'] },
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const { client_id: id, client_secret: secret } = created.body as {
        client_id: string;
        client_secret: string;
      };
      const issued = await form(
        b.url,
        '/oauth/token',
        { grant_type: 'client_credentials' },
        `${id}:${secret}`,
      );
      assert.equal(issued.status, 200, issued.text);
    });

    it('a DPoP proof used on one instance is refused on the other (Redis SET NX)', async () => {
      const [a, b] = instances as [Instance, Instance];
      const { session } = await paidAccount(s, 'enterprise');
      await sessionKnownTo(a, session);
      const created = await call(a.url, '/api/v1/oauth/clients', {
        method: 'POST',
        token: session,
        body: { name: 'dpop', scopes: ['salary:read'], dpop_bound: true },
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const { client_id: id, client_secret: secret } = created.body as {
        client_id: string;
        client_secret: string;
      };
      const { privateKey, publicKey } = await generateKeyPair('ES256');
      const jwk = await exportJWK(publicKey);
      const proof = (htm: string, path: string, claims: Record<string, unknown> = {}) =>
        new SignJWT({
          htm,
          htu: `https://api.example.test${path}`,
          iat: Math.floor(Date.now() / 1000),
          jti: randomBytes(12).toString('base64url'),
          ...claims,
        })
          .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk })
          .sign(privateKey);
      // The token request's proof, replayed at the other instance, is refused there too.
      const tokenProof = await proof('POST', '/oauth/token');
      const tokenRequest = (url: string) =>
        fetch(`${url}/oauth/token`, {
          method: 'POST',
          headers: {
            'content-type': 'application/x-www-form-urlencoded',
            authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`,
            dpop: tokenProof,
          },
          body: 'grant_type=client_credentials',
        });
      const issued = await tokenRequest(a.url);
      assert.equal(issued.status, 200);
      const { access_token: token, token_type: type } = (await issued.json()) as {
        access_token: string;
        token_type: string;
      };
      assert.equal(type, 'DPoP');
      const replayedAtToken = await tokenRequest(b.url);
      assert.equal(replayedAtToken.status, 400);
      assert.equal(
        ((await replayedAtToken.json()) as { error: string }).error,
        'invalid_dpop_proof',
      );

      const path = LOOKUP.split('?')[0]!;
      const ath = createHash('sha256').update(token).digest('base64url');
      const get = async (url: string, dpop: string) => {
        const res = await fetch(`${url}${LOOKUP}`, {
          headers: { authorization: `DPoP ${token}`, dpop },
        });
        return { status: res.status, text: await res.text() };
      };
      const once = await proof('GET', path, { ath });
      assert.equal((await get(a.url, once)).status, 200);
      const onB = await get(b.url, once);
      assert.equal(onB.status, 401, onB.text);
      assert.match(onB.text, /used before/);
      // A fresh proof works on the other instance (the token is bound, not the instance).
      assert.equal((await get(b.url, await proof('GET', path, { ath }))).status, 200);
    });
  },
);
