import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { generateKeyPair, SignJWT, type JSONWebKeySet } from 'jose';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { accountOnPlan } from '../helpers/accounts.js';
import { clientAndToken } from '../helpers/oauth.js';

const ISSUER = 'https://api.example.test';
const DE = '/api/v1/salary?country=DE&job=software-engineer&level=senior';

describe('refused access tokens cost no crypto the second time', () => {
  let t: TestApp;
  let token: string;
  let kid: string;
  let clientId: string;

  before(async () => {
    t = await buildTestApp({ env: { PUBLIC_BASE_URL: ISSUER } });
    const { session } = await accountOnPlan(t, 'enterprise');
    const made = await clientAndToken(t, session, { name: 'm2m', scopes: ['salary:read'] });
    clientId = made.client.client_id;
    token = made.accessToken;
    kid = (await t.app.inject({ url: '/.well-known/jwks.json' })).json<JSONWebKeySet>().keys[0]!
      .kid!;
  });
  after(() => t.close());

  const lookup = (bearer: string) =>
    t.app.inject({ method: 'GET', url: DE, headers: { authorization: `Bearer ${bearer}` } });

  /** A token with our header (ES256, at+jwt, a published kid) signed by another key. */
  async function forged(claims: Record<string, unknown> = {}): Promise<string> {
    const { privateKey } = await generateKeyPair('ES256');
    const iat = Math.floor(t.clock.now() / 1000);
    return new SignJWT({ client_id: clientId, scope: 'salary:read', ...claims })
      .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid })
      .setIssuer(ISSUER)
      .setSubject(clientId)
      .setAudience(`${ISSUER}/api/v1`)
      .setIssuedAt(iat)
      .setExpirationTime(iat + 3600)
      .setJti(randomBytes(8).toString('base64url'))
      .sign(privateKey);
  }

  async function refusedCheaply(bearer: string): Promise<boolean> {
    const before = t.oauth.cheapRefusals;
    const res = await lookup(bearer);
    assert.equal(res.statusCode, 401, res.body);
    assert.match(String(res.headers['www-authenticate']), /error="invalid_token"/);
    return t.oauth.cheapRefusals === before + 1;
  }

  it('remembers a token with a bad signature: the second sight is refused from memory', async () => {
    const bad = await forged();
    assert.equal(await refusedCheaply(bad), false, 'the first sight checks the signature');
    assert.equal(await refusedCheaply(bad), true);
    assert.equal(await refusedCheaply(bad), true);
    // A minute later it is checked again (and remembered again).
    t.clock.advance(61_000);
    assert.equal(await refusedCheaply(bad), false);
    assert.equal(await refusedCheaply(bad), true);
  });

  it('refuses without crypto what cannot be a token of ours: alg, typ, header, unknown kid', async () => {
    const [, body, sig] = token.split('.') as [string, string, string];
    const header = (h: Record<string, unknown>) =>
      Buffer.from(JSON.stringify(h)).toString('base64url');
    const cases: [string, string][] = [
      ['alg none', `${header({ alg: 'none', typ: 'at+jwt', kid })}.${body}.`],
      ['alg HS256', `${header({ alg: 'HS256', typ: 'at+jwt', kid })}.${body}.${sig}`],
      ['typ JWT', `${header({ alg: 'ES256', typ: 'JWT', kid })}.${body}.${sig}`],
      ['no kid', `${header({ alg: 'ES256', typ: 'at+jwt' })}.${body}.${sig}`],
      [
        'short signature',
        `${header({ alg: 'ES256', typ: 'at+jwt', kid })}.${body}.${sig.slice(4)}`,
      ],
      ['header not JSON', `eyJub3Q.${body}.${sig}`],
      [
        'random',
        `eyJ${randomBytes(40).toString('base64url')}.${randomBytes(90).toString('base64url')}.x`,
      ],
    ];
    for (const [what, bad] of cases) assert.equal(await refusedCheaply(bad), true, what);
    // An unknown kid starts one re-read of the keys; others within 100 ms are refused from memory.
    t.clock.advance(1_000);
    const unknownKid = `${header({ alg: 'ES256', typ: 'at+jwt', kid: 'nope' })}.${body}.${sig}`;
    assert.equal(await refusedCheaply(unknownKid), false);
    for (let i = 0; i < 5; i++) {
      const other = `${header({ alg: 'ES256', typ: 'at+jwt', kid: `nope${i}` })}.${body}.${sig}`;
      assert.equal(await refusedCheaply(other), true);
    }
  });

  it('still accepts the good token after all these refusals', async () => {
    assert.equal((await lookup(token)).statusCode, 200);
  });
});
