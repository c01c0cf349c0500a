import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import * as oauth from 'oauth4webapi';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { accountOnPlan } from '../helpers/accounts.js';
import { createClient, discoverVia } from '../helpers/oauth.js';

const ISSUER = 'https://api.example.test';
const DE = '/api/v1/salary?country=DE&job=software-engineer&level=senior';

/**
 * `POST /oauth/token` for `client` with a DPoP proof made by hand (a new key, a new jti),
 * carrying `nonce` when given: what oauth4webapi would not send.
 */
async function tokenWithProof(
  t: TestApp,
  client: { client_id: string; client_secret: string },
  nonce?: string,
) {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const proof = await new SignJWT({
    htm: 'POST',
    htu: `${ISSUER}/oauth/token`,
    iat: Math.floor(t.clock.now() / 1000),
    jti: randomBytes(12).toString('base64url'),
    ...(nonce === undefined ? {} : { nonce }),
  })
    .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: await exportJWK(publicKey) })
    .sign(privateKey);
  return t.app.inject({
    method: 'POST',
    url: '/oauth/token',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`,
      dpop: proof,
    },
    payload: 'grant_type=client_credentials',
  });
}

/** Server-provided DPoP nonces (RFC 9449 §8, §9) with DPOP_NONCE set. */
for (const mode of ['all', 'token'] as const) {
  describe(`DPoP nonces, DPOP_NONCE=${mode}`, () => {
    let t: TestApp;
    let session: string;
    let as: oauth.AuthorizationServer;
    let opts: Record<symbol, unknown>;

    before(async () => {
      t = await buildTestApp({ env: { PUBLIC_BASE_URL: ISSUER, DPOP_NONCE: mode } });
      ({ session } = await accountOnPlan(t, 'enterprise'));
      ({ as, opts } = await discoverVia(t.app, ISSUER));
    });
    after(() => t.close());

    const newClient = () =>
      createClient(t, session, { name: 'nonce', scopes: ['salary:read'], dpop_bound: true });

    /** oauth4webapi's DPoP handle; its proofs are dated by the server's manual clock. */
    function dpopHandle(client: oauth.Client, keyPair: oauth.CryptoKeyPair) {
      return oauth.DPoP(client, keyPair, {
        [oauth.modifyAssertion]: (_header: unknown, payload: Record<string, unknown>) => {
          if (payload.htm !== undefined) payload.iat = Math.floor(t.clock.now() / 1000);
        },
      });
    }

    async function tokenRequest(
      c: { client_id: string; client_secret: string },
      dpop: oauth.DPoPHandle,
    ) {
      const client = { client_id: c.client_id };
      const response = await oauth.clientCredentialsGrantRequest(
        as,
        client,
        oauth.ClientSecretBasic(c.client_secret),
        new URLSearchParams(),
        { ...opts, DPoP: dpop },
      );
      return oauth.processClientCredentialsResponse(as, client, response);
    }

    const resource = (token: string, dpop: oauth.DPoPHandle) =>
      oauth.protectedResourceRequest(token, 'GET', new URL(`${ISSUER}${DE}`), new Headers(), null, {
        ...opts,
        DPoP: dpop,
      });

    it('the token endpoint answers use_dpop_nonce with a DPoP-Nonce; oauth4webapi retries with it and gets a bound token', async () => {
      const c = await newClient();
      const dpop = dpopHandle({ client_id: c.client_id }, await generateKeyPair('ES256'));
      const first = await tokenRequest(c, dpop).then(
        () => assert.fail('a proof without a nonce was accepted'),
        (error: unknown) => error,
      );
      assert.ok(oauth.isDPoPNonceError(first), String(first));
      const result = await tokenRequest(c, dpop);
      assert.equal(result.token_type, 'dpop');
      // The nonce the token endpoint handed out also serves the API (same origin, same nonces).
      const res = await resource(result.access_token, dpop);
      assert.equal(res.status, 200, await res.clone().text());
    });

    it(
      mode === 'all'
        ? 'a resource request whose nonce is two windows old gets 401 use_dpop_nonce, then succeeds with the new one'
        : 'resource requests need no nonce (DPOP_NONCE=token)',
      async () => {
        const c = await newClient();
        const dpop = dpopHandle({ client_id: c.client_id }, await generateKeyPair('ES256'));
        await tokenRequest(c, dpop).catch((error: unknown) => {
          if (!oauth.isDPoPNonceError(error)) throw error;
        });
        const { access_token: token } = await tokenRequest(c, dpop);
        t.clock.advance(60_000); // the previous window's nonce: still accepted
        assert.equal((await resource(token, dpop)).status, 200);
        t.clock.advance(120_000); // two windows on: refused where required
        if (mode === 'token') {
          assert.equal((await resource(token, dpop)).status, 200);
          return;
        }
        const refused = await resource(token, dpop).then(
          (r) => assert.fail(`accepted a stale nonce: ${r.status}`),
          (error: unknown) => error,
        );
        assert.ok(oauth.isDPoPNonceError(refused), String(refused));
        const challenge = (refused as oauth.WWWAuthenticateChallengeError).response;
        assert.equal(challenge.status, 401);
        assert.ok(challenge.headers.get('dpop-nonce'));
        const retried = await resource(token, dpop);
        assert.equal(retried.status, 200, await retried.clone().text());
      },
    );

    it('a proof with a made-up nonce is refused with use_dpop_nonce and a fresh DPoP-Nonce', async () => {
      const c = await newClient();
      const res = await tokenWithProof(t, c, 'made-up');
      assert.equal(res.statusCode, 400, res.body);
      assert.equal(res.json<{ error: string }>().error, 'use_dpop_nonce');
      assert.match(String(res.headers['dpop-nonce']), /^[A-Za-z0-9_-]{43}$/);
      assert.equal(res.headers['cache-control'], 'no-store');
    });
  });
}

describe('DPoP nonces off (the default)', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({ env: { PUBLIC_BASE_URL: ISSUER } });
  });
  after(() => t.close());

  it('hands out no DPoP-Nonce and requires none', async () => {
    const { session } = await accountOnPlan(t, 'enterprise');
    const c = await createClient(t, session, { name: 'plain', scopes: ['salary:read'] });
    const res = await tokenWithProof(t, c);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.headers['dpop-nonce'], undefined);
  });
});
