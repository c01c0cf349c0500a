import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { accountOnPlan } from '../helpers/accounts.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { csrfOf, DashboardClient } from '../dashboard/client.js';

/** One POST of each dashboard form family: the signed-in pages' forms. */
const SIGNED_IN_FORMS = [
  '/dashboard/keys',
  '/dashboard/keys/key_x/rotate',
  '/dashboard/billing/details',
  '/dashboard/billing/plan',
  '/dashboard/billing/mandate',
  '/dashboard/webhooks',
  '/dashboard/webhooks/wh_x/test',
  '/dashboard/exports',
  '/dashboard/exports/exp_x/run',
  '/dashboard/oauth-clients',
  '/dashboard/custom-endpoints',
  '/dashboard/compliance/access-review',
  '/dashboard/account/password',
  '/dashboard/account/contacts',
  '/dashboard/account/two-factor',
  '/dashboard/account/delete',
  '/dashboard/sign-out',
];

/** The forms before a session: sign-in, its code step, sign-up and the mailed links' forms. */
const SIGNED_OUT_FORMS = [
  '/dashboard/sign-in',
  '/dashboard/sign-in/code',
  '/dashboard/sign-up',
  '/dashboard/forgot-password',
  '/dashboard/reset-password',
  '/dashboard/verify-email',
];

describe('forged dashboard forms', () => {
  let t: TestApp;
  before(async () => {
    // Behind a trusted proxy, so a request can say it came over https (X-Forwarded-Proto).
    t = await buildTestApp({ now: '2026-11-22T10:15:00Z', env: { TRUST_PROXY: '127.0.0.1' } });
  });
  after(() => t.close());

  /** A POST with the client's cookies, the given token (if any) and extra headers. */
  async function send(
    client: DashboardClient,
    url: string,
    token: string | undefined,
    headers: Record<string, string> = {},
  ) {
    const fields = { name: 'forged', email: 'x@example.com', password: 'forged forged forged' };
    return t.app.inject({
      method: 'POST',
      url,
      headers: {
        cookie: [...client.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
        'content-type': 'application/x-www-form-urlencoded',
        ...headers,
      },
      payload: new URLSearchParams(
        token === undefined ? fields : { ...fields, _csrf: token },
      ).toString(),
    });
  }

  /** Each forgery refused with the same 403 page, whatever was wrong (no oracle). */
  async function assertForgeriesRefused(
    client: DashboardClient,
    url: string,
    own: string,
    foreign: string,
  ): Promise<void> {
    const answers = {
      'no token': await send(client, url, undefined),
      'an empty token': await send(client, url, ''),
      "another session's token": await send(client, url, foreign),
      'a tampered token': await send(client, url, `${own.slice(0, -2)}xx`),
      'another origin': await send(client, url, own, { origin: 'https://evil.example' }),
      'an opaque origin': await send(client, url, own, { origin: 'null' }),
    };
    const bodies = new Set<string>();
    for (const [forgery, res] of Object.entries(answers)) {
      assert.equal(res.statusCode, 403, `${url} with ${forgery}: ${res.statusCode}`);
      assert.match(res.body, /<title>Form refused/, `${url} with ${forgery}`);
      assert.match(String(res.headers['content-type']), /text\/html/);
      bodies.add(res.body);
    }
    assert.equal(bodies.size, 1, `${url}: one answer for every forgery`);
  }

  it('refuses every signed-in form without its session’s token or from another origin', async () => {
    const victim = await accountOnPlan(t, 'enterprise');
    const attacker = await accountOnPlan(t, 'enterprise');
    const browser = new DashboardClient(t);
    await browser.signIn(victim.email);
    const other = new DashboardClient(t);
    await other.signIn(attacker.email);
    const own = csrfOf((await browser.get('/dashboard/keys')).body);
    const foreign = csrfOf((await other.get('/dashboard/keys')).body);
    assert.ok(own.length > 20 && foreign.length > 20);
    const before = await t.services.keys.list(victim.accountId);

    for (const url of SIGNED_IN_FORMS) await assertForgeriesRefused(browser, url, own, foreign);

    // The other session's own cookies cannot lend its token to the victim's session either.
    const signedOut = csrfOf((await new DashboardClient(t).get('/dashboard/sign-in')).body);
    assert.equal((await send(browser, '/dashboard/keys', signedOut)).statusCode, 403);
    // Nothing happened: the keys are as they were, and the session still works.
    assert.deepEqual(await t.services.keys.list(victim.accountId), before);
    const overview = await browser.get('/dashboard');
    assert.equal(overview.statusCode, 200);
    // The page's own token, from this site, is accepted.
    const created = await send(browser, '/dashboard/keys', own);
    assert.equal(created.statusCode, 201, created.body);
    assert.equal((await t.services.keys.list(victim.accountId)).length, before.length + 1);
  });

  it('refuses every signed-out form without the browser’s own token or from another origin', async () => {
    const { email } = await accountOnPlan(t, 'free');
    const browser = new DashboardClient(t);
    const other = new DashboardClient(t);
    const own = csrfOf((await browser.get('/dashboard/sign-in')).body);
    const foreign = csrfOf((await other.get('/dashboard/sign-in')).body);
    assert.notEqual(own, foreign);

    for (const url of SIGNED_OUT_FORMS) await assertForgeriesRefused(browser, url, own, foreign);

    // Without the secret cookie the token alone is refused too.
    const cookieless = new DashboardClient(t);
    assert.equal((await send(cookieless, '/dashboard/sign-in', own)).statusCode, 403);
    // The browser's own token passes: the sign-in itself then decides (a wrong password).
    const wrong = await send(browser, '/dashboard/sign-in', own);
    assert.equal(wrong.statusCode, 401, wrong.body);
    const ok = await browser.post(
      '/dashboard/sign-in',
      { email, password: 'a long enough passphrase' },
      (await browser.get('/dashboard/sign-in')).body,
    );
    assert.equal(ok.statusCode, 303, ok.body);
    assert.match(String(ok.headers['set-cookie']), /salary_session=sess_/);
  });

  it('sets the dashboard cookies HttpOnly, SameSite=Lax on /dashboard, Secure over https', async () => {
    const { email } = await accountOnPlan(t, 'free');
    for (const proto of ['http', 'https']) {
      const headers = { 'x-forwarded-proto': proto };
      const page = await t.app.inject({ url: '/dashboard/sign-in', headers });
      const formCookie = String(page.headers['set-cookie']);
      const secret = /^salary_form=([A-Za-z0-9_-]{20,});/.exec(formCookie)?.[1];
      assert.ok(secret !== undefined, formCookie);
      const signIn = await t.app.inject({
        method: 'POST',
        url: '/dashboard/sign-in',
        headers: {
          ...headers,
          cookie: `salary_form=${secret}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        payload: new URLSearchParams({
          _csrf: csrfOf(page.body),
          email,
          password: 'a long enough passphrase',
        }).toString(),
      });
      assert.equal(signIn.statusCode, 303, signIn.body);
      const sessionCookie = String(signIn.headers['set-cookie']);
      assert.match(sessionCookie, /^salary_session=sess_/);
      for (const cookie of [formCookie, sessionCookie]) {
        assert.match(cookie, /; Path=\/dashboard(;|$)/);
        assert.match(cookie, /; HttpOnly(;|$)/);
        assert.match(cookie, /; SameSite=Lax(;|$)/);
        assert.match(cookie, /; Max-Age=2592000(;|$)/);
        if (proto === 'https') assert.match(cookie, /; Secure(;|$)/);
        else assert.doesNotMatch(cookie, /Secure/);
      }
    }
  });
});
