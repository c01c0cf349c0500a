import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { updateContacts } from '../../src/accounts/index.js';
import { enqueueNotice } from '../../src/notices/index.js';
import { accountOnPlan } from '../helpers/accounts.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { headerOf, startSmtp, type TestSmtp } from '../helpers/smtp.js';

const subjectOf = (raw: string): string => headerOf(raw, 'Subject');

describe('support requests by plan', () => {
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

  const ask = (session: string, subject = 'Figures for Lisbon') =>
    t.app.inject({
      method: 'POST',
      url: '/api/v1/support/requests',
      headers: { authorization: `Bearer ${session}` },
      payload: { subject, message: 'The median looks off.', severity: 'high' },
    });

  for (const [plan, tag, target] of [
    ['developer', '[P3 Developer]', '2 business days'],
    ['business', '[P2 Business]', '1 business day'],
    ['enterprise', '[P1 Enterprise]', '4 hours'],
  ] as const) {
    it(`${plan}: mailed to support with ${tag} in the subject and confirmed to the customer`, async () => {
      const a = await accountOnPlan(t, plan);
      if (plan === 'enterprise')
        await updateContacts(
          t.db,
          a.accountId,
          { managerName: 'Mia Manager', managerEmail: 'mia@salary.example' },
          new Date(t.clock.now()),
        );
      const res = await ask(a.session, `Question from ${a.accountId}`);
      assert.equal(res.statusCode, 201, res.body);
      assert.equal(res.json<{ response_target: string }>().response_target, target);
      await t.notices.runOnce();
      const toStaff = smtp.received.filter((m) =>
        subjectOf(m.raw).endsWith(`Question from ${a.accountId} (${a.accountId})`),
      );
      assert.equal(toStaff.length, 1);
      assert.ok(subjectOf(toStaff[0]!.raw).startsWith(tag));
      assert.deepEqual(
        toStaff[0]!.to.sort(),
        plan === 'enterprise'
          ? ['mia@salary.example', 'support@salary.example']
          : ['support@salary.example'],
      );
      assert.match(toStaff[0]!.raw, /Error rate of its requests/);
      const confirmation = smtp.received.filter(
        (m) => m.to.includes(a.email) && subjectOf(m.raw).startsWith('We received'),
      );
      assert.equal(confirmation.length, 1);
      assert.match(confirmation[0]!.raw, new RegExp(target));
    });
  }

  it('Free is refused with 403 naming the community channel, and nothing is mailed', async () => {
    const a = await accountOnPlan(t, 'free');
    const res = await ask(a.session);
    assert.equal(res.statusCode, 403);
    assert.equal(
      res.json<{ community_url: string }>().community_url,
      'https://community.salary.example/',
    );
    assert.match(res.json<{ detail: string }>().detail, /community\.salary\.example/);
  });

  it('allows 10 requests per account per day, then 429 until the day has passed', async () => {
    const a = await accountOnPlan(t, 'developer');
    for (let i = 0; i < 10; i++) assert.equal((await ask(a.session)).statusCode, 201);
    const refused = await ask(a.session);
    assert.equal(refused.statusCode, 429);
    assert.ok(Number(refused.headers['retry-after']) > 0);
    t.clock.advance(86_400_000);
    assert.equal((await ask(a.session)).statusCode, 201);
  });

  it('sends billing mail to the billing contact and honours the opt-out for technical notices', async () => {
    const a = await accountOnPlan(t, 'business');
    const patch = (payload: Record<string, unknown>) =>
      t.app.inject({
        method: 'PATCH',
        url: '/api/v1/account/contacts',
        headers: { authorization: `Bearer ${a.session}` },
        payload,
      });
    assert.equal((await patch({ billing_email: 'not an address' })).statusCode, 400);
    const res = await patch({
      name: 'Ada Ltd',
      billing_email: 'billing@ada.example',
      notices_opt_out: true,
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json<{ support: { channel: string } }>().support.channel, 'priority e-mail');
    await t.notices.runOnce();
    const before = smtp.received.length;
    await t.db.transaction(async (tx) => {
      const at = new Date(t.clock.now());
      await enqueueNotice(tx, { accountId: a.accountId, kind: 'sla.credit_issued', data: {} }, at);
      await enqueueNotice(tx, { accountId: a.accountId, kind: 'export.failed', data: {} }, at);
    });
    await t.notices.runOnce();
    const sent = smtp.received.slice(before);
    assert.deepEqual(
      sent.map((m) => [m.to.join(','), subjectOf(m.raw)]),
      [['billing@ada.example', 'Service credit issued']],
    );
    assert.match(sent[0]!.raw, /Hello Ada Ltd,/);
  });
});
