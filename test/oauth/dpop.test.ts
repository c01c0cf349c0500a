import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import {
  calculateJwkThumbprint,
  decodeJwt,
  exportJWK,
  generateKeyPair,
  SignJWT,
  type CryptoKey,
  type JWK,
} from 'jose';
import * as oauth from 'oauth4webapi';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { accountOnPlan } from '../helpers/accounts.js';
import { createClient, discoverVia, type CreatedClient } from '../helpers/oauth.js';

const ISSUER = 'https://api.example.test';
const DE = '/api/v1/salary?country=DE&job=software-engineer&level=senior';
const DE_PATH = '/api/v1/salary';

interface ProofKey {
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  jwk: JWK;
  jkt: string;
}

async function proofKey(alg = 'ES256'): Promise<ProofKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const jwk = await exportJWK(publicKey);
  return { privateKey, publicKey, jwk, jkt: await calculateJwkThumbprint(jwk) };
}

const ath = (token: string) => createHash('sha256').update(token).digest('base64url');

describe('DPoP sender-constrained tokens (RFC 9449)', () => {
  let t: TestApp;
  let session: string;
  let apiKey: string;
  let as: oauth.AuthorizationServer;
  let opts: Record<symbol, unknown>;
  const now = () => Math.floor(t.clock.now() / 1000);

  before(async () => {
    t = await buildTestApp({ env: { PUBLIC_BASE_URL: ISSUER } });
    ({ session, apiKey } = (await accountOnPlan(t, 'enterprise')) as {
      session: string;
      apiKey: string;
    });
    ({ as, opts } = await discoverVia(t.app, ISSUER));
  });
  after(() => t.close());

  const newClient = (body: Record<string, unknown>) =>
    createClient<CreatedClient & { dpop_bound: boolean }>(t, session, body);

  /** A proof made with jose; `claims` and `header` override the valid defaults. */
  async function proof(
    key: ProofKey,
    options: {
      htm?: string;
      htu?: string;
      token?: string;
      claims?: Record<string, unknown>;
      header?: Record<string, unknown>;
      signWith?: CryptoKey;
    } = {},
  ): Promise<string> {
    const claims: Record<string, unknown> = {
      htm: options.htm ?? 'GET',
      htu: options.htu ?? `${ISSUER}${DE_PATH}`,
      iat: now(),
      jti: randomBytes(12).toString('base64url'),
      ...(options.token === undefined ? {} : { ath: ath(options.token) }),
      ...options.claims,
    };
    for (const [name, value] of Object.entries(claims))
      if (value === undefined) delete claims[name];
    return new SignJWT(claims)
      .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: key.jwk, ...options.header })
      .sign(options.signWith ?? key.privateKey);
  }

  async function tokenWithProof(
    c: { client_id: string; client_secret: string },
    key: ProofKey,
    dpop?: string,
  ) {
    return t.app.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${c.client_id}:${c.client_secret}`).toString('base64')}`,
        ...(dpop === undefined ? {} : { dpop }),
      },
      payload: 'grant_type=client_credentials',
    });
  }

  async function boundToken(key: ProofKey): Promise<string> {
    const c = await newClient({ name: 'bound', scopes: ['salary:read'], dpop_bound: true });
    const res = await tokenWithProof(
      c,
      key,
      await proof(key, { htm: 'POST', htu: `${ISSUER}/oauth/token` }),
    );
    assert.equal(res.statusCode, 200, res.body);
    return res.json<{ access_token: string }>().access_token;
  }

  const lookup = (authorization: string, dpop?: string | string[]) =>
    t.app.inject({
      method: 'GET',
      url: DE,
      headers: { authorization, ...(dpop === undefined ? {} : { dpop }) },
    });

  it('advertises the proof algorithms in the metadata', () => {
    const algs = as.dpop_signing_alg_values_supported;
    assert.ok(Array.isArray(algs) && algs.includes('ES256') && !algs.includes('HS256'));
  });

  it('oauth4webapi obtains a DPoP-bound token and calls the API with proofs', async () => {
    const c = await newClient({ name: 'lib', scopes: ['salary:read'] });
    const keyPair = await generateKeyPair('ES256');
    const client = {
      client_id: c.client_id,
      [oauth.clockSkew]: (t.clock.now() - Date.now()) / 1000,
    };
    const dpop = oauth.DPoP(client, keyPair);
    const response = await oauth.clientCredentialsGrantRequest(
      as,
      client,
      oauth.ClientSecretBasic(c.client_secret),
      new URLSearchParams(),
      { ...opts, DPoP: dpop },
    );
    const result = await oauth.processClientCredentialsResponse(as, client, response);
    assert.equal(result.token_type, 'dpop');
    const claims = decodeJwt(result.access_token) as { cnf?: { jkt?: string } };
    assert.equal(claims.cnf?.jkt, await calculateJwkThumbprint(await exportJWK(keyPair.publicKey)));
    for (let i = 0; i < 2; i++) {
      const res = await oauth.protectedResourceRequest(
        result.access_token,
        'GET',
        new URL(`${ISSUER}${DE}`),
        new Headers(),
        null,
        { ...opts, DPoP: dpop },
      );
      assert.equal(res.status, 200, await res.clone().text());
    }
    // Introspection names the binding.
    const intro = await t.app.inject({
      method: 'POST',
      url: '/oauth/introspect',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${c.client_id}:${c.client_secret}`).toString('base64')}`,
      },
      payload: new URLSearchParams({ token: result.access_token }).toString(),
    });
    const body = intro.json<{ active: boolean; token_type: string; cnf: { jkt: string } }>();
    assert.equal(body.active, true);
    assert.equal(body.token_type, 'DPoP');
    assert.equal(body.cnf.jkt, claims.cnf?.jkt);
  });

  it('a dpop_bound client gets no token without a proof; a bad proof is invalid_dpop_proof', async () => {
    const key = await proofKey();
    const c = await newClient({ name: 'strict', scopes: ['salary:read'], dpop_bound: true });
    assert.equal(c.dpop_bound, true);
    const none = await tokenWithProof(c, key);
    assert.equal(none.statusCode, 400);
    assert.equal(none.json<{ error: string }>().error, 'invalid_request');
    assert.match(none.json<{ error_description: string }>().error_description, /dpop_bound/);
    assert.equal(none.headers['cache-control'], 'no-store');
    const cases: [string, Promise<string>][] = [
      ['htm', proof(key, { htm: 'GET', htu: `${ISSUER}/oauth/token` })],
      ['htu', proof(key, { htm: 'POST', htu: `${ISSUER}/oauth/revoke` })],
      [
        'iat',
        proof(key, { htm: 'POST', htu: `${ISSUER}/oauth/token`, claims: { iat: now() - 3600 } }),
      ],
      ['typ', proof(key, { htm: 'POST', htu: `${ISSUER}/oauth/token`, header: { typ: 'JWT' } })],
    ];
    for (const [what, made] of cases) {
      const res = await tokenWithProof(c, key, await made);
      assert.equal(res.statusCode, 400, `${what}: ${res.body}`);
      assert.equal(res.json<{ error: string }>().error, 'invalid_dpop_proof', what);
    }
    const once = await proof(key, { htm: 'POST', htu: `${ISSUER}/oauth/token` });
    assert.equal((await tokenWithProof(c, key, once)).statusCode, 200);
    const again = await tokenWithProof(c, key, once);
    assert.equal(again.statusCode, 400);
    assert.match(again.json<{ error_description: string }>().error_description, /used before/);
    // PATCH turns the requirement off: a bearer token again.
    const patched = await t.app.inject({
      method: 'PATCH',
      url: `/api/v1/oauth/clients/${c.client_id}`,
      headers: { authorization: `Bearer ${session}` },
      payload: { dpop_bound: false },
    });
    assert.equal(patched.json<{ dpop_bound: boolean }>().dpop_bound, false);
    const bearer = await tokenWithProof(c, key);
    assert.equal(bearer.statusCode, 200);
    assert.equal(bearer.json<{ token_type: string }>().token_type, 'Bearer');
  });

  it('refuses every bad proof on a resource request with 401 and the DPoP challenge', async () => {
    const key = await proofKey();
    const token = await boundToken(key);
    const other = await proofKey();
    const hs = new TextEncoder().encode('a shared secret of thirty-two bytes!');
    const priv = await exportJWK(key.privateKey);
    const cases: [string, string | string[] | undefined, RegExp][] = [
      ['no proof', undefined, /DPoP proof \(the DPoP header\) is required/],
      ['two proofs', [await proof(key, { token }), await proof(key, { token })], /.+/],
      ['not a JWT', 'not-a-jwt', /not a compact JWS/],
      ['typ', await proof(key, { token, header: { typ: 'JWT' } }), /typ "dpop\+jwt"/],
      [
        'alg HS256',
        await new SignJWT({
          htm: 'GET',
          htu: `${ISSUER}${DE_PATH}`,
          iat: now(),
          jti: 'x',
          ath: ath(token),
        })
          .setProtectedHeader({ alg: 'HS256', typ: 'dpop+jwt', jwk: key.jwk })
          .sign(hs),
        /signed with one of/,
      ],
      ['private jwk', await proof(key, { token, header: { jwk: priv } }), /public key only/],
      [
        'signature',
        await proof(key, { token, signWith: other.privateKey }),
        /not signed by the key/,
      ],
      ['htm', await proof(key, { token, htm: 'POST' }), /"htm"/],
      ['htu path', await proof(key, { token, htu: `${ISSUER}/api/v1/salary/history` }), /"htu"/],
      ['htu host', await proof(key, { token, htu: `https://evil.example${DE_PATH}` }), /"htu"/],
      ['iat old', await proof(key, { token, claims: { iat: now() - 61 } }), /"iat"/],
      ['iat future', await proof(key, { token, claims: { iat: now() + 61 } }), /"iat"/],
      ['no jti', await proof(key, { token, claims: { jti: undefined } }), /"jti"/],
      ['no ath', await proof(key), /"ath"/],
      ['wrong ath', await proof(key, { token: `${token}x` }), /"ath"/],
      ['other key', await proof(other, { token }), /another key/],
    ];
    for (const [what, dpop, detail] of cases) {
      const res = await lookup(`DPoP ${token}`, dpop);
      assert.equal(res.statusCode, 401, `${what}: ${res.body}`);
      assert.equal(res.headers['content-type'], 'application/problem+json', what);
      const challenge = String(res.headers['www-authenticate']);
      assert.match(challenge, /^DPoP /, what);
      assert.match(challenge, /error="invalid_dpop_proof"/, what);
      assert.match(challenge, /algs="ES256/, what);
      assert.match(res.json<{ detail: string }>().detail, detail, what);
    }
    // A valid proof passes; the same proof again is a replay.
    const good = await proof(key, { token });
    assert.equal((await lookup(`DPoP ${token}`, good)).statusCode, 200);
    const replay = await lookup(`DPoP ${token}`, good);
    assert.equal(replay.statusCode, 401);
    assert.match(replay.json<{ detail: string }>().detail, /used before/);
    // A proof within the window (59 s old, 59 s ahead) is fine.
    for (const iat of [now() - 59, now() + 59])
      assert.equal(
        (await lookup(`DPoP ${token}`, await proof(key, { token, claims: { iat } }))).statusCode,
        200,
      );
  });

  it('refuses a downgrade to Bearer, and the DPoP scheme with a bearer token or an API key', async () => {
    const key = await proofKey();
    const token = await boundToken(key);
    const asBearer = await lookup(`Bearer ${token}`);
    assert.equal(asBearer.statusCode, 401);
    assert.match(String(asBearer.headers['www-authenticate']), /^DPoP .*error="invalid_token"/);
    const asBearerWithProof = await lookup(`Bearer ${token}`, await proof(key, { token }));
    assert.equal(asBearerWithProof.statusCode, 401);

    const c = await newClient({ name: 'plain', scopes: ['salary:read'] });
    const plain = (await tokenWithProof(c, key)).json<{ access_token: string }>().access_token;
    const plainAsDpop = await lookup(`DPoP ${plain}`, await proof(key, { token: plain }));
    assert.equal(plainAsDpop.statusCode, 401);
    assert.match(String(plainAsDpop.headers['www-authenticate']), /error="invalid_token"/);
    const keyAsDpop = await lookup(`DPoP ${apiKey}`, await proof(key, { token: apiKey }));
    assert.equal(keyAsDpop.statusCode, 401);
    const garbage = await lookup(`DPoP ${token.slice(0, -4)}AAAA`, await proof(key, { token }));
    assert.equal(garbage.statusCode, 401);
    assert.match(String(garbage.headers['www-authenticate']), /^DPoP .*error="invalid_token"/);
  });

  it('checks proofs on the lookup over real HTTP, with the standard and a custom response schema', async () => {
    const key = await proofKey();
    const token = await boundToken(key);
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = t.app.server.address() as AddressInfo;
    const get = async (dpop: string | undefined, authorization = `DPoP ${token}`) => {
      const res = await fetch(`http://127.0.0.1:${port}${DE}`, {
        headers: { authorization, ...(dpop === undefined ? {} : { dpop }) },
      });
      return {
        status: res.status,
        challenge: res.headers.get('www-authenticate'),
        body: await res.text(),
      };
    };
    const good = await proof(key, { token });
    assert.equal((await get(good)).status, 200);
    const replay = await get(good);
    assert.equal(replay.status, 401);
    assert.match(replay.challenge ?? '', /error="invalid_dpop_proof"/);
    assert.equal((await get(undefined)).status, 401);
    assert.equal((await get(await proof(key, { token }), `Bearer ${token}`)).status, 401);

    // A custom response schema: the bound token answers in the account's own field names.
    const schema = await t.app.inject({
      method: 'PUT',
      url: '/api/v1/account/schema',
      headers: { authorization: `Bearer ${session}` },
      payload: { fields: [{ field: 'median', name: 'Median_EUR' }] },
    });
    assert.equal(schema.statusCode, 200, schema.body);
    const custom = await get(await proof(key, { token }));
    assert.equal(custom.status, 200, custom.body);
    assert.deepEqual(Object.keys((JSON.parse(custom.body) as { data: object[] }).data[0]!), [
      'Median_EUR',
    ]);
    await t.app.inject({
      method: 'DELETE',
      url: '/api/v1/account/schema',
      headers: { authorization: `Bearer ${session}` },
    });
  });
});
