import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { accountOnPlan } from '../helpers/accounts.js';

/**
 * The access review lists every credential and destination that existed during the period, in
 * every state it can be in by then — active, rotated, revoked, expired, deleted — and nothing
 * that ended before the period or began after it; both ends of the period hold: `from`
 * inclusive, `to` exclusive.
 *
 * The timeline, in days after the account's creation (T0): the period is days 40 to 60, the
 * review is generated on day 70.
 */

const T0 = Date.parse('2026-01-01T09:00:00Z');
const DAY = 86_400_000;
const day = (n: number): number => T0 + n * DAY;
const iso = (ms: number): string => new Date(ms).toISOString();
const FROM = day(40);
const TO = day(60);

interface Listed {
  id: string;
  status: string;
  [field: string]: unknown;
}

interface Review {
  api_keys: (Listed & { rotated_from: string | null; replaced_by: string | null })[];
  oauth_clients: Listed[];
  sessions: (Listed & { created_at: string })[];
  webhook_endpoints: { id: string; url: string; enabled: boolean }[];
  export_destinations: Record<string, unknown>[];
  audit_log: { entries_in_period: number; actions: Record<string, number> };
}

describe('access review: every state within the period, and both of its ends', () => {
  let t: TestApp;
  let apiKey: string;
  let email: string;
  let review: Review;
  let csv: string;
  const keys: Record<string, string> = {};
  const clients: Record<string, string> = {};
  const sessions: Record<string, string> = {};
  const hooks: Record<string, string> = {};
  const exportsMade: Record<string, string> = {};

  const call = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object) =>
    t.app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${apiKey}` },
      ...(payload === undefined ? {} : { payload }),
    });

  async function ok(
    method: 'POST' | 'PATCH' | 'DELETE',
    url: string,
    payload?: object,
  ): Promise<Record<string, unknown>> {
    const res = await call(method, url, payload);
    assert.ok(res.statusCode < 300, `${method} ${url}: ${res.statusCode} ${res.body}`);
    return res.statusCode === 204 ? {} : res.json<Record<string, unknown>>();
  }

  async function key(name: string, at: number): Promise<string> {
    t.clock.set(at);
    keys[name] = (await ok('POST', '/api/v1/keys', { name })).id as string;
    return keys[name];
  }

  async function client(name: string, at: number): Promise<string> {
    t.clock.set(at);
    const made = await ok('POST', '/api/v1/oauth/clients', { name, scopes: ['salary:read'] });
    clients[name] = made.client_id as string;
    return clients[name];
  }

  /** A session logged in at `at`; logged out at `outAt` when given. */
  async function session(name: string, at: number, outAt?: number): Promise<void> {
    t.clock.set(at);
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/sessions',
      payload: { email, password: 'a long enough passphrase' },
    });
    assert.equal(res.statusCode, 201, res.body);
    sessions[name] = iso(at);
    if (outAt === undefined) return;
    t.clock.set(outAt);
    const out = await t.app.inject({
      method: 'DELETE',
      url: '/api/v1/sessions/current',
      headers: { authorization: `Bearer ${res.json<{ token: string }>().token}` },
    });
    assert.equal(out.statusCode, 204, out.body);
  }

  async function webhook(name: string, at: number): Promise<string> {
    t.clock.set(at);
    const made = await ok('POST', '/api/v1/webhooks', {
      url: `https://hooks.example.test/${name}`,
      events: ['data.updated'],
    });
    hooks[name] = made.id as string;
    return hooks[name];
  }

  async function exportTo(name: string, at: number): Promise<void> {
    t.clock.set(at);
    const made = await ok('POST', '/api/v1/exports', {
      name,
      schedule: '30 2 * * 0',
      timezone: 'Europe/Berlin',
      query: { kind: 'country', country: 'DE', years: 'current' },
      format: 'csv',
      destination: {
        type: 'sftp',
        host: `${name}.sftp.example.test`,
        port: 2222,
        username: `user-${name}`,
        password: 'never-in-the-review',
        host_key_sha256: `SHA256:${'A'.repeat(43)}`,
        path: `/in/${name}`,
      },
    });
    exportsMade[name] = made.id as string;
  }

  before(async () => {
    t = await buildTestApp({ now: iso(T0), env: { OUTBOUND_ALLOW_PRIVATE_TARGETS: 'true' } });
    const account = await accountOnPlan(t, 'enterprise');
    apiKey = account.apiKey!;
    email = account.email;

    // API keys.
    await key('revokedBefore', day(1));
    await key('revokedDuring', day(1));
    await key('rotatedBefore', day(1));
    await key('rotatedDuring', day(1));
    await key('revokedJustBefore', day(1));
    await key('revokedJustAfterStart', day(1));
    t.clock.set(day(10));
    await ok('DELETE', `/api/v1/keys/${keys.revokedBefore}`);
    keys.rotatedBeforeNew = (
      (await ok('POST', `/api/v1/keys/${keys.rotatedBefore}/rotate`)).key as { id: string }
    ).id;
    t.clock.set(FROM - 1000);
    await ok('DELETE', `/api/v1/keys/${keys.revokedJustBefore}`);
    await key('createdAtStart', FROM);
    t.clock.set(FROM + 1000);
    await ok('DELETE', `/api/v1/keys/${keys.revokedJustAfterStart}`);
    t.clock.set(day(45));
    await ok('DELETE', `/api/v1/keys/${keys.revokedDuring}`);
    keys.rotatedDuringNew = (
      (await ok('POST', `/api/v1/keys/${keys.rotatedDuring}/rotate`)).key as { id: string }
    ).id;
    await key('createdDuring', day(50));
    await key('createdJustBeforeEnd', TO - 1);
    await key('createdAtEnd', TO);
    await key('createdAfter', day(61));

    // OAuth clients.
    await client('deletedBefore', day(1));
    await client('deletedDuring', day(1));
    await client('rotatedDuring', day(1));
    await client('active', day(1));
    t.clock.set(day(10));
    await ok('DELETE', `/api/v1/oauth/clients/${clients.deletedBefore}`);
    t.clock.set(day(45));
    await ok('DELETE', `/api/v1/oauth/clients/${clients.deletedDuring}`);
    await ok('POST', `/api/v1/oauth/clients/${clients.rotatedDuring}/rotate-secret`);
    await client('createdAfter', day(61));

    // Sessions (30 days each); the sign-up's own expired on day 30, before the period.
    await session('revokedBefore', day(5), day(6));
    await session('expiredDuring', day(15));
    await session('revokedDuring', day(41), day(42));
    await session('active', day(50));
    await session('createdAfter', day(61));

    // Where data leaves to.
    await webhook('before', day(2));
    await webhook('disabled', day(2));
    t.clock.set(day(3));
    await ok('PATCH', `/api/v1/webhooks/${hooks.disabled}`, { enabled: false });
    await webhook('after', day(61));
    await exportTo('before', day(2));
    await exportTo('after', day(61));

    t.clock.set(day(70));
    const query = `from=${iso(FROM)}&to=${iso(TO)}`;
    const res = await call('GET', `/api/v1/compliance/access-review?${query}`);
    assert.equal(res.statusCode, 200, res.body);
    review = res.json<Review>();
    const csvRes = await call('GET', `/api/v1/compliance/access-review?${query}&format=csv`);
    assert.equal(csvRes.statusCode, 200, csvRes.body);
    csv = csvRes.body;
  });
  after(() => t.close());

  const listedKey = (name: string) => review.api_keys.find((k) => k.id === keys[name]);
  const listedClient = (name: string) => review.oauth_clients.find((c) => c.id === clients[name]);
  const listedSession = (name: string) =>
    review.sessions.find((s) => s.created_at === sessions[name]);

  it('lists a key revoked during the period as revoked, with when', () => {
    const k = listedKey('revokedDuring');
    assert.ok(k, 'the key revoked during the period is listed');
    assert.equal(k.status, 'revoked');
    assert.equal(k.revoked_at, iso(day(45)));
    assert.ok(listedKey('revokedJustAfterStart'), 'revoked a second after the period began');
    assert.match(csv, new RegExp(`^api_key,${keys.revokedDuring},revokedDuring,revoked,`, 'm'));
  });

  it('lists a key rotated during the period: the old one expired, the new one naming it', () => {
    const old = listedKey('rotatedDuring');
    assert.ok(old, 'the rotated key whose grace ended in the period is listed');
    assert.equal(old.status, 'expired');
    assert.equal(old.replaced_by, keys.rotatedDuringNew);
    assert.equal(old.expires_at, iso(day(46)));
    const replacement = listedKey('rotatedDuringNew');
    assert.equal(replacement?.status, 'active');
    assert.equal(replacement.rotated_from, keys.rotatedDuring);
  });

  it('a key rotated before the period: only its replacement, still naming the key it replaced', () => {
    assert.equal(listedKey('rotatedBefore'), undefined);
    const replacement = listedKey('rotatedBeforeNew');
    assert.equal(replacement?.status, 'active');
    assert.equal(replacement.rotated_from, keys.rotatedBefore);
  });

  it('leaves out keys revoked before the period and keys created at or after its end', () => {
    assert.equal(listedKey('revokedBefore'), undefined, 'revoked on day 10');
    assert.equal(listedKey('revokedJustBefore'), undefined, 'revoked a second before the period');
    assert.equal(listedKey('createdAtEnd'), undefined, 'created at the period’s end (exclusive)');
    assert.equal(listedKey('createdAfter'), undefined, 'created after the period');
    assert.equal(listedKey('createdAtStart')?.status, 'active', 'created as the period began');
    assert.equal(listedKey('createdDuring')?.status, 'active');
    assert.equal(listedKey('createdJustBeforeEnd')?.status, 'active', 'a millisecond before');
  });

  it('lists OAuth clients deleted or rotated during the period, not those deleted before or made after', () => {
    const deleted = listedClient('deletedDuring');
    assert.ok(deleted, 'the client deleted during the period is listed');
    assert.equal(deleted.status, 'deleted');
    assert.equal(deleted.deleted_at, iso(day(45)));
    const rotated = listedClient('rotatedDuring');
    assert.equal(rotated?.status, 'active');
    assert.equal(rotated.secret_rotated_at, iso(day(45)));
    assert.equal(rotated.secret_age_days, 25);
    const active = listedClient('active');
    assert.equal(active?.secret_rotated_at, null);
    assert.equal(active.secret_age_days, 69);
    assert.equal(listedClient('deletedBefore'), undefined, 'deleted on day 10');
    assert.equal(listedClient('createdAfter'), undefined, 'created after the period');
  });

  it('lists sessions alive during the period: expired, revoked and active; not the others', () => {
    assert.equal(listedSession('expiredDuring')?.status, 'expired');
    assert.equal(listedSession('expiredDuring')?.expires_at, iso(day(45)));
    assert.equal(listedSession('revokedDuring')?.status, 'revoked');
    assert.equal(listedSession('revokedDuring')?.revoked_at, iso(day(42)));
    assert.equal(listedSession('active')?.status, 'active');
    assert.equal(listedSession('revokedBefore'), undefined, 'logged out on day 6');
    assert.equal(listedSession('createdAfter'), undefined, 'created after the period');
    assert.equal(
      review.sessions.find((s) => s.created_at === iso(T0)),
      undefined,
      'the sign-up’s session expired on day 30',
    );
    assert.equal(review.sessions.length, 3);
  });

  it('lists webhook endpoints and export destinations of the period (enabled or not, never a secret)', () => {
    const byId = new Map(review.webhook_endpoints.map((w) => [w.id, w]));
    assert.equal(byId.get(hooks.before!)?.url, 'https://hooks.example.test/before');
    assert.equal(byId.get(hooks.before!)?.enabled, true);
    assert.equal(byId.get(hooks.disabled!)?.enabled, false);
    assert.equal(byId.has(hooks.after!), false, 'created after the period');
    assert.deepEqual(
      review.export_destinations.map((d) => d.export_id),
      [exportsMade.before],
      'the destination created after the period is not listed',
    );
    assert.deepEqual(
      {
        host: review.export_destinations[0]!.host,
        port: review.export_destinations[0]!.port,
        username: review.export_destinations[0]!.username,
        path: review.export_destinations[0]!.path,
      },
      { host: 'before.sftp.example.test', port: 2222, username: 'user-before', path: '/in/before' },
    );
    assert.ok(!JSON.stringify(review).includes('never-in-the-review'));
    assert.ok(!csv.includes('never-in-the-review'));
  });

  it('counts the audit entries of the period: one at its start, none at its end', () => {
    // keys.create at FROM, for the rotation's new key on day 45, on day 50 and a millisecond
    // before TO; not the one at TO.
    assert.equal(review.audit_log.actions['keys.create'], 4);
    assert.equal(review.audit_log.actions['keys.revoke'], 2);
    assert.equal(review.audit_log.actions['keys.rotate'], 1);
  });
});
