// Two-factor sign-in (TOTP) over HTTP: set-up on the dashboard, the API's two-step log-in,
// replay, wrong codes, the code limit, recovery codes, turning it off, and the mails.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Secret, TOTP } from 'otpauth';
import { listAudit } from '../../src/audit/index.js';
import { verifyEmailOf } from '../helpers/accounts.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { startSmtp, secretsMailed, type TestSmtp } from '../helpers/smtp.js';
import { DashboardClient } from '../dashboard/client.js';
import { mailsTo } from './mail.js';

const PASSWORD = 'a long enough passphrase';

describe('two-factor sign-in (TOTP)', () => {
  let smtp: TestSmtp;
  let t: TestApp;
  before(async () => {
    smtp = await startSmtp();
    t = await buildTestApp({ env: { SMTP_URL: smtp.url } });
  });
  after(async () => {
    await t.close();
    await smtp.close();
  });

  const post = (url: string, payload: object, remoteAddress = '203.0.113.7') =>
    t.app.inject({ method: 'POST', url, payload, remoteAddress });
  const codeAt = (secret: string, at = t.clock.now()) =>
    new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: at });

  /** An account with two-factor on, set up through the dashboard's pages. */
  async function enrolled(email: string) {
    const signUp = await post('/api/v1/accounts', { email, password: PASSWORD });
    assert.equal(signUp.statusCode, 201, signUp.body);
    await verifyEmailOf(t, signUp.json().account.id);
    const browser = new DashboardClient(t);
    await browser.signIn(email);
    const account = await browser.get('/dashboard/account');
    assert.match(account.body, /Set up two-factor sign-in/);
    const setup = await browser.get('/dashboard/account/two-factor');
    assert.equal(setup.statusCode, 200);
    assert.match(setup.body, /<svg/);
    const secret = (/id="totp-secret">([A-Z2-7 ]+)</.exec(setup.body)?.[1] ?? '').replace(/ /g, '');
    assert.equal(secret.length, 32);
    // The same secret until it is confirmed (a reload does not make the app's one stale).
    assert.match((await browser.get('/dashboard/account/two-factor')).body, /id="totp-secret"/);

    const wrong = await browser.post(
      '/dashboard/account/two-factor',
      { code: codeAt(secret), password: 'not the password' },
      setup.body,
    );
    assert.equal(wrong.statusCode, 400);
    const badCode = await browser.post(
      '/dashboard/account/two-factor',
      { code: '000000', password: PASSWORD },
      setup.body,
    );
    assert.equal(badCode.statusCode, 400);
    assert.match(badCode.body, /current 6-digit code/);

    const on = await browser.post(
      '/dashboard/account/two-factor',
      { code: codeAt(secret), password: PASSWORD },
      setup.body,
    );
    assert.equal(on.statusCode, 200, on.body);
    const recovery = [
      ...on.body.matchAll(/<li><code>([a-z2-7]{5}-[a-z2-7]{5})<\/code><\/li>/g),
    ].map((m) => m[1]!);
    assert.equal(recovery.length, 10);
    return { secret, recovery, browser, accountId: signUp.json().account.id as string };
  }

  it('sets up with the password and a current code, then log-in asks for a code', async () => {
    const email = 'two-step@example.com';
    const { secret, recovery, accountId } = await enrolled(email);

    const first = await post('/api/v1/sessions', { email, password: PASSWORD });
    assert.equal(first.statusCode, 200, first.body);
    const { challenge, totp_required } = first.json();
    assert.equal(totp_required, true);
    assert.match(challenge, /^tfa_/);
    assert.equal(first.json().token, undefined);
    // The challenge opens nothing.
    const probe = await t.app.inject({
      url: '/api/v1/account',
      headers: { authorization: `Bearer ${challenge}` },
    });
    assert.equal(probe.statusCode, 401);

    // A wrong password says only what it always said.
    const wrongPassword = await post('/api/v1/sessions', { email, password: 'wrong password!' });
    assert.equal(wrongPassword.statusCode, 401);
    assert.equal(wrongPassword.json().detail, 'The e-mail address or the password is wrong.');

    t.clock.advance(31_000);
    const code = codeAt(secret);
    const ok = await post('/api/v1/sessions/totp', { challenge, code });
    assert.equal(ok.statusCode, 201, ok.body);
    assert.match(ok.json().token, /^sess_/);

    // The challenge worked once; the code works once, even with a new challenge.
    const again = await post('/api/v1/sessions/totp', { challenge, code });
    assert.equal(again.statusCode, 401);
    const second = (await post('/api/v1/sessions', { email, password: PASSWORD })).json();
    const replay = await post('/api/v1/sessions/totp', { challenge: second.challenge, code });
    assert.equal(replay.statusCode, 401);
    assert.equal(replay.json().detail, again.json().detail);

    // Codes of the step before and after are accepted; two steps off is not.
    t.clock.advance(30_000);
    const stale = await post('/api/v1/sessions/totp', {
      challenge: second.challenge,
      code: codeAt(secret, t.clock.now() - 60_000),
    });
    assert.equal(stale.statusCode, 401);
    const drift = await post('/api/v1/sessions/totp', {
      challenge: second.challenge,
      code: codeAt(secret, t.clock.now() + 30_000),
    });
    assert.equal(drift.statusCode, 201, drift.body);

    const actions = (await listAudit(t.db, accountId, 100)).map((e) => e.action);
    assert.ok(actions.includes('totp.enabled'));
    assert.ok(actions.includes('totp.code_failed'));
    await t.notices.runOnce();
    assert.equal(mailsTo(smtp.received, email, 'Two-factor sign-in was turned on').length, 1);
    assert.deepEqual(secretsMailed(smtp.received, [secret, ...recovery]), []);
  });

  it('expires the challenge after five minutes', async () => {
    const email = 'slow@example.com';
    const { secret } = await enrolled(email);
    const { challenge } = (await post('/api/v1/sessions', { email, password: PASSWORD })).json();
    t.clock.advance(5 * 60_000 + 1_000);
    const late = await post('/api/v1/sessions/totp', { challenge, code: codeAt(secret) });
    assert.equal(late.statusCode, 401);
  });

  it('limits wrong codes per account (429 with Retry-After), a good one included', async () => {
    const email = 'guessing@example.com';
    const { secret } = await enrolled(email);
    // The set-up's one wrong code leaves the window first.
    t.clock.advance(15 * 60_000 + 31_000);
    const { challenge } = (await post('/api/v1/sessions', { email, password: PASSWORD })).json();
    for (let i = 0; i < 5; i += 1) {
      const res = await post(
        '/api/v1/sessions/totp',
        { challenge, code: String(100000 + i) },
        `198.51.100.${i + 1}`,
      );
      assert.equal(res.statusCode, 401, res.body);
    }
    const blocked = await post(
      '/api/v1/sessions/totp',
      { challenge, code: codeAt(secret) },
      '198.51.100.99',
    );
    assert.equal(blocked.statusCode, 429);
    assert.ok(Number(blocked.headers['retry-after']) > 0);
    t.clock.advance(15 * 60_000 + 1_000);
    const { challenge: fresh } = (
      await post('/api/v1/sessions', { email, password: PASSWORD })
    ).json();
    const later = await post('/api/v1/sessions/totp', { challenge: fresh, code: codeAt(secret) });
    assert.equal(later.statusCode, 201, later.body);
  });

  it('limits and audits wrong codes when turning two-factor off too', async () => {
    const email = 'guess-to-disable@example.com';
    const { secret, browser, accountId } = await enrolled(email);
    t.clock.advance(15 * 60_000 + 31_000);
    const account = await browser.get('/dashboard/account');
    for (let i = 0; i < 5; i += 1) {
      const res = await browser.post(
        '/dashboard/account/two-factor/disable',
        { password: PASSWORD, code: String(200000 + i) },
        account.body,
      );
      assert.equal(res.statusCode, 400, res.body);
    }
    const blocked = await browser.post(
      '/dashboard/account/two-factor/disable',
      { password: PASSWORD, code: codeAt(secret) },
      account.body,
    );
    assert.equal(blocked.statusCode, 429, blocked.body);
    const failed = (await listAudit(t.db, accountId, 100)).filter(
      (e) => e.action === 'totp.code_failed',
    );
    assert.ok(failed.length >= 5, `${failed.length} totp.code_failed entries`);
    assert.equal((await t.services.accounts.totpStatus(accountId)).enabled, true);
  });

  it('makes a new secret for a set-up begun before a password change or left for ten minutes', async () => {
    const email = 'fresh-secret@example.com';
    const signUp = await post('/api/v1/accounts', { email, password: PASSWORD });
    const accountId = signUp.json().account.id as string;
    await verifyEmailOf(t, accountId);
    const first = await t.services.accounts.beginTotp(accountId);
    assert.equal((await t.services.accounts.beginTotp(accountId)).secret, first.secret);
    const session = (await post('/api/v1/sessions', { email, password: PASSWORD })).json();
    const changed = await t.app.inject({
      method: 'POST',
      url: '/api/v1/account/password',
      headers: { authorization: `Bearer ${session.token}` },
      payload: { current_password: PASSWORD, new_password: 'another long passphrase' },
    });
    assert.equal(changed.statusCode, 200, changed.body);
    const second = await t.services.accounts.beginTotp(accountId);
    assert.notEqual(second.secret, first.secret);
    t.clock.advance(10 * 60_000 + 1_000);
    assert.notEqual((await t.services.accounts.beginTotp(accountId)).secret, second.secret);
  });

  it('sets up two-factor and other contact addresses only once the address is confirmed', async () => {
    // Whoever signs up first with someone else's address must not be able to keep its owner out
    // after the owner resets the password, nor receive the owner's notices.
    const email = 'not-yet-mine@example.com';
    const signUp = await post('/api/v1/accounts', { email, password: PASSWORD });
    const accountId = signUp.json().account.id as string;
    const browser = new DashboardClient(t);
    await browser.signIn(email);
    const setup = await browser.get('/dashboard/account/two-factor');
    assert.equal(setup.statusCode, 403);
    assert.match(setup.body, /Confirm the account’s e-mail address first/);
    assert.equal((await t.services.accounts.totpStatus(accountId)).enabled, false);

    const session = (await post('/api/v1/sessions', { email, password: PASSWORD })).json();
    const contacts = (payload: object) =>
      t.app.inject({
        method: 'PATCH',
        url: '/api/v1/account/contacts',
        headers: { authorization: `Bearer ${session.token}` },
        payload,
      });
    const refused = await contacts({ technical_email: 'someone-else@example.net' });
    assert.equal(refused.statusCode, 403, refused.body);
    assert.equal(refused.json().code, 'EMAIL_NOT_VERIFIED');
    assert.equal((await contacts({ name: 'Erika' })).statusCode, 200);

    await verifyEmailOf(t, accountId);
    assert.equal((await browser.get('/dashboard/account/two-factor')).statusCode, 200);
    const accepted = await contacts({ technical_email: 'ops@example.net' });
    assert.equal(accepted.statusCode, 200, accepted.body);
  });

  it('takes each recovery code once, audited and mailed', async () => {
    const email = 'lost-phone@example.com';
    const { recovery, accountId } = await enrolled(email);
    const first = (await post('/api/v1/sessions', { email, password: PASSWORD })).json();
    const code = recovery[3]!.toUpperCase().replace('-', ' ');
    const ok = await post('/api/v1/sessions/totp', { challenge: first.challenge, code });
    assert.equal(ok.statusCode, 201, ok.body);
    const second = (await post('/api/v1/sessions', { email, password: PASSWORD })).json();
    const reused = await post('/api/v1/sessions/totp', {
      challenge: second.challenge,
      code: recovery[3]!,
    });
    assert.equal(reused.statusCode, 401);
    const audit = await listAudit(t.db, accountId, 100);
    const used = audit.find((e) => e.action === 'totp.recovery_code_used');
    assert.equal((used?.data as { recovery_codes_left?: number }).recovery_codes_left, 9);
    await t.notices.runOnce();
    assert.equal(mailsTo(smtp.received, email, 'A recovery code was used to sign in').length, 1);
  });

  it('turns off with the password and a current code only; sign-in then needs no code', async () => {
    const email = 'turn-off@example.com';
    const { secret, browser, accountId } = await enrolled(email);
    const account = await browser.get('/dashboard/account');
    assert.match(account.body, /10 unused recovery codes/);
    t.clock.advance(31_000);
    const noCode = await browser.post(
      '/dashboard/account/two-factor/disable',
      { password: PASSWORD, code: '123456' },
      account.body,
    );
    assert.equal(noCode.statusCode, 400);
    const noPassword = await browser.post(
      '/dashboard/account/two-factor/disable',
      { password: 'wrong password!!', code: codeAt(secret) },
      account.body,
    );
    assert.equal(noPassword.statusCode, 400);
    const off = await browser.post(
      '/dashboard/account/two-factor/disable',
      { password: PASSWORD, code: codeAt(secret) },
      account.body,
    );
    assert.equal(off.statusCode, 303, off.body);
    const plain = await post('/api/v1/sessions', { email, password: PASSWORD });
    assert.equal(plain.statusCode, 201);
    assert.ok((await listAudit(t.db, accountId, 100)).some((e) => e.action === 'totp.disabled'));
    await t.notices.runOnce();
    assert.equal(mailsTo(smtp.received, email, 'Two-factor sign-in was turned off').length, 1);
  });

  it('a password reset by mail does not turn two-factor off', async () => {
    const email = 'reset-keeps@example.com';
    const { secret } = await enrolled(email);
    const reset = await t.services.accounts.operatorPasswordReset(email, { mail: false });
    const fresh = 'a brand new passphrase';
    const res = await post('/api/v1/password-reset/confirm', {
      token: reset.token,
      new_password: fresh,
    });
    assert.ok(res.statusCode < 300, res.body);
    const first = await post('/api/v1/sessions', { email, password: fresh });
    assert.equal(first.statusCode, 200, first.body);
    t.clock.advance(31_000);
    const ok = await post('/api/v1/sessions/totp', {
      challenge: first.json().challenge,
      code: codeAt(secret),
    });
    assert.equal(ok.statusCode, 201, ok.body);
  });

  it('the dashboard asks for the code on a second step, and a wrong one keeps it there', async () => {
    const email = 'dash-two-step@example.com';
    const { secret } = await enrolled(email);
    const browser = new DashboardClient(t);
    const page = await browser.get('/dashboard/sign-in');
    const step = await browser.post('/dashboard/sign-in', { email, password: PASSWORD }, page.body);
    assert.equal(step.statusCode, 303);
    assert.equal(step.headers.location, '/dashboard/sign-in/code');
    assert.equal(browser.cookies.has('salary_session'), false);
    assert.equal((await browser.get('/dashboard')).statusCode, 303);
    const form = await browser.get('/dashboard/sign-in/code');
    assert.equal(form.statusCode, 200);
    const wrong = await browser.post('/dashboard/sign-in/code', { code: '000000' }, form.body);
    assert.equal(wrong.statusCode, 401);
    t.clock.advance(31_000);
    const ok = await browser.post('/dashboard/sign-in/code', { code: codeAt(secret) }, form.body);
    assert.equal(ok.statusCode, 303, ok.body);
    assert.equal(browser.cookies.has('salary_session'), true);
    assert.equal(browser.cookies.has('salary_2fa'), false);
  });
});
