import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { accountOnPlan } from '../helpers/accounts.js';

/** The session and form cookies a browser would keep, for in-process requests. */
class Jar {
  readonly cookies = new Map<string, string>();
  take(res: LightMyRequestResponse): void {
    const header = res.headers['set-cookie'];
    for (const line of header === undefined ? [] : Array.isArray(header) ? header : [header]) {
      const [pair] = line.split(';');
      const eq = (pair ?? '').indexOf('=');
      const name = (pair ?? '').slice(0, eq);
      const value = (pair ?? '').slice(eq + 1);
      if (/Max-Age=0/.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

const csrfOf = (body: string): string => /name="_csrf" value="([^"]+)"/.exec(body)?.[1] ?? '';
const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

describe('dashboard over HTTP', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({ now: '2026-11-22T10:15:00Z' });
  });
  after(() => t.close());

  async function get(jar: Jar, url: string) {
    const res = await t.app.inject({ url, headers: { cookie: jar.header() } });
    jar.take(res);
    return res;
  }
  async function post(jar: Jar, url: string, fields: Record<string, string>, headers = {}) {
    const res = await t.app.inject({
      method: 'POST',
      url,
      headers: {
        cookie: jar.header(),
        'content-type': 'application/x-www-form-urlencoded',
        ...headers,
      },
      payload: form(fields),
    });
    jar.take(res);
    return res;
  }
  /** Signs a jar in with the e-mail and password through the sign-in form. */
  async function signIn(jar: Jar, email: string, password = 'a long enough passphrase') {
    const page = await get(jar, '/dashboard/sign-in');
    const res = await post(jar, '/dashboard/sign-in', {
      _csrf: csrfOf(page.body),
      email,
      password,
    });
    assert.equal(res.statusCode, 303, res.body);
  }

  it('sends a visitor without a session to sign in, with a strict CSP and no database query', async () => {
    const original = t.db.query.bind(t.db);
    let queries = 0;
    t.db.query = (...args: Parameters<typeof original>) => {
      queries++;
      return original(...args);
    };
    try {
      const jar = new Jar();
      const res = await get(jar, '/dashboard');
      assert.equal(res.statusCode, 303);
      assert.equal(res.headers.location, '/dashboard/sign-in');
      const forged = await t.app.inject({
        url: '/dashboard/keys',
        headers: { cookie: 'salary_session=sess_forgedforgedforgedforged' },
      });
      assert.equal(forged.statusCode, 303);
      const page = await get(jar, '/dashboard/sign-in');
      assert.equal(page.statusCode, 200);
      const csp = String(page.headers['content-security-policy']);
      assert.match(csp, /script-src 'self'/);
      assert.match(csp, /frame-ancestors 'none'/);
      assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
      assert.equal(page.headers['x-content-type-options'], 'nosniff');
      assert.equal(page.headers['x-frame-options'], 'DENY');
      const missing = await get(jar, '/dashboard/nowhere');
      assert.equal(missing.statusCode, 404);
      assert.match(String(missing.headers['content-type']), /text\/html/);
      assert.match(String(missing.headers['content-security-policy']), /script-src 'self'/);
      const big = await post(jar, '/dashboard/sign-in', { email: 'x'.repeat(20_000) });
      assert.equal(big.statusCode, 413);
      assert.equal(queries, 0);
    } finally {
      t.db.query = original;
    }
  });

