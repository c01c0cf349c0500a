import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import {
  base64url,
  createLocalJWKSet,
  exportJWK,
  generateKeyPair,
  jwtVerify,
  SignJWT,
  type JSONWebKeySet,
} from 'jose';
import * as oauth from 'oauth4webapi';
import { withdrawSigningKey } from '../../src/oauth/index.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { accountOnPlan } from '../helpers/accounts.js';
import { discoverVia } from '../helpers/oauth.js';

const ISSUER = 'https://api.example.test';
const DE = '/api/v1/salary?country=DE&job=software-engineer&level=senior';

describe('OAuth 2.0 client credentials', () => {
  let t: TestApp;
  let session: string;
  let as: oauth.AuthorizationServer;
  let opts: Record<symbol, unknown>;

  before(async () => {
    t = await buildTestApp({ env: { PUBLIC_BASE_URL: ISSUER } });
    ({ session } = await accountOnPlan(t, 'enterprise'));
    ({ as, opts } = await discoverVia(t.app, ISSUER));
  });
  after(() => t.close());

  async function createClient(body: Record<string, unknown>, credential = session) {
    return t.app.inject({
      method: 'POST',
      url: '/api/v1/oauth/clients',
      headers: { authorization: `Bearer ${credential}` },
      payload: body,
    });
  }

  async function tokenFor(
    clientId: string,
    auth: oauth.ClientAuth,
    scope?: string,
  ): Promise<string> {
    // The assertion (private_key_jwt) is dated by the server's manual clock.
    const client = { client_id: clientId, [oauth.clockSkew]: (t.clock.now() - Date.now()) / 1000 };
    const response = await oauth.clientCredentialsGrantRequest(
      as,
      client,
      auth,
      new URLSearchParams(scope === undefined ? {} : { scope }),
      opts,
    );
    return (await oauth.processClientCredentialsResponse(as, client, response)).access_token;
  }

  const lookup = (token: string, url = DE) =>
    t.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });

  it('publishes RFC 8414 metadata naming its endpoints', () => {
    assert.equal(as.issuer, ISSUER);
    assert.equal(as.token_endpoint, `${ISSUER}/oauth/token`);
    assert.equal(as.jwks_uri, `${ISSUER}/.well-known/jwks.json`);
    assert.equal(as.revocation_endpoint, `${ISSUER}/oauth/revoke`);
    assert.equal(as.introspection_endpoint, `${ISSUER}/oauth/introspect`);
    assert.deepEqual(as.grant_types_supported, ['client_credentials']);
  });

  it('issues RFC 9068 tokens with client_secret_basic that jose verifies against the JWKS and the API accepts', async () => {
    const created = await createClient({ name: 'backend', scopes: ['salary:read', 'usage:read'] });
    assert.equal(created.statusCode, 201, created.body);
    const c = created.json<{ client_id: string; client_secret: string }>();
    const token = await tokenFor(c.client_id, oauth.ClientSecretBasic(c.client_secret));
    const jwks = (await t.app.inject({ url: '/.well-known/jwks.json' })).json<JSONWebKeySet>();
    const { payload, protectedHeader } = await jwtVerify(token, createLocalJWKSet(jwks), {
      issuer: ISSUER,
      audience: `${ISSUER}/api/v1`,
      typ: 'at+jwt',
      currentDate: new Date(t.clock.now()),
    });
    assert.equal(protectedHeader.alg, 'ES256');
    assert.equal(payload.client_id, c.client_id);
    assert.equal(payload.sub, c.client_id);
    assert.equal(payload.scope, 'salary:read usage:read');
    assert.equal(payload.exp! - payload.iat!, 3600);
    const res = await lookup(token);
    assert.equal(res.statusCode, 200, res.body);
    // The token's scopes bind: no keys:read.
    const keys = await lookup(token, '/api/v1/keys');
    assert.equal(keys.statusCode, 403);
    assert.equal(keys.json<{ required_scope: string }>().required_scope, 'keys:read');
    // Usage counts the request under the client.
    await t.recorder.flush();
    const usage = await lookup(token, '/api/v1/usage');
    assert.equal(usage.statusCode, 200, usage.body);
    assert.match(usage.body, new RegExp(c.client_id));
  });

  it("a token creates no key usable beyond its client's allowlist", async () => {
    const c = (
      await createClient({
        name: 'key maker',
        scopes: ['keys:write', 'salary:read'],
        allowlist: ['127.0.0.1/32'],
        token_endpoint_auth_method: 'client_secret_post',
      })
    ).json<{ client_id: string; client_secret: string }>();
    const token = await tokenFor(c.client_id, oauth.ClientSecretPost(c.client_secret));
    const createKey = (body: Record<string, unknown>) =>
      t.app.inject({
        method: 'POST',
        url: '/api/v1/keys',
        headers: { authorization: `Bearer ${token}` },
        payload: { name: 'minted', scopes: ['salary:read'], ...body },
      });
    const wider = await createKey({ allowlist: ['192.0.2.0/24'] });
    assert.equal(wider.statusCode, 403, wider.body);
    assert.equal(wider.json().code, 'KEY_EXCEEDS_CALLER');
    const inherited = await createKey({});
    assert.equal(inherited.statusCode, 201, inherited.body);
    assert.deepEqual(inherited.json().allowlist, ['127.0.0.1/32']);
  });

  it('issues tokens with client_secret_post and narrows to a requested scope', async () => {
    const c = (
      await createClient({
        name: 'poster',
        scopes: ['salary:read', 'bulk:read'],
        token_endpoint_auth_method: 'client_secret_post',
      })
    ).json<{ client_id: string; client_secret: string }>();
    const token = await tokenFor(
      c.client_id,
      oauth.ClientSecretPost(c.client_secret),
      'salary:read',
    );
    const claims = JSON.parse(base64urlDecode(token.split('.')[1]!)) as { scope: string };
    assert.equal(claims.scope, 'salary:read');
    assert.equal((await lookup(token)).statusCode, 200);
    // Registered for client_secret_post: Basic is refused.
    await assert.rejects(tokenFor(c.client_id, oauth.ClientSecretBasic(c.client_secret)));
  });

  it('issues tokens with private_key_jwt and refuses a replayed assertion', async () => {
    const { publicKey, privateKey } = await generateKeyPair('ES256');
    const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256' };
    const created = await createClient({
      name: 'signed',
      scopes: ['salary:read'],
      token_endpoint_auth_method: 'private_key_jwt',
      jwks: { keys: [jwk] },
    });
    assert.equal(created.statusCode, 201, created.body);
    const c = created.json<{ client_id: string; client_secret: string | null }>();
    assert.equal(c.client_secret, null);
    const token = await tokenFor(c.client_id, oauth.PrivateKeyJwt({ key: privateKey, kid: 'k1' }));
    assert.equal((await lookup(token)).statusCode, 200);
    const now = Math.floor(t.clock.now() / 1000);
    const assertion = await new SignJWT({})
      .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
      .setIssuer(c.client_id)
      .setSubject(c.client_id)
      .setAudience(`${ISSUER}/oauth/token`)
      .setIssuedAt(now)
      .setExpirationTime(now + 60)
      .setJti('once')
      .sign(privateKey);
    const form = new URLSearchParams({
      grant_type: 'client_credentials',
      client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
      client_assertion: assertion,
    }).toString();
    const post = () =>
      t.app.inject({
        method: 'POST',
        url: '/oauth/token',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: form,
      });
    assert.equal((await post()).statusCode, 200);
    const replay = await post();
    assert.equal(replay.statusCode, 401);
    assert.equal(replay.json<{ error: string }>().error, 'invalid_client');
  });

  describe('token endpoint errors (RFC 6749 §5.2)', () => {
    let id: string;
    let secret: string;
    before(async () => {
      const c = (await createClient({ name: 'errors', scopes: ['salary:read'] })).json<{
        client_id: string;
        client_secret: string;
      }>();
      id = c.client_id;
      secret = c.client_secret;
    });
    const basic = (i: string, s: string) => `Basic ${Buffer.from(`${i}:${s}`).toString('base64')}`;
    const cases: {
      name: string;
      form: string;
      auth?: (id: string, secret: string) => string;
      status: number;
      error: string;
    }[] = [
      {
        name: 'wrong secret',
        form: 'grant_type=client_credentials',
        auth: (i) => basic(i, 'nope'),
        status: 401,
        error: 'invalid_client',
      },
      {
        name: 'no authentication',
        form: 'grant_type=client_credentials',
        status: 401,
        error: 'invalid_client',
      },
      {
        name: 'scope beyond the client',
        form: 'grant_type=client_credentials&scope=keys:write',
        auth: basic,
        status: 400,
        error: 'invalid_scope',
      },
      {
        name: 'another grant',
        form: 'grant_type=password',
        auth: basic,
        status: 400,
        error: 'unsupported_grant_type',
      },
      {
        name: 'no grant_type',
        form: 'scope=salary:read',
        auth: basic,
        status: 400,
        error: 'invalid_request',
      },
      {
        name: 'repeated parameter',
        form: 'grant_type=client_credentials&grant_type=client_credentials',
        auth: basic,
        status: 400,
        error: 'invalid_request',
      },
    ];
    for (const c of cases) {
      it(`${c.name}: ${c.status} ${c.error}`, async () => {
        const res = await t.app.inject({
          method: 'POST',
          url: '/oauth/token',
          headers: {
            'content-type': 'application/x-www-form-urlencoded',
            ...(c.auth === undefined ? {} : { authorization: c.auth(id, secret) }),
          },
          payload: c.form,
        });
        assert.equal(res.statusCode, c.status, res.body);
        assert.equal(res.json<{ error: string }>().error, c.error);
        assert.equal(res.headers['cache-control'], 'no-store');
        if (c.status === 401) assert.ok(res.headers['www-authenticate']);
      });
    }
  });

  describe('bad access tokens: 401 invalid_token with a problem document', () => {
    let good: string;
    let clientId: string;
    let secret: string;
    before(async () => {
      const c = (await createClient({ name: 'victim', scopes: ['salary:read'] })).json<{
        client_id: string;
        client_secret: string;
      }>();
      clientId = c.client_id;
      secret = c.client_secret;
      good = await tokenFor(clientId, oauth.ClientSecretBasic(secret));
    });

    function forge(
      header: Record<string, unknown>,
      claims: Record<string, unknown>,
      signature = 'c2ln',
    ): string {
      const enc = (o: object) => base64url.encode(JSON.stringify(o));
      return `${enc(header)}.${enc(claims)}.${signature}`;
    }
    function claimsOf(token: string) {
      return JSON.parse(base64urlDecode(token.split('.')[1]!)) as Record<string, unknown>;
    }
    function headerOf(token: string) {
      return JSON.parse(base64urlDecode(token.split('.')[0]!)) as Record<string, unknown>;
    }
    /** A token signed with a key of ours that the server never published. */
    async function foreign(claims: Record<string, unknown>, header: Record<string, unknown> = {}) {
      const { privateKey } = await generateKeyPair('ES256');
      return new SignJWT(claims)
        .setProtectedHeader({ ...headerOf(good), ...header, alg: 'ES256' })
        .sign(privateKey);
    }

    const cases: { name: string; token: () => Promise<string> | string }[] = [
      { name: 'malformed', token: () => 'eyJhbGciOi.not-a.jwt' },
      {
        name: 'alg none',
        token: () => forge({ ...headerOf(good), alg: 'none' }, claimsOf(good), ''),
      },
      {
        name: 'HS256 signed with the public key',
        token: async () => {
          const jwks = (
            await t.app.inject({ url: '/.well-known/jwks.json' })
          ).json<JSONWebKeySet>();
          const secretBytes = new TextEncoder().encode(JSON.stringify(jwks.keys[0]));
          return new SignJWT(claimsOf(good))
            .setProtectedHeader({ ...headerOf(good), alg: 'HS256' })
            .sign(secretBytes);
        },
      },
      { name: 'signature of another key under a known kid', token: () => foreign(claimsOf(good)) },
      { name: 'unknown kid', token: () => foreign(claimsOf(good), { kid: 'no-such-key' }) },
      {
        name: 'tampered claims',
        token: () => {
          const [h, , s] = good.split('.');
          const claims = { ...claimsOf(good), scope: 'salary:read keys:write' };
          return `${h}.${base64url.encode(JSON.stringify(claims))}.${s}`;
        },
      },
    ];
    for (const c of cases) {
      it(c.name, async () => {
        const res = await lookup(await c.token());
        assert.equal(res.statusCode, 401, res.body);
        assert.match(String(res.headers['www-authenticate']), /^Bearer .*error="invalid_token"/);
        assert.match(String(res.headers['content-type']), /application\/problem\+json/);
      });
    }

    it('the good token is accepted (the cases above fail for their defect alone)', async () => {
      assert.equal((await lookup(good)).statusCode, 200);
    });

    it('expired, not yet valid, wrong iss, aud and typ are refused (signed by the server key)', async () => {
      // Tokens signed by the server's own key with one claim wrong.
      const { kid, key } = await t.oauth.signer();
      const base = claimsOf(good);
      const sign = (claims: Record<string, unknown>, typ = 'at+jwt') =>
        new SignJWT({ ...base, jti: `j-${Math.random()}`, ...claims })
          .setProtectedHeader({ alg: 'ES256', kid, typ })
          .sign(key);
      const now = Math.floor(t.clock.now() / 1000);
      const control = await sign({});
      assert.equal((await lookup(control)).statusCode, 200);
      for (const [name, token] of [
        ['expired', await sign({ iat: now - 7200, exp: now - 1 })],
        ['not yet valid', await sign({ nbf: now + 600 })],
        ['wrong iss', await sign({ iss: 'https://evil.example' })],
        ['wrong aud', await sign({ aud: 'https://other.example/api' })],
        ['wrong typ', await sign({}, 'JWT')],
      ] as const) {
        const res = await lookup(token);
        assert.equal(res.statusCode, 401, `${name}: ${res.body}`);
        assert.match(String(res.headers['www-authenticate']), /error="invalid_token"/);
      }
    });

    it('a remembered token stops when it expires (manual clock)', async () => {
      const token = await tokenFor(clientId, oauth.ClientSecretBasic(secret));
      assert.equal((await lookup(token)).statusCode, 200);
      t.clock.advance(3_600_000);
      assert.equal((await lookup(token)).statusCode, 401);
      t.clock.advance(-3_600_000);
    });

    it('revocation (RFC 7009) stops a token at once; introspection then says inactive', async () => {
      const token = await tokenFor(clientId, oauth.ClientSecretBasic(secret));
      assert.equal((await lookup(token)).statusCode, 200);
      const client = { client_id: clientId };
      const basic = oauth.ClientSecretBasic(secret);
      const active = async () =>
        (
          await oauth.processIntrospectionResponse(
            as,
            client,
            await oauth.introspectionRequest(as, client, basic, token, opts),
          )
        ).active;
      assert.equal(await active(), true);
      await oauth.processRevocationResponse(
        await oauth.revocationRequest(as, client, basic, token, opts),
      );
      assert.equal((await lookup(token)).statusCode, 401);
      assert.equal(await active(), false);
    });

    it('deleting the client stops its tokens at once', async () => {
      assert.equal((await lookup(good)).statusCode, 200);
      const del = await t.app.inject({
        method: 'DELETE',
        url: `/api/v1/oauth/clients/${clientId}`,
        headers: { authorization: `Bearer ${session}` },
      });
      assert.equal(del.statusCode, 204, del.body);
      const res = await lookup(good);
      assert.equal(res.statusCode, 401);
      assert.match(String(res.headers['www-authenticate']), /error="invalid_token"/);
    });
  });

  it('accepts tokens on the lookup over real HTTP', async () => {
    const c = (await createClient({ name: 'fast', scopes: ['salary:read'] })).json<{
      client_id: string;
      client_secret: string;
    }>();
    const token = await tokenFor(c.client_id, oauth.ClientSecretBasic(c.client_secret));
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = t.app.server.address() as AddressInfo;
    for (let i = 0; i < 2; i++) {
      const res = await fetch(`http://127.0.0.1:${port}${DE}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      assert.equal(res.status, 200);
      await res.arrayBuffer();
    }
    const bad = await fetch(`http://127.0.0.1:${port}${DE}`, {
      headers: { authorization: `Bearer ${token.slice(0, -4)}AAAA` },
    });
    assert.equal(bad.status, 401);
    assert.match(bad.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
  });

  it('rotating the signing key keeps old tokens; withdrawing it refuses them at once', async () => {
    const c = (await createClient({ name: 'rotation', scopes: ['salary:read'] })).json<{
      client_id: string;
      client_secret: string;
    }>();
    const auth = oauth.ClientSecretBasic(c.client_secret);
    const old = await tokenFor(c.client_id, auth);
    const oldKid = JSON.parse(base64urlDecode(old.split('.')[0]!)) as { kid: string };
    const newKid = await t.oauth.rotate();
    const fresh = await tokenFor(c.client_id, auth);
    assert.equal(
      (JSON.parse(base64urlDecode(fresh.split('.')[0]!)) as { kid: string }).kid,
      newKid,
    );
    const kids = () =>
      t.app
        .inject({ url: '/.well-known/jwks.json' })
        .then((r) => r.json<JSONWebKeySet>().keys.map((k) => k.kid));
    assert.deepEqual((await kids()).sort(), [oldKid.kid, newKid].sort());
    assert.equal((await lookup(old)).statusCode, 200);
    await withdrawSigningKey(t.db, oldKid.kid, new Date(t.clock.now()).toISOString());
    await t.oauth.refresh();
    assert.equal((await lookup(old)).statusCode, 401);
    assert.equal((await lookup(fresh)).statusCode, 200);
    assert.deepEqual(await kids(), [newKid]);
  });

  it('manages clients: list, get, patch, rotate (old secret 24 h), 403 without the plan', async () => {
    const c = (await createClient({ name: 'managed', scopes: ['salary:read'] })).json<{
      id: string;
      client_id: string;
      client_secret: string;
    }>();
    const auth = { authorization: `Bearer ${session}` };
    const list = await t.app.inject({ url: '/api/v1/oauth/clients', headers: auth });
    assert.equal(list.statusCode, 200);
    assert.ok(!list.body.includes(c.client_secret));
    const patched = await t.app.inject({
      method: 'PATCH',
      url: `/api/v1/oauth/clients/${c.id}`,
      headers: auth,
      payload: { name: 'renamed' },
    });
    assert.equal(patched.json<{ name: string }>().name, 'renamed');
    const rotated = await t.app.inject({
      method: 'POST',
      url: `/api/v1/oauth/clients/${c.id}/rotate-secret`,
      headers: auth,
    });
    assert.equal(rotated.statusCode, 201);
    const fresh = rotated.json<{ client_secret: string }>().client_secret;
    await tokenFor(c.client_id, oauth.ClientSecretBasic(fresh));
    await tokenFor(c.client_id, oauth.ClientSecretBasic(c.client_secret));
    t.clock.advance(24 * 3_600_000 + 1000);
    await assert.rejects(tokenFor(c.client_id, oauth.ClientSecretBasic(c.client_secret)));
    t.clock.advance(-(24 * 3_600_000 + 1000));
    const business = await accountOnPlan(t, 'business');
    const refused = await createClient({ name: 'x', scopes: ['salary:read'] }, business.session);
    assert.equal(refused.statusCode, 403);
  });
});

function base64urlDecode(text: string): string {
  return new TextDecoder().decode(base64url.decode(text));
}
