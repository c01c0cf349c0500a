import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { listNotices } from '../../src/notices/index.js';
import { accountOnPlan } from '../helpers/accounts.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { answer, startReceiver } from '../helpers/receiver.js';
import { headerOf, secretsMailed, startSmtp, type TestSmtp } from '../helpers/smtp.js';
import { recordEvent, registerWebhook } from '../helpers/webhooks.js';

const PASSWORD = 'a long enough passphrase';

const subjectOf = (raw: string): string => headerOf(raw, 'Subject');

describe('e-mail notices over SMTP', () => {
  let smtp: TestSmtp;
  let t: TestApp;

  before(async () => {
    smtp = await startSmtp();
    t = await buildTestApp({
      env: {
        SMTP_URL: smtp.url,
        MAIL_FROM: 'Salary API <notices@salary.example>',
        OUTBOUND_ALLOW_PRIVATE_TARGETS: 'true',
      },
    });
  });
  after(async () => {
    await t.close();
    await smtp.close();
  });

  it('sends the welcome, subscription and invoice mail to the account, with headers and text', async () => {
    const a = await accountOnPlan(t, 'developer');
    await t.notices.runOnce();
    const mine = smtp.received.filter((m) => m.to.includes(a.email));
    const subjects = mine.map((m) => subjectOf(m.raw)).sort();
    assert.deepEqual(subjects, [
      'Invoice 1 issued',
      'Welcome to the salary data API',
      'Your Developer subscription is active',
    ]);
    for (const m of mine) {
      assert.equal(m.from, 'notices@salary.example');
      assert.match(m.raw, /^From: Salary API <notices@salary\.example>$/m);
      assert.match(m.raw, /Content-Type: text\/plain/);
      assert.match(m.raw, /Content-Type: text\/html/);
      assert.match(m.raw, new RegExp(`Hello ${a.email.replace('.', '\\.')}`));
    }
  });

  it('retries a message the SMTP server refuses and delivers it once when it accepts', async () => {
    const before = smtp.received.length;
    smtp.refuse = true;
    const a = await accountOnPlan(t, 'free');
    assert.equal(await t.notices.runOnce(), 1);
    assert.equal(smtp.received.length, before);
    const [pending] = await listNotices(t.db, a.accountId);
    assert.equal(pending?.status, 'pending');
    assert.match(pending?.lastError ?? '', /451/);

    smtp.refuse = false;
    assert.equal(await t.notices.runOnce(), 0, 'not due before its backoff');
    t.clock.advance(40_000);
    assert.equal(await t.notices.runOnce(), 1);
    t.clock.advance(3_600_000);
    assert.equal(await t.notices.runOnce(), 0);
    const mine = smtp.received.filter((m) => m.to.includes(a.email));
    assert.equal(mine.length, 1);
    const [sent] = await listNotices(t.db, a.accountId);
    assert.equal(sent?.status, 'sent');
    assert.equal(sent?.attempts, 2);
  });

  it('tells of a sign-in from an address not seen before, once per address', async () => {
    const a = await accountOnPlan(t, 'free');
    await t.notices.runOnce();
    const count = () =>
      smtp.received.filter(
        (m) => m.to.includes(a.email) && subjectOf(m.raw) === 'New sign-in to your account',
      ).length;
    await t.services.accounts.logIn({ email: a.email, password: PASSWORD }, '127.0.0.1');
    await t.notices.runOnce();
    assert.equal(count(), 0, 'the sign-up address is known');
    await t.services.accounts.logIn({ email: a.email, password: PASSWORD }, '203.0.113.9');
    await t.services.accounts.logIn({ email: a.email, password: PASSWORD }, '203.0.113.9');
    await t.notices.runOnce();
    assert.equal(count(), 1);
    const raw = smtp.received.find((m) => subjectOf(m.raw) === 'New sign-in to your account')!.raw;
    assert.match(raw, /203\.0\.113\.9/);
  });

  it('mails the technical contact when a webhook endpoint is disabled, and no mail holds a secret', async () => {
    const a = await accountOnPlan(t, 'business');
    const gone = await startReceiver(answer(410));
    try {
      const hook = await registerWebhook(t, a.apiKey!, `${gone.url}/hook`);
      await recordEvent(t);
      await t.worker.runOnce();
      await t.notices.runOnce();
      const disabled = smtp.received.filter(
        (m) => m.to.includes(a.email) && subjectOf(m.raw) === 'Webhook endpoint disabled',
      );
      assert.equal(disabled.length, 1);
      assert.match(disabled[0]!.raw, new RegExp(hook.id));

      const secrets = [
        a.apiKey!,
        a.session,
        PASSWORD,
        hook.secret,
        hook.secret.replace(/^whsec_/, ''),
      ];
      assert.deepEqual(secretsMailed(smtp.received, secrets), [], 'a secret was mailed');
    } finally {
      await gone.close();
    }
  });
});