  it('signs up with an HttpOnly SameSite=Lax session cookie, and signs out', async () => {
    const jar = new Jar();
    const page = await get(jar, '/dashboard/sign-up');
    const res = await post(jar, '/dashboard/sign-up', {
      _csrf: csrfOf(page.body),
      email: 'new-dash@example.com',
      password: 'a long enough passphrase',
    });
    assert.equal(res.statusCode, 303, res.body);
    const cookie = String(res.headers['set-cookie']);
    assert.match(cookie, /salary_session=sess_/);
    assert.match(cookie, /HttpOnly/);
    assert.match(cookie, /SameSite=Lax/);
    const overview = await get(jar, '/dashboard');
    assert.equal(overview.statusCode, 200);
    assert.match(overview.body, /new-dash@example\.com/);
    assert.match(overview.body, /id="plan">\s*Free/);
    assert.match(overview.body, /id="quota-used">0<\/span> of 100 used/);
    const out = await post(jar, '/dashboard/sign-out', { _csrf: csrfOf(overview.body) });
    assert.equal(out.statusCode, 303);
    assert.equal((await get(jar, '/dashboard')).statusCode, 303);
  });

  it('refuses forms without the CSRF token, with a wrong one, or from another origin', async () => {
    const { email, accountId } = await accountOnPlan(t, 'developer');
    const jar = new Jar();
    const page = await get(jar, '/dashboard/sign-in');
    const missing = await post(jar, '/dashboard/sign-in', {
      email,
      password: 'a long enough passphrase',
    });
    assert.equal(missing.statusCode, 403);
    assert.doesNotMatch(String(missing.headers['set-cookie'] ?? ''), /salary_session/);
    await signIn(jar, email);
    const overview = await get(jar, '/dashboard');
    const token = csrfOf(overview.body);
    assert.equal((await post(jar, '/dashboard/keys', { name: 'x' })).statusCode, 403);
    assert.equal(
      (await post(jar, '/dashboard/keys', { name: 'x', _csrf: csrfOf(page.body) })).statusCode,
      403,
    );
    const cross = await post(
      jar,
      '/dashboard/keys',
      { name: 'x', _csrf: token },
      { origin: 'https://evil.example' },
    );
    assert.equal(cross.statusCode, 403);
    const keys = await t.services.keys.list(accountId);
    assert.equal(keys.length, 1);
    assert.ok(keys.every((k) => k.name !== 'x'));
  });

  it('throttles failed sign-ins as the API does', async () => {
    const { email } = await accountOnPlan(t, 'free');
    const jar = new Jar();
    let last: LightMyRequestResponse | undefined;
    for (let i = 0; i < 11; i++) {
      const page = await get(jar, '/dashboard/sign-in');
      last = await post(jar, '/dashboard/sign-in', {
        _csrf: csrfOf(page.body),
        email,
        password: 'wrong password here',
      });
      if (last.statusCode === 429) break;
      assert.equal(last.statusCode, 401);
    }
    assert.equal(last?.statusCode, 429);
    assert.ok(Number(last?.headers['retry-after']) > 0);
  });

