import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { updateContacts } from '../../src/accounts/index.js';
import { listAudit } from '../../src/audit/index.js';
import { GRACE_NOTICE_LEAD_MS, queueGraceNotices } from '../../src/keys/index.js';
import { accountOnPlan } from '../helpers/accounts.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { headerOf, secretsMailed, startSmtp, type TestSmtp } from '../helpers/smtp.js';

const PASSWORD = 'a long enough passphrase';
const HOUR = 3_600_000;

const subjectOf = (raw: string): string => headerOf(raw, 'Subject');

describe('account e-mail: support on the account, password change, rotation grace, secret scan', () => {
  let smtp: TestSmtp;
  let t: TestApp;

  before(async () => {
    smtp = await startSmtp();
    t = await buildTestApp({
      env: {
        SMTP_URL: smtp.url,
        SUPPORT_EMAIL: 'support@salary.example',
        COMMUNITY_URL: 'https://community.salary.example/',
      },
    });
  });
  after(async () => {
    await t.close();
    await smtp.close();
  });

  const call = (method: 'GET' | 'POST', url: string, token: string, payload?: object) =>
    t.app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${token}` },
      ...(payload === undefined ? {} : { payload }),
    });
  const mailTo = (email: string, subject: string) =>
    smtp.received.filter((m) => m.to.includes(email) && subjectOf(m.raw) === subject);

  describe('GET /api/v1/account shows the support of the plan', () => {
    for (const [plan, channel, target] of [
      ['free', 'community', null],
      ['developer', 'e-mail', '2 business days'],
      ['business', 'priority e-mail', '1 business day'],
      ['enterprise', 'dedicated account manager', '4 hours'],
    ] as const) {
      it(`${plan}: ${channel}, ${target ?? 'no'} response target`, async () => {
        const a = await accountOnPlan(t, plan);
        if (plan === 'enterprise')
          await updateContacts(
            t.db,
            a.accountId,
            { managerName: 'Mia Manager', managerEmail: 'mia@salary.example' },
            new Date(t.clock.now()),
          );
        const res = await call('GET', '/api/v1/account', a.session);
        assert.equal(res.statusCode, 200, res.body);
        const body = res.json();
        assert.equal(body.id, a.accountId);
        assert.equal(body.support.channel, channel);
        assert.equal(body.support.response_target, target);
        assert.equal(
          body.support.community_url,
          plan === 'free' ? 'https://community.salary.example/' : undefined,
        );
        assert.deepEqual(
          body.support.account_manager,
          plan === 'enterprise' ? { name: 'Mia Manager', email: 'mia@salary.example' } : undefined,
        );
      });
    }
  });

  describe('POST /api/v1/account/password', () => {
    it('changes the password, ends the other sessions, keeps this one and mails the account', async () => {
      const a = await accountOnPlan(t, 'developer');
      const other = (await t.services.accounts.logIn(
        { email: a.email, password: PASSWORD },
        '127.0.0.1',
      )) as { token: string };
      const fresh = 'another long passphrase';
      const res = await call('POST', '/api/v1/account/password', a.session, {
        current_password: PASSWORD,
        new_password: fresh,
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().sessions_revoked, 1);

      assert.equal((await call('GET', '/api/v1/account', other.token)).statusCode, 401);
      assert.equal((await call('GET', '/api/v1/account', a.session)).statusCode, 200);
      await assert.rejects(
        t.services.accounts.logIn({ email: a.email, password: PASSWORD }, '127.0.0.1'),
        /wrong/,
      );
      await t.services.accounts.logIn({ email: a.email, password: fresh }, '127.0.0.1');

      const audit = await listAudit(t.db, a.accountId);
      assert.ok(audit.some((e) => e.action === 'accounts.change_password'));

      await t.notices.runOnce();
      const mails = mailTo(a.email, 'Your password was changed');
      assert.equal(mails.length, 1);
      assert.deepEqual(secretsMailed(smtp.received, [PASSWORD, fresh, a.session, other.token]), []);
    });

    it('an API key changes it too, and every session ends', async () => {
      const a = await accountOnPlan(t, 'developer');
      const res = await call('POST', '/api/v1/account/password', a.apiKey!, {
        current_password: PASSWORD,
        new_password: 'yet another passphrase',
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().sessions_revoked, 1);
      assert.equal((await call('GET', '/api/v1/account', a.session)).statusCode, 401);
    });

    it('refuses a wrong current password, a weak or unchanged new one, and changes nothing', async () => {
      const a = await accountOnPlan(t, 'free');
      const cases = [
        [
          { current_password: 'not the password at all', new_password: 'fine new passphrase' },
          'current_password',
        ],
        [{ current_password: PASSWORD, new_password: 'short' }, 'new_password'],
        [{ current_password: PASSWORD, new_password: PASSWORD }, 'new_password'],
        [{ current_password: PASSWORD, new_password: a.email }, 'new_password'],
      ] as const;
      for (const [payload, field] of cases) {
        const res = await call('POST', '/api/v1/account/password', a.session, payload);
        assert.equal(res.statusCode, 400, res.body);
        assert.match(res.headers['content-type'] as string, /problem\+json/);
        assert.equal(res.json().invalid_params[0].name, field);
      }
      const missing = await call('POST', '/api/v1/account/password', a.session, {
        new_password: 'fine new passphrase',
      });
      assert.equal(missing.statusCode, 400);
      assert.equal((await call('GET', '/api/v1/account', a.session)).statusCode, 200);
      await t.services.accounts.logIn({ email: a.email, password: PASSWORD }, '127.0.0.1');
      await t.notices.runOnce();
      assert.equal(mailTo(a.email, 'Your password was changed').length, 0);
    });

    it('throttles wrong current passwords like failed log-ins', async () => {
      const a = await accountOnPlan(t, 'free');
      const statuses: number[] = [];
      for (let i = 0; i < 11; i++) {
        const res = await call('POST', '/api/v1/account/password', a.session, {
          current_password: `wrong guess number ${i}`,
          new_password: 'fine new passphrase',
        });
        statuses.push(res.statusCode);
        if (res.statusCode === 429) assert.ok(Number(res.headers['retry-after']) > 0);
      }
      assert.deepEqual(statuses.slice(0, 10), Array(10).fill(400));
      assert.equal(statuses[10], 429);
    });

    it('needs a credential', async () => {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/account/password',
        payload: { current_password: PASSWORD, new_password: 'fine new passphrase' },
      });
      assert.equal(res.statusCode, 401);
    });
  });

  describe('a rotated key about to lose its grace', () => {
    it('is announced once, a few hours before, when the old key is still used', async () => {
      const a = await accountOnPlan(t, 'developer');
      const unused = await accountOnPlan(t, 'developer');
      const rotate = async (acct: typeof a) => {
        const keyId = (await call('GET', '/api/v1/keys', acct.session)).json().data[0].id;
        const res = await call('POST', `/api/v1/keys/${keyId}/rotate`, acct.session, {});
        assert.equal(res.statusCode, 201, res.body);
      };
      const rotatedAt = t.clock.now();
      await rotate(a);
      await rotate(unused);
      // Only `a`'s old key is used after the rotation.
      t.clock.advance(HOUR);
      assert.equal((await call('GET', '/api/v1/countries', a.apiKey!)).statusCode, 200);
      await t.recorder.flush();

      const at = (ms: number) => new Date(t.clock.now() + ms);
      // 23 h of grace are left: too early.
      assert.equal(await queueGraceNotices(t.db, at(0)), 0);
      const lead = 24 * HOUR - HOUR - GRACE_NOTICE_LEAD_MS;
      t.clock.advance(lead + 60_000);
      assert.equal(await queueGraceNotices(t.db, at(0)), 1);
      assert.equal(await queueGraceNotices(t.db, at(0)), 0, 'once per key');
      await t.notices.runOnce();
      // The subject has quotes, so it is sent as an encoded word.
      const mails = smtp.received.filter(
        (m) => m.to.includes(a.email) && /stops_working_/.test(subjectOf(m.raw)),
      );
      assert.equal(mails.length, 1, smtp.received.map((m) => subjectOf(m.raw)).join('; '));
      const ends = new Date(rotatedAt + 24 * HOUR).toISOString();
      assert.ok(mails[0]!.raw.replace(/=\r?\n/g, '').includes(`stops working at ${ends}`));
      assert.equal(
        smtp.received.filter(
          (m) => m.to.includes(unused.email) && /stops_working_/.test(subjectOf(m.raw)),
        ).length,
        0,
      );
      assert.deepEqual(secretsMailed(smtp.received, [a.apiKey!]), []);
    });
  });

  describe('the secret scan', () => {
    // A secret planted in a message, through each encoding a mail body can take, must be found:
    // otherwise the scans in these tests could pass while secrets were being mailed.
    for (const [encoding, filler] of [
      ['quoted-printable', 'Plain words.'],
      ['quoted-printable', 'Größe und Gehälter für München, ' + 'x'.repeat(120)],
      ['base64', 'Заработная плата в Москве и Санкт-Петербурге. '.repeat(6)],
    ] as const) {
      it(`finds a secret planted in a ${encoding} body (${filler.slice(0, 12)}…)`, async () => {
        const a = await accountOnPlan(t, 'developer');
        const res = await call('POST', '/api/v1/support/requests', a.session, {
          subject: `Planted ${a.accountId}`,
          message: `${filler} My key is ${a.apiKey!} ${filler}`,
        });
        assert.equal(res.statusCode, 201, res.body);
        await t.notices.runOnce();
        const planted = smtp.received.filter(
          (m) =>
            m.to.includes('support@salary.example') &&
            subjectOf(m.raw).includes(`Planted ${a.accountId}`),
        );
        assert.equal(planted.length, 1);
        assert.match(planted[0]!.raw, new RegExp(`Content-Transfer-Encoding: ${encoding}`, 'i'));
        assert.deepEqual(secretsMailed(planted, [a.apiKey!, a.session]), [a.apiKey!]);
      });
    }
  });
});
