import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { accountOnPlan } from '../helpers/accounts.js';

/**
 * The OAuth findings of the outside attack (notes/report-attack.md), each reproduced over
 * HTTP: client takeover by a narrower credential (1), allowlist bypass through clients (2),
 * impossible client ids (3), unthrottled failed client authentication (4), unusable jwks and
 * long-lived assertions (6), and the INFO items (scheme case, token endpoint allowlist).
 */

const ISSUER = 'https://api.example.test';
const DE = '/api/v1/salary?country=DE&job=software-engineer&level=senior';
const ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

const basic = (id: string, secret: string) =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

interface Client {
  client_id: string;
  client_secret: string | null;
  allowlist: string[];
}

describe('OAuth: fixes of the attack findings', () => {
  let t: TestApp;
  let session: string;

  before(async () => {
    t = await buildTestApp({ env: { PUBLIC_BASE_URL: ISSUER } });
    ({ session } = await accountOnPlan(t, 'enterprise'));
  });
  after(() => t.close());

  const api = (
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    url: string,
    credential: string,
    payload?: Record<string, unknown>,
  ) =>
    t.app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${credential}` },
      ...(payload === undefined ? {} : { payload }),
    });

  async function newKey(body: Record<string, unknown>): Promise<string> {
    const res = await api('POST', '/api/v1/keys', session, { name: 'k', ...body });
    assert.equal(res.statusCode, 201, res.body);
    return res.json<{ key: string }>().key;
  }

  async function newClient(body: Record<string, unknown>, credential = session): Promise<Client> {
    const res = await api('POST', '/api/v1/oauth/clients', credential, { name: 'c', ...body });
    assert.equal(res.statusCode, 201, res.body);
    return res.json<Client>();
  }

  const token = (
    form: Record<string, string>,
    headers: Record<string, string> = {},
    remoteAddress = '127.0.0.1',
    url = '/oauth/token',
  ) =>
    t.app.inject({
      method: 'POST',
      url,
      remoteAddress,
      headers: { ...FORM, ...headers },
      payload: new URLSearchParams(form).toString(),
    });

  async function accessToken(c: Client, remoteAddress = '127.0.0.1'): Promise<string> {
    const res = await token(
      { grant_type: 'client_credentials' },
      { authorization: basic(c.client_id, c.client_secret!) },
      remoteAddress,
    );
    assert.equal(res.statusCode, 200, res.body);
    return res.json<{ access_token: string }>().access_token;
  }

  async function pkjKeys(): Promise<{
    jwk: JWK;
    privateKey: Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];
  }> {
    const { publicKey, privateKey } = await generateKeyPair('ES256');
    return { jwk: { ...(await exportJWK(publicKey)), alg: 'ES256' }, privateKey };
  }

  describe('finding 1: a credential cannot manage a client broader than itself', () => {
    it('refuses rotate-secret, PATCH (name, scopes, allowlist, jwks, dpop_bound) and DELETE with 403 KEY_EXCEEDS_CALLER', async () => {
      const full = await newClient({
        scopes: ['salary:read', 'keys:write', 'account:read', 'oauth:read', 'oauth:write'],
      });
      const { jwk } = await pkjKeys();
      const pkj = await newClient({
        scopes: ['salary:read', 'keys:read'],
        token_endpoint_auth_method: 'private_key_jwt',
        jwks: { keys: [jwk] },
      });
      const narrow = await newKey({ scopes: ['oauth:read', 'oauth:write'] });
      const attempts = [
        api('POST', `/api/v1/oauth/clients/${full.client_id}/rotate-secret`, narrow),
        api('PATCH', `/api/v1/oauth/clients/${full.client_id}`, narrow, { allowlist: [] }),
        api('PATCH', `/api/v1/oauth/clients/${full.client_id}`, narrow, { dpop_bound: true }),
        api('PATCH', `/api/v1/oauth/clients/${pkj.client_id}`, narrow, { name: 'mine now' }),
        api('PATCH', `/api/v1/oauth/clients/${pkj.client_id}`, narrow, {
          jwks: { keys: [(await pkjKeys()).jwk] },
        }),
        api('DELETE', `/api/v1/oauth/clients/${pkj.client_id}`, narrow),
      ];
      for (const res of await Promise.all(attempts)) {
        assert.equal(res.statusCode, 403, res.body);
        assert.equal(res.json().code, 'KEY_EXCEEDS_CALLER');
        assert.match(res.json().detail, /OAuth client with scopes it does not hold/);
      }
      // Nothing changed: the old secret still gets a token, the pkj client still exists.
      await accessToken(full);
      const still = await api('GET', `/api/v1/oauth/clients/${pkj.client_id}`, session);
      assert.equal(still.json().name, 'c');
    });

    it('lets the same credential manage a client inside its scopes', async () => {
      const narrow = await newKey({ scopes: ['oauth:read', 'oauth:write', 'salary:read'] });
      const small = await newClient({ scopes: ['salary:read'] });
      const rotated = await api(
        'POST',
        `/api/v1/oauth/clients/${small.client_id}/rotate-secret`,
        narrow,
      );
      assert.equal(rotated.statusCode, 201, rotated.body);
      const renamed = await api('PATCH', `/api/v1/oauth/clients/${small.client_id}`, narrow, {
        name: 'renamed',
      });
      assert.equal(renamed.statusCode, 200, renamed.body);
      const gone = await api('DELETE', `/api/v1/oauth/clients/${small.client_id}`, narrow);
      assert.equal(gone.statusCode, 204, gone.body);
    });

    it('refuses an allowlisted key managing a client usable from more addresses', async () => {
      const open = await newClient({ scopes: ['salary:read'] });
      const limited = await newKey({
        scopes: ['oauth:read', 'oauth:write', 'salary:read'],
        allowlist: ['127.0.0.1/32'],
      });
      const res = await api(
        'POST',
        `/api/v1/oauth/clients/${open.client_id}/rotate-secret`,
        limited,
      );
      assert.equal(res.statusCode, 403, res.body);
      assert.equal(res.json().code, 'KEY_EXCEEDS_CALLER');
      assert.deepEqual(res.json().outside_allowlist, ['every address']);
    });
  });

  describe('finding 2: an allowlisted credential cannot widen a client', () => {
    it('a key: no empty or wider allowlist; left out, the client inherits the key’s', async () => {
      const limited = await newKey({
        scopes: ['oauth:read', 'oauth:write', 'salary:read'],
        allowlist: ['127.0.0.1/32'],
      });
      const inherited = await newClient({ scopes: ['salary:read'] }, limited);
      assert.deepEqual(inherited.allowlist, ['127.0.0.1/32']);
      for (const allowlist of [[], ['0.0.0.0/0'], ['127.0.0.0/8']]) {
        const res = await api('POST', '/api/v1/oauth/clients', limited, {
          name: 'wide',
          scopes: ['salary:read'],
          allowlist,
        });
        assert.equal(res.statusCode, 403, `${JSON.stringify(allowlist)}: ${res.body}`);
        assert.equal(res.json().code, 'KEY_EXCEEDS_CALLER');
      }
      const widen = await api('PATCH', `/api/v1/oauth/clients/${inherited.client_id}`, limited, {
        allowlist: [],
      });
      assert.equal(widen.statusCode, 403, widen.body);
      const narrower = await api('PATCH', `/api/v1/oauth/clients/${inherited.client_id}`, limited, {
        allowlist: ['127.0.0.1'],
      });
      assert.equal(narrower.statusCode, 200, narrower.body);
    });

    it('a token: cannot empty its own client’s allowlist or mint an open client', async () => {
      const own = await newClient({
        scopes: ['oauth:read', 'oauth:write', 'salary:read'],
        allowlist: ['127.0.0.1/32'],
      });
      const bearer = await accessToken(own);
      const widen = await api('PATCH', `/api/v1/oauth/clients/${own.client_id}`, bearer, {
        allowlist: [],
      });
      assert.equal(widen.statusCode, 403, widen.body);
      assert.equal(widen.json().code, 'KEY_EXCEEDS_CALLER');
      const minted = await newClient({ scopes: ['salary:read'] }, bearer);
      assert.deepEqual(minted.allowlist, ['127.0.0.1/32']);
    });
  });

  describe('finding 3: impossible client ids are invalid_client, never a 500', () => {
    /** Counts the queries that read oauth_clients while `run` runs. */
    async function clientQueries(run: () => Promise<void>): Promise<number> {
      // The authority's timed re-read (every second) would be counted too: paused, and any
      // read under way finished, so only the requests' own queries count.
      const refresh = t.job('oauth.refresh');
      await refresh.stop();
      await t.oauth.refresh();
      const original = t.db.query.bind(t.db);
      let n = 0;
      t.db.query = (sql, params) => {
        if (sql.includes('FROM oauth_clients')) n++;
        return original(sql, params);
      };
      try {
        await run();
      } finally {
        t.db.query = original;
        refresh.start();
      }
      return n;
    }

    it('a NUL in Basic credentials at /oauth/token, /oauth/introspect and /oauth/revoke', async () => {
      const queries = await clientQueries(async () => {
        for (const url of ['/oauth/token', '/oauth/introspect', '/oauth/revoke']) {
          for (const id of ['a\u0000b', 'ocl_a\u0000b', '../x', 'sk_live_x']) {
            const res = await token(
              { grant_type: 'client_credentials', token: 'x' },
              { authorization: basic(id, 'x') },
              '192.0.2.31',
              url,
            );
            assert.equal(res.statusCode, 401, `${url} ${JSON.stringify(id)}: ${res.body}`);
            assert.equal(res.json().error, 'invalid_client');
          }
        }
      });
      assert.equal(queries, 0, 'no database query for ids that cannot exist');
    });

    it('well-formed ids no instance knows: a bounded re-read, not a query each', async () => {
      t.clock.advance(1000);
      const queries = await clientQueries(async () => {
        for (let i = 0; i < 20; i++) {
          const res = await token(
            { grant_type: 'client_credentials' },
            { authorization: basic(`ocl_unknown${i}AAAAAAAAA`, 'x') },
            `192.0.2.${40 + i}`,
          );
          assert.equal(res.statusCode, 401, res.body);
          assert.equal(res.json().error, 'invalid_client');
        }
      });
      // One re-read of what changed (REREAD_MS apart; the clock stands still), plus at most
      // one the change bus may start meanwhile: not one per request.
      assert.ok(queries <= 2, `${queries} queries for 20 unknown ids`);
    });

    it('a NUL in the form client_id (client_secret_post) or another parameter', async () => {
      const form = { grant_type: 'client_credentials', client_secret: 'x', token: 'x' };
      for (const url of ['/oauth/token', '/oauth/introspect', '/oauth/revoke']) {
        const res = await token({ ...form, client_id: 'ocl_a\u0000b' }, {}, '192.0.2.33', url);
        assert.equal(res.statusCode, 401, res.body);
        assert.equal(res.json().error, 'invalid_client');
        assert.equal(res.headers['cache-control'], 'no-store');
        const other = await token(
          { ...form, client_id: 'ocl_x', scope: 'a\u0000' },
          {},
          '192.0.2.33',
          url,
        );
        assert.equal(other.statusCode, 400, other.body);
        assert.equal(other.json().error, 'invalid_request');
      }
    });

    it('a NUL or an unknown id in an assertion sub', async () => {
      const payload = (sub: string) =>
        `e30.${Buffer.from(JSON.stringify({ sub })).toString('base64url')}.x`;
      const queries = await clientQueries(async () => {
        for (const sub of ['a\u0000b', 'ocl_\u0000', 'x/../ocl_y', 42 as unknown as string]) {
          const res = await token(
            {
              grant_type: 'client_credentials',
              client_assertion_type: ASSERTION_TYPE,
              client_assertion: payload(sub),
            },
            {},
            '192.0.2.32',
          );
          assert.equal(res.statusCode, 401, res.body);
          assert.equal(res.json().error, 'invalid_client');
        }
      });
      assert.equal(queries, 0);
    });
  });

  describe('finding 4: failed client authentication is throttled per address', () => {
    it('429 slow_down with Retry-After after the limit, for that address only, until the window passes', async () => {
      const good = await newClient({ scopes: ['salary:read'] });
      const attacker = '198.51.100.7';
      const fail = (url: string) =>
        token(
          { grant_type: 'client_credentials', token: 'x' },
          { authorization: basic(good.client_id, 'wrong') },
          attacker,
          url,
        );
      const urls = ['/oauth/token', '/oauth/introspect', '/oauth/revoke'];
      for (let i = 0; i < 20; i++) {
        const res = await fail(urls[i % 3]!);
        assert.equal(res.statusCode, 401, `attempt ${i + 1}: ${res.body}`);
      }
      for (const url of urls) {
        const res = await fail(url);
        assert.equal(res.statusCode, 429, `${url}: ${res.body}`);
        assert.equal(res.json().error, 'slow_down');
        assert.ok(Number(res.headers['retry-after']) >= 1);
        assert.equal(res.headers['cache-control'], 'no-store');
      }
      // Even the right secret waits from that address; another address is not affected.
      const right = await token(
        { grant_type: 'client_credentials' },
        { authorization: basic(good.client_id, good.client_secret!) },
        attacker,
      );
      assert.equal(right.statusCode, 429);
      await accessToken(good, '198.51.100.8');
      t.clock.advance(61_000);
      await accessToken(good, attacker);
    });
  });

  describe('finding 6: jwks and assertion lifetimes', () => {
    it('refuses unusable keys at registration with 400 naming the key', async () => {
      const rsa1024 = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({
        format: 'jwk',
      }) as JWK;
      const { jwk: p256 } = await pkjKeys();
      const rsa2048 = await exportJWK((await generateKeyPair('PS256')).publicKey);
      const ed = await exportJWK((await generateKeyPair('EdDSA', { crv: 'Ed25519' })).publicKey);
      const bad: [JWK, RegExp][] = [
        [{ kty: 'EC' }, /EC key on P-256 or P-384/],
        [{ kty: 'RSA', n: 'AQAB', e: 'AQAB' }, /at least 2048 bits/],
        [rsa1024, /at least 2048 bits/],
        [{ ...p256, alg: 'RS256' }, /does not fit/],
        [{ ...p256, x: 'AAAA' }, /not a usable public key/],
        [{ kty: 'EC', crv: 'secp256k1', x: 'AA', y: 'AA' }, /EC key on P-256/],
        // Assertions are verified with EdDSA: a key marked Ed25519 would never match one.
        [{ ...ed, alg: 'Ed25519' }, /does not fit/],
        // e=1 makes the signature the padded hash: anyone could sign for the client.
        [{ ...rsa2048, e: 'AQ' }, /public exponent/],
        [{ ...rsa2048, e: 'Aw' }, /public exponent/],
      ];
      for (const [key, reason] of bad) {
        const res = await api('POST', '/api/v1/oauth/clients', session, {
          name: 'bad keys',
          scopes: ['salary:read'],
          token_endpoint_auth_method: 'private_key_jwt',
          jwks: { keys: [p256, key] },
        });
        assert.equal(res.statusCode, 400, `${JSON.stringify(key)}: ${res.body}`);
        const params = res.json<{ invalid_params: { name: string; reason: string }[] }>()
          .invalid_params;
        assert.equal(params.length, 1, res.body);
        assert.equal(params[0]!.name, 'jwks.keys[1]');
        assert.match(params[0]!.reason, reason);
      }
      await newClient({
        scopes: ['salary:read'],
        token_endpoint_auth_method: 'private_key_jwt',
        jwks: { keys: [p256, rsa2048, ed] },
      });
    });

    it('refuses an assertion whose exp is far ahead, and keeps jti rows at most 10 minutes', async () => {
      const { jwk, privateKey } = await pkjKeys();
      const c = await newClient({
        scopes: ['salary:read'],
        token_endpoint_auth_method: 'private_key_jwt',
        jwks: { keys: [jwk] },
      });
      const now = Math.floor(t.clock.now() / 1000);
      const assertion = (exp: number, jti: string) =>
        new SignJWT({})
          .setProtectedHeader({ alg: 'ES256' })
          .setIssuer(c.client_id)
          .setSubject(c.client_id)
          .setAudience(`${ISSUER}/oauth/token`)
          .setIssuedAt(now)
          .setExpirationTime(exp)
          .setJti(jti)
          .sign(privateKey);
      const send = async (exp: number, jti: string) =>
        token({
          grant_type: 'client_credentials',
          client_assertion_type: ASSERTION_TYPE,
          client_assertion: await assertion(exp, jti),
        });
      const far = await send(now + 100 * 365 * 86_400, 'far');
      assert.equal(far.statusCode, 401, far.body);
      assert.equal(far.json().error, 'invalid_client');
      const ok = await send(now + 600, 'edge');
      assert.equal(ok.statusCode, 200, ok.body);
      const rows = await t.db.query<{ jti: string; expires_at: Date | string }>(
        'SELECT jti, expires_at FROM oauth_assertion_jtis WHERE client_id = $1',
        [c.client_id],
      );
      assert.deepEqual(
        rows.map((r) => r.jti),
        ['edge'],
      );
      assert.ok(new Date(rows[0]!.expires_at).getTime() <= (now + 600) * 1000);
    });
  });

  describe('INFO items', () => {
    it('the token endpoint refuses a client calling from outside its allowlist (invalid_client)', async () => {
      const c = await newClient({ scopes: ['salary:read'], allowlist: ['203.0.113.5/32'] });
      const res = await token(
        { grant_type: 'client_credentials' },
        { authorization: basic(c.client_id, c.client_secret!) },
        '198.51.100.20',
      );
      assert.equal(res.statusCode, 401, res.body);
      assert.equal(res.json().error, 'invalid_client');
      assert.match(res.json().error_description, /IP allowlist/);
      const issued = await accessToken(c, '203.0.113.5');
      // Its credentials do not work from outside at the other endpoints either.
      for (const url of ['/oauth/introspect', '/oauth/revoke']) {
        const outside = await token(
          { token: issued },
          { authorization: basic(c.client_id, c.client_secret!) },
          '198.51.100.20',
          url,
        );
        assert.equal(outside.statusCode, 401, `${url}: ${outside.body}`);
        assert.equal(outside.json().error, 'invalid_client');
      }
      const inside = await token(
        { token: issued },
        { authorization: basic(c.client_id, c.client_secret!) },
        '203.0.113.5',
        '/oauth/introspect',
      );
      assert.equal(inside.json().active, true, 'the token was not revoked from outside');
    });

    it('the Authorization scheme is case-insensitive and may be followed by several spaces, on the JSON lookup and on other routes', async () => {
      const key = await newKey({ scopes: ['salary:read', 'keys:read'] });
      const bearer = await accessToken(await newClient({ scopes: ['salary:read', 'keys:read'] }));
      await t.app.listen({ host: '127.0.0.1', port: 0 });
      const { port } = t.app.server.address() as AddressInfo;
      for (const credential of [key, bearer])
        for (const scheme of ['bearer', 'BEARER', 'Bearer', 'Bearer  '])
          for (const path of [DE, '/api/v1/keys']) {
            const res = await fetch(`http://127.0.0.1:${port}${path}`, {
              headers: { authorization: `${scheme} ${credential}` },
            });
            assert.equal(res.status, 200, `${scheme} ${path}: ${await res.text()}`);
          }
    });
  });

  describe('finding: scopes cut from a client, and a second client_id beside Basic', () => {
    it('a token issued before its client’s scopes were cut loses them at once, on every path', async () => {
      const c = await newClient({ scopes: ['salary:read', 'keys:write'] });
      const issued = await accessToken(c);
      const before = await api('POST', '/api/v1/keys', issued, { name: 'before the cut' });
      assert.equal(before.statusCode, 201, before.body);
      const cut = await api('PATCH', `/api/v1/oauth/clients/${c.client_id}`, session, {
        scopes: ['salary:read'],
      });
      assert.equal(cut.statusCode, 200, cut.body);
      const after = await api('POST', '/api/v1/keys', issued, { name: 'after the cut' });
      assert.equal(after.statusCode, 403, after.body);
      assert.equal(after.json().code, 'SCOPE_MISSING');
      // The scope it still holds works, on the JSON lookup too.
      assert.equal((await api('GET', DE, issued)).statusCode, 200);
      const introspected = await token(
        { token: issued },
        { authorization: basic(c.client_id, c.client_secret!) },
        '127.0.0.1',
        '/oauth/introspect',
      );
      assert.equal(introspected.json().scope, 'salary:read');
    });

    it('refuses a form client_id other than the Basic credentials’ (invalid_client)', async () => {
      const c = await newClient({ scopes: ['salary:read'] });
      const other = await newClient({ scopes: ['salary:read'] });
      const res = await token(
        { grant_type: 'client_credentials', client_id: other.client_id },
        { authorization: basic(c.client_id, c.client_secret!) },
      );
      assert.equal(res.statusCode, 401, res.body);
      assert.equal(res.json().error, 'invalid_client');
      const same = await token(
        { grant_type: 'client_credentials', client_id: c.client_id },
        { authorization: basic(c.client_id, c.client_secret!) },
      );
      assert.equal(same.statusCode, 200, same.body);
    });
  });
});
