import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { exportJWK, generateKeyPair, SignJWT, type JWTPayload } from 'jose';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { accountOnPlan } from '../helpers/accounts.js';
import { createClient } from '../helpers/oauth.js';

/**
 * private_key_jwt (RFC 7523 §3): each claim of the client assertion is checked, and an
 * assertion wrong in one claim only is refused with 401 invalid_client, at the token endpoint
 * and at the other endpoints that take client authentication.
 */

const ISSUER = 'https://api.example.test';
const TOKEN_ENDPOINT = `${ISSUER}/oauth/token`;
const ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

type PrivateKey = Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];

interface SignedClient {
  id: string;
  privateKey: PrivateKey;
}

describe('private_key_jwt: every claim of the client assertion', () => {
  let t: TestApp;
  let client: SignedClient;
  let other: SignedClient;
  // Each request from its own address: the refusals below stay under the per-address limit
  // of failed client authentications.
  let address = 0;

  async function signedClient(session: string): Promise<SignedClient> {
    const { publicKey, privateKey } = await generateKeyPair('ES256');
    const jwk = { ...(await exportJWK(publicKey)), alg: 'ES256' };
    const created = await createClient(t, session, {
      name: 'signed',
      scopes: ['salary:read'],
      token_endpoint_auth_method: 'private_key_jwt',
      jwks: { keys: [jwk] },
    });
    return { id: created.client_id, privateKey };
  }

  before(async () => {
    t = await buildTestApp({ env: { PUBLIC_BASE_URL: ISSUER } });
    const { session } = await accountOnPlan(t, 'enterprise');
    client = await signedClient(session);
    other = await signedClient(session);
  });
  after(() => t.close());

  /**
   * An assertion of `client`, valid in every claim but those `changes` sets; a claim set to
   * undefined is left out.
   */
  function assertion(
    changes: Partial<Record<keyof JWTPayload, unknown>> = {},
    key: PrivateKey = client.privateKey,
  ): Promise<string> {
    const now = Math.floor(t.clock.now() / 1000);
    const claims: Record<string, unknown> = {
      iss: client.id,
      sub: client.id,
      aud: TOKEN_ENDPOINT,
      iat: now,
      exp: now + 60,
      jti: randomUUID(),
      ...changes,
    };
    for (const name of Object.keys(claims)) if (claims[name] === undefined) delete claims[name];
    return new SignJWT(claims).setProtectedHeader({ alg: 'ES256' }).sign(key);
  }

  function send(jwt: string, url = '/oauth/token', extra: Record<string, string> = {}) {
    address++;
    return t.app.inject({
      method: 'POST',
      url,
      remoteAddress: `198.18.${address >> 8}.${address & 255}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({
        grant_type: 'client_credentials',
        client_assertion_type: ASSERTION_TYPE,
        client_assertion: jwt,
        token: 'not-a-token',
        ...extra,
      }).toString(),
    });
  }

  async function assertRefused(jwt: Promise<string> | string, what: string, url?: string) {
    const res = await send(await jwt, url);
    assert.equal(res.statusCode, 401, `${what}: ${res.body}`);
    assert.equal(res.json<{ error: string }>().error, 'invalid_client', what);
  }

  async function assertAccepted(jwt: Promise<string> | string, what: string, url?: string) {
    const res = await send(await jwt, url);
    assert.equal(res.statusCode, 200, `${what}: ${res.body}`);
  }

  it('accepts an assertion whose aud is this server’s token endpoint or its issuer', async () => {
    await assertAccepted(assertion(), 'aud: the token endpoint');
    await assertAccepted(assertion({ aud: ISSUER }), 'aud: the issuer');
    await assertAccepted(assertion({ aud: ['https://other.example.test', ISSUER] }), 'aud: a list');
    await assertAccepted(assertion(), 'at the introspection endpoint', '/oauth/introspect');
  });

  it('refuses an assertion signed for another server’s token endpoint (aud)', async () => {
    await assertRefused(assertion({ aud: 'https://other.example.test/oauth/token' }), 'foreign');
    await assertRefused(
      assertion({ aud: 'https://other.example.test/oauth/token' }),
      'foreign, at the introspection endpoint',
      '/oauth/introspect',
    );
    await assertRefused(
      assertion({ aud: 'https://other.example.test/oauth/token' }),
      'foreign, at the revocation endpoint',
      '/oauth/revoke',
    );
    await assertRefused(assertion({ aud: `${ISSUER}/api/v1` }), 'the API, not the token endpoint');
    await assertRefused(assertion({ aud: `${ISSUER}.evil.test/oauth/token` }), 'a lookalike host');
    await assertRefused(assertion({ aud: undefined }), 'no aud');
  });

  it('refuses an assertion whose iss is not the client', async () => {
    await assertRefused(assertion({ iss: other.id }), 'another client of the account');
    await assertRefused(assertion({ iss: 'https://client.example.test' }), 'a URL');
    await assertRefused(assertion({ iss: undefined }), 'no iss');
  });

  it('refuses an assertion whose sub is not the client', async () => {
    await assertRefused(assertion({ sub: other.id }), 'another client of the account');
    await assertRefused(assertion({ sub: 'ocl_unknown' }), 'an unknown client');
    await assertRefused(assertion({ sub: undefined }), 'no sub');
  });

  it('refuses an assertion signed by a key that is not in the client’s JWKS', async () => {
    await assertRefused(assertion({}, other.privateKey), 'another client’s key');
    const { privateKey } = await generateKeyPair('ES256');
    await assertRefused(assertion({}, privateKey), 'a fresh key');
  });

  it('refuses an expired assertion, one without exp or iat, and one living over 600 s', async () => {
    const now = Math.floor(t.clock.now() / 1000);
    await assertRefused(assertion({ iat: now - 120, exp: now - 60 }), 'expired a minute ago');
    await assertRefused(assertion({ iat: now - 61, exp: now - 1 }), 'expired a second ago');
    await assertRefused(assertion({ iat: now - 60, exp: now }), 'expiring now');
    await assertRefused(assertion({ exp: undefined }), 'no exp');
    await assertRefused(assertion({ iat: undefined }), 'no iat');
    await assertRefused(assertion({ iat: now - 601, exp: now + 60 }), 'issued over 600 s ago');
    await assertRefused(assertion({ exp: now + 601 }), 'exp 601 s after iat');
    await assertAccepted(assertion({ exp: now + 600 }), 'exp 600 s after iat');
    // An assertion refused as expired stays refused however the clock moves on.
    t.clock.advance(1000);
    await assertRefused(assertion({ iat: now, exp: now + 1 }), 'expired on a moving clock');
  });

  it('refuses an assertion without jti, and one whose jti was used, at any endpoint', async () => {
    await assertRefused(assertion({ jti: undefined }), 'no jti');
    const once = await assertion({ jti: 'once-only' });
    await assertAccepted(once, 'first use');
    await assertRefused(once, 'the same assertion again');
    await assertRefused(once, 'the same assertion at introspection', '/oauth/introspect');
    await assertRefused(assertion({ jti: 'once-only' }), 'a new assertion reusing the jti');
    const atIntrospection = await assertion();
    await assertAccepted(atIntrospection, 'first use at introspection', '/oauth/introspect');
    await assertRefused(atIntrospection, 'then at the token endpoint');
  });

  it('refuses a form client_id that names another client than the assertion', async () => {
    const res = await send(await assertion(), '/oauth/token', { client_id: other.id });
    assert.equal(res.statusCode, 401, res.body);
    assert.equal(res.json<{ error: string }>().error, 'invalid_client');
    const same = await send(await assertion(), '/oauth/token', { client_id: client.id });
    assert.equal(same.statusCode, 200, same.body);
  });
});