  it('shows the overview and usage numbers the API reports, and the CSV of the table shown', async () => {
    const { email, apiKey, session, accountId } = await accountOnPlan(t, 'developer');
    // Three days ago, written to the database (a past day, read from the day sums).
    for (let i = 0; i < 4; i++)
      t.recorder.record(
        accountId,
        null,
        'GET /api/v1/jobs',
        200,
        Date.parse('2026-11-19T08:30:00Z'),
      );
    await t.recorder.flush();
    for (let i = 0; i < 7; i++) {
      const ok = await t.app.inject({
        url: '/api/v1/salary?country=FR&job=chef',
        headers: { authorization: `Bearer ${apiKey}` },
      });
      assert.equal(ok.statusCode, 200);
    }
    for (let i = 0; i < 3; i++)
      await t.app.inject({
        url: '/api/v1/salary?country=ZZ&job=chef',
        headers: { authorization: `Bearer ${apiKey}` },
      });
    const jar = new Jar();
    await signIn(jar, email);
    const overview = await get(jar, '/dashboard');
    const usage = await get(jar, '/dashboard/usage?breakdown=status&granularity=day');
    assert.equal(usage.statusCode, 200);
    assert.match(usage.body, /14 requests from/);
    const csv = await get(jar, '/dashboard/usage?breakdown=status&granularity=day&download=csv');
    assert.equal(csv.headers['content-type'], 'text/csv; charset=utf-8');
    const lines = csv.body.trim().split('\r\n');
    assert.equal(lines[0], 'start_utc,200,400,total');
    assert.equal(lines.length, 1 + 7);
    assert.ok(lines.includes('2026-11-22T00:00:00.000Z,7,3,10'));
    assert.ok(lines.includes('2026-11-19T00:00:00.000Z,4,0,4'));
    const byKey = await get(jar, '/dashboard/usage?breakdown=key&download=csv');
    assert.match(byKey.body, /^start_utc,Default key \(sk_live_[^)]*…\),session token,total\r\n/);
    // The API's report after the pages: its own request is counted only once it is answered.
    const api = (
      await t.app.inject({ url: '/api/v1/usage', headers: { authorization: `Bearer ${session}` } })
    ).json();
    assert.equal(api.total, 14);
    const cell = (id: string) =>
      new RegExp(`id="${id}"[^>]*>([^<]*)<`).exec(overview.body)?.[1]?.trim();
    assert.equal(cell('total-24h'), '10');
    assert.equal(cell('total-7d'), String(api.total));
    assert.equal(cell('total-30d'), String(api.total));
    assert.equal(cell('quota-used'), String(api.quota.used));
    assert.equal(cell('quota-left'), api.quota.remaining.toLocaleString('en-GB'));
    assert.equal(cell('error-rate'), '30.0 %');
    // A row written late for a past day shows at the next view (14, the API report's own
    // request, and the late one), in the overview as in the API's report.
    t.recorder.record(accountId, null, 'GET /api/v1/jobs', 200, Date.parse('2026-11-19T09:30:00Z'));
    await t.recorder.flush();
    const again = await get(jar, '/dashboard');
    assert.match(again.body, /id="total-30d"[^>]*>\s*16\s*</);
    const report = (
      await t.app.inject({
        url: '/api/v1/usage?from=2026-11-19&to=2026-11-19',
        headers: { authorization: `Bearer ${session}` },
      })
    ).json<{ total: number }>();
    assert.equal(report.total, 5);

    const bad = await get(jar, '/dashboard/usage?from=2026-02-30');
    assert.equal(bad.statusCode, 400);
    assert.match(bad.body, /must be a date/);
  });

  it('names the OAuth clients beside the keys in the usage by key, and in its CSV', async () => {
    const { email, session, accountId } = await accountOnPlan(t, 'enterprise');
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/v1/oauth/clients',
      headers: { authorization: `Bearer ${session}` },
      payload: { name: 'Payroll sync', scopes: ['salary:read'] },
    });
    assert.equal(created.statusCode, 201, created.body);
    const clientId = created.json<{ client_id: string }>().client_id;
    for (let i = 0; i < 3; i++)
      t.recorder.record(accountId, clientId, 'GET /api/v1/salary', 200, t.clock.now());
    await t.recorder.flush();
    const jar = new Jar();
    await signIn(jar, email);
    const csv = await get(jar, '/dashboard/usage?breakdown=key&download=csv');
    const [header, ...rows] = csv.body.trim().split('\r\n');
    // The session's own request (creating the client) is counted under the session token.
    assert.equal(header, `start_utc,OAuth client Payroll sync (${clientId}),session token,total`);
    assert.ok(rows.includes('2026-11-22T00:00:00.000Z,3,1,4'), rows.join(' / '));
    const page = await get(jar, '/dashboard/usage?breakdown=key');
    assert.match(page.body, /<td class="name">OAuth client Payroll sync \(ocl_/);
  });

  it('never shows one account the data of another', async () => {
    const a = await accountOnPlan(t, 'developer');
    const b = await accountOnPlan(t, 'developer');
    const bKeys = await t.services.keys.list(b.accountId);
    const jar = new Jar();
    await signIn(jar, a.email);
    const page = await get(jar, '/dashboard/keys');
    assert.equal(page.statusCode, 200);
    assert.ok(!page.body.includes(bKeys[0]!.prefix));
    assert.ok(!page.body.includes(b.email));
    const revoke = await post(jar, `/dashboard/keys/${bKeys[0]!.id}/revoke`, {
      _csrf: csrfOf(page.body),
    });
    assert.equal(revoke.statusCode, 404);
    assert.equal((await t.services.keys.list(b.accountId))[0]!.status, 'active');
  });
  it('creates a test-mode key from the keys form beside the plan’s live key', async () => {
    const a = await accountOnPlan(t, 'developer');
    const jar = new Jar();
    await signIn(jar, a.email);
    const page = await get(jar, '/dashboard/keys');
    assert.match(page.body, /name="mode" value="test"/);
    assert.match(page.body, /1 of 1 live keys and 0 of 1 test keys/);
    const created = await post(jar, '/dashboard/keys', {
      _csrf: csrfOf(page.body),
      name: 'CI',
      mode: 'test',
    });
    assert.equal(created.statusCode, 201, created.body);
    assert.match(created.body, /sk_test_/);
    const modes = (await t.services.keys.list(a.accountId)).map((k) => k.mode).sort();
    assert.deepEqual(modes, ['live', 'test']);
  });

  it('changes the password from the account page: other sessions end, this one stays', async () => {
    const a = await accountOnPlan(t, 'developer');
    const mine = new Jar();
    const other = new Jar();
    await signIn(mine, a.email);
    await signIn(other, a.email);
    const page = await get(mine, '/dashboard/account');
    assert.match(page.body, /action="\/dashboard\/account\/password"/);

    const wrong = await post(mine, '/dashboard/account/password', {
      _csrf: csrfOf(page.body),
      current_password: 'not the password at all',
      new_password: 'a brand new passphrase',
    });
    assert.equal(wrong.statusCode, 400);
    assert.match(wrong.body, /current_password/);

    const done = await post(mine, '/dashboard/account/password', {
      _csrf: csrfOf(page.body),
      current_password: 'a long enough passphrase',
      new_password: 'a brand new passphrase',
    });
    assert.equal(done.statusCode, 303, done.body);
    const after = await get(mine, '/dashboard/account?done=password');
    assert.equal(after.statusCode, 200);
    assert.match(after.body, /password was changed/);
    assert.notEqual((await get(other, '/dashboard/account')).statusCode, 200);
    await signIn(new Jar(), a.email, 'a brand new passphrase');
  });
  it('shows the plan support and sets the contact addresses and opt-out, audited', async () => {
    const a = await accountOnPlan(t, 'business');
    const jar = new Jar();
    await signIn(jar, a.email);
    const page = await get(jar, '/dashboard/account');
    assert.match(page.body, /priority e-mail, answered within 1 business day/);
    const bad = await post(jar, '/dashboard/account/contacts', {
      _csrf: csrfOf(page.body),
      billing_email: 'not an address',
      technical_email: '',
    });
    assert.equal(bad.statusCode, 400);
    assert.match(bad.body, /billing_email/);
    const saved = await post(jar, '/dashboard/account/contacts', {
      _csrf: csrfOf(page.body),
      billing_email: 'billing@example.com',
      technical_email: '',
      notices_opt_out: 'on',
    });
    assert.equal(saved.statusCode, 303, saved.body);
    const contacts = await t.app.inject({
      method: 'GET',
      url: '/api/v1/account/contacts',
      headers: { authorization: `Bearer ${a.session}` },
    });
    assert.equal(contacts.json().billing_email, 'billing@example.com');
    assert.equal(contacts.json().technical_email, null);
    assert.equal(contacts.json().notices_opt_out, true);
    const after = await get(jar, '/dashboard/account?done=contacts');
    assert.match(after.body, /value="billing@example.com"/);
    assert.match(after.body, /accounts.update_contacts/);
  });
});
