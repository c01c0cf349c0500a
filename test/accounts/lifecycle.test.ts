// E-mail verification and password reset over HTTP, with the links read from the mails a real
// SMTP server on loopback received from the notice outbox.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { listAudit } from '../../src/audit/index.js';
import { RESET_ANSWER_FLOOR_MS } from '../../src/accounts/lifecycle.js';
import { operatorPrincipal } from '../../src/billing/index.js';
import { giveBillingDetails, verifyEmailOf } from '../helpers/accounts.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { secretsMailed, startSmtp, type TestSmtp } from '../helpers/smtp.js';
import { mailedToken, mailsTo } from './mail.js';

const PASSWORD = 'a long enough passphrase';
const NEW_PASSWORD = 'another quite long passphrase';
const HOUR = 3_600_000;

describe('account lifecycle: e-mail verification and password reset', () => {
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

  const post = (url: string, payload: object, token?: string, remoteAddress?: string) =>
    t.app.inject({
      method: 'POST',
      url,
      payload,
      ...(remoteAddress === undefined ? {} : { remoteAddress }),
      headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
    });
  const signUp = async (email: string) => {
    const res = await post('/api/v1/accounts', { email, password: PASSWORD });
    assert.equal(res.statusCode, 201, res.body);
    return res.json<{ account: { id: string }; session: { token: string } }>();
  };

  describe('e-mail verification', () => {
    it('mails a link at sign-up; paid plans wait for it; the link works once', async () => {
      const email = 'verify-me@example.com';
      const { account, session } = await signUp(email);
      const refused = await post('/api/v1/subscription', { plan: 'developer' }, session.token);
      assert.equal(refused.statusCode, 403, refused.body);
      assert.equal(refused.json().code, 'EMAIL_NOT_VERIFIED');

      await t.notices.runOnce();
      const token = mailedToken(
        smtp.received,
        email,
        'Confirm your e-mail address',
        'verify-email',
      );
      // The link opens a page with a button, so a mail scanner that follows it confirms nothing.
      const page = await t.app.inject({ url: `/dashboard/verify-email?token=${token}` });
      assert.equal(page.statusCode, 200);
      assert.match(page.body, /Confirm my address/);
      assert.equal((await t.services.accounts.get(account.id)).emailVerifiedAt, null);

      const ok = await post('/api/v1/email-verification', { token });
      assert.equal(ok.statusCode, 200, ok.body);
      assert.equal(ok.json().email_verified_at, new Date(t.clock.now()).toISOString());
      const again = await post('/api/v1/email-verification', { token });
      assert.equal(again.statusCode, 400);
      assert.equal(again.json().invalid_params[0].name, 'token');

      await giveBillingDetails(t, account.id);
      const sub = await post('/api/v1/subscription', { plan: 'developer' }, session.token);
      assert.equal(sub.statusCode, 200, sub.body);
      const actions = (await listAudit(t.db, account.id, 20)).map((e) => e.action);
      assert.ok(actions.includes('accounts.email_verified'), actions.join());
    });

    it('refuses an altered token, another purpose’s token and an expired one', async () => {
      const email = 'verify-late@example.com';
      const { session } = await signUp(email);
      await t.notices.runOnce();
      const token = mailedToken(
        smtp.received,
        email,
        'Confirm your e-mail address',
        'verify-email',
      );
      const flipped = token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A');
      for (const bad of [flipped, 'tok_x.y', token.split('.')[0]!]) {
        const res = await post('/api/v1/email-verification', { token: bad });
        assert.equal(res.statusCode, 400, bad);
        assert.match(
          res.json().invalid_params[0].reason,
          /not valid, was used already, or has expired/,
        );
      }
      // A verification token is no reset token, though both are signed with one key.
      const crossed = await post('/api/v1/password-reset/confirm', {
        token,
        new_password: NEW_PASSWORD,
      });
      assert.equal(crossed.statusCode, 400);

      t.clock.advance(7 * 24 * HOUR + 1);
      const late = await post('/api/v1/email-verification', { token });
      assert.equal(late.statusCode, 400);

      const resend = await post('/api/v1/account/email-verification', {}, session.token);
      assert.equal(resend.statusCode, 200, resend.body);
      assert.deepEqual(resend.json(), { sent: true, email_verified_at: null });
      await t.notices.runOnce();
      const fresh = mailedToken(
        smtp.received,
        email,
        'Confirm your e-mail address',
        'verify-email',
      );
      assert.notEqual(fresh, token);
      assert.equal((await post('/api/v1/email-verification', { token: fresh })).statusCode, 200);
      const done = await post('/api/v1/account/email-verification', {}, session.token);
      assert.equal(done.json().sent, false);
    });

    it('a Free account’s missing address check never hides the plan’s refusal of keys', async () => {
      const { session } = await signUp('free-keys@example.com');
      const res = await post('/api/v1/keys', { name: 'ci' }, session.token);
      assert.equal(res.statusCode, 403);
      assert.equal(res.json().code, 'FEATURE_NOT_IN_PLAN');
    });
  });

  it('an account the operator moved to a paid plan creates keys itself only once confirmed', async () => {
    const { account, session } = await signUp('operator-moved@example.com');
    await giveBillingDetails(t, account.id);
    await t.services.subscriptions.change(
      operatorPrincipal(account.id, t.services.plans.free),
      'developer',
      null,
    );
    const refused = await post('/api/v1/keys', { name: 'second' }, session.token);
    assert.equal(refused.statusCode, 403, refused.body);
    assert.equal(refused.json().code, 'EMAIL_NOT_VERIFIED');
    await verifyEmailOf(t, account.id);
    // Developer allows one key, which the subscription issued: past the address check, the
    // plan's limit answers (409), no longer the 403.
    const after = await post('/api/v1/keys', { name: 'second' }, session.token);
    assert.equal(after.statusCode, 409, after.body);
    assert.equal(after.json().code, 'KEY_LIMIT_REACHED');
  });

  describe('password reset', () => {
    it('answers alike for an address with and without an account, and mails only the first', async () => {
      const email = 'forgetful@example.com';
      await signUp(email);
      const before = smtp.received.length;
      const answers = [];
      for (const address of [email, 'nobody-here@example.com']) {
        const started = performance.now();
        const res = await post('/api/v1/password-reset', { email: address });
        answers.push({
          status: res.statusCode,
          body: res.body,
          long: performance.now() - started >= RESET_ANSWER_FLOOR_MS - 5,
        });
      }
      assert.deepEqual(answers[0], answers[1]);
      assert.equal(answers[0]!.status, 202);
      assert.equal(answers[0]!.long, true, 'both take at least the floor');
      await t.notices.runOnce();
      const mailed = smtp.received.slice(before).filter((m) => /Reset your password/.test(m.raw));
      assert.deepEqual(
        mailed.map((m) => m.to),
        [[email]],
      );
    });

    it('sets the new password with the mailed token once, ends every session and tells the account', async () => {
      const email = 'reset-me@example.com';
      const { account, session } = await signUp(email);
      assert.equal((await post('/api/v1/password-reset', { email })).statusCode, 202);
      await t.notices.runOnce();
      const token = mailedToken(smtp.received, email, 'Reset your password', 'reset-password');

      const weak = await post('/api/v1/password-reset/confirm', { token, new_password: 'short' });
      assert.equal(weak.statusCode, 400);
      assert.equal(weak.json().code, 'WEAK_PASSWORD');

      const ok = await post('/api/v1/password-reset/confirm', {
        token,
        new_password: NEW_PASSWORD,
      });
      assert.equal(ok.statusCode, 200, ok.body);
      assert.deepEqual(ok.json(), { sessions_revoked: 1 });
      const reused = await post('/api/v1/password-reset/confirm', {
        token,
        new_password: 'yet another long passphrase',
      });
      assert.equal(reused.statusCode, 400);
      assert.equal(reused.json().invalid_params[0].name, 'token');

      const old = await t.app.inject({
        url: '/api/v1/account',
        headers: { authorization: `Bearer ${session.token}` },
      });
      assert.equal(old.statusCode, 401, 'the session of before the reset ended');
      assert.equal((await post('/api/v1/sessions', { email, password: PASSWORD })).statusCode, 401);
      const login = await post('/api/v1/sessions', { email, password: NEW_PASSWORD });
      assert.equal(login.statusCode, 201);
      const me = await t.app.inject({
        url: '/api/v1/account',
        headers: { authorization: `Bearer ${login.json().token}` },
      });
      assert.notEqual(me.json().email_verified_at, null, 'the mail reached the address');

      await t.notices.runOnce();
      assert.equal(mailsTo(smtp.received, email, 'Your password was changed').length, 1);
      const actions = (await listAudit(t.db, account.id, 20)).map((e) => e.action);
      for (const action of ['accounts.password_reset_requested', 'accounts.password_reset'])
        assert.ok(actions.includes(action), action);
      assert.deepEqual(secretsMailed(smtp.received, [NEW_PASSWORD, PASSWORD]), []);
    });

    it('a link works for one hour only; a newer link leaves the older one usable until used', async () => {
      const email = 'slow-reader@example.com';
      await signUp(email);
      await post('/api/v1/password-reset', { email }, undefined, '198.51.100.7');
      await t.notices.runOnce();
      const token = mailedToken(smtp.received, email, 'Reset your password', 'reset-password');
      t.clock.advance(HOUR);
      const late = await post('/api/v1/password-reset/confirm', {
        token,
        new_password: NEW_PASSWORD,
      });
      assert.equal(late.statusCode, 400);
    });

    it('limits requests per e-mail address (3 an hour) and per client address (10 an hour)', async () => {
      const email = 'hammered@example.com';
      const codes = [];
      for (let i = 0; i < 4; i++)
        codes.push(
          (await post('/api/v1/password-reset', { email }, undefined, `203.0.113.${i + 1}`))
            .statusCode,
        );
      assert.deepEqual(codes, [202, 202, 202, 429]);
      const fromOne = [];
      for (let i = 0; i < 11; i++)
        fromOne.push(
          (
            await post(
              '/api/v1/password-reset',
              { email: `n${i}@example.com` },
              undefined,
              '192.0.2.200',
            )
          ).statusCode,
        );
      assert.deepEqual(fromOne, [...Array(10).fill(202), 429]);
    });

    it('names what is wrong with a bad request (400, never 500)', async () => {
      for (const [url, payload, name] of [
        ['/api/v1/password-reset', { email: 'not an address' }, 'email'],
        ['/api/v1/password-reset', {}, 'email'],
        ['/api/v1/password-reset/confirm', { token: 'x' }, 'new_password'],
        [
          '/api/v1/password-reset/confirm',
          { token: 'x'.repeat(300), new_password: NEW_PASSWORD },
          'token',
        ],
      ] as const) {
        const res = await post(url, payload, undefined, '192.0.2.201');
        assert.equal(res.statusCode, 400, `${url} ${JSON.stringify(payload)}: ${res.body}`);
        assert.match(res.body, new RegExp(name));
      }
    });
  });
});
