// The links in e-mail notices lead to routes that answer: the mails a real sign-up, subscription
// and invoice produce are rendered from the outbox, and every link in them is followed with the
// account's credentials (the dashboard with its session cookie, the API with a bearer token).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { listNotices, NOTICE_KINDS, renderNotice } from '../../src/notices/index.js';
import { giveBillingDetails, verifyEmailOf } from '../helpers/accounts.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { DashboardClient } from '../dashboard/client.js';

const BASE = 'https://api.salary.example';
const PASSWORD = 'a long enough passphrase';

const linksOf = (text: string): string[] => [
  ...new Set([...text.matchAll(/https?:\/\/[^\s<>"')]+[^\s<>"'.,;:)]/g)].map((m) => m[0])),
];

/** Sample data for every kind, so that every template's links are checked. */
const SAMPLE: Record<string, Record<string, unknown>> = {
  'data.updated': {
    release: '2026.11.8',
    previous_release: '2026.11.7',
    changes: { beyond: { '1': 3, '5': 1, '10': 0 }, by_country: [{ country: 'DE', beyond_5: 1 }] },
  },
  'webhooks.endpoint_disabled': { url: 'https://hooks.example/x', webhook_id: 'wh_test' },
  'export.failed': { export_id: 'exp_test', reason: 'timeout' },
  'email.verify': { token: `tok_sample.${'A'.repeat(43)}`, expires_at: '2026-11-29T10:00:00Z' },
  'password.reset': { token: `tok_sample.${'A'.repeat(43)}`, expires_at: '2026-11-22T11:00:00Z' },
};

describe('links in e-mail notices', () => {
  let t: TestApp;
  let browser: DashboardClient;
  let invoiceId = '';
  before(async () => {
    t = await buildTestApp({ env: { PUBLIC_BASE_URL: `${BASE}/` } });
  });
  after(() => t.close());

  async function mailsOf(accountId: string) {
    const notices = await listNotices(t.db, accountId);
    return notices.map((n) => ({
      kind: n.kind,
      ...renderNotice(n.kind as (typeof NOTICE_KINDS)[number], n.data, null, `${BASE}/`),
    }));
  }

  it('lead a signed-up, subscribed account to pages and routes that answer 200', async () => {
    const email = `links-${Date.now()}@example.com`;
    const signUp = await t.app.inject({
      method: 'POST',
      url: '/api/v1/accounts',
      payload: { email, password: PASSWORD },
    });
    assert.equal(signUp.statusCode, 201, signUp.body);
    const { account, session } = signUp.json();
    await verifyEmailOf(t, account.id);
    await giveBillingDetails(t, account.id);
    const sub = await t.app.inject({
      method: 'POST',
      url: '/api/v1/subscription',
      headers: { authorization: `Bearer ${session.token}` },
      payload: { plan: 'developer' },
    });
    assert.equal(sub.statusCode, 200, sub.body);
    invoiceId = sub.json().invoices[0].id;

    const mails = await mailsOf(account.id);
    assert.deepEqual(mails.map((m) => m.kind).sort(), [
      'account.welcome',
      'email.verify',
      'invoice.issued',
      'subscription.confirmed',
    ]);
    const invoiceMail = mails.find((m) => m.kind === 'invoice.issued')!;
    assert.ok(invoiceMail.text.includes(`${BASE}/dashboard/billing/invoices/${invoiceId}/pdf`));
    assert.ok(invoiceMail.text.includes(`GET ${BASE}/api/v1/invoices/${invoiceId}`));
    assert.doesNotMatch(invoiceMail.text, /\/api\/v1\/billing\//);
    const welcome = mails.find((m) => m.kind === 'account.welcome')!;
    assert.match(welcome.text, /on the Free plan/);

    browser = new DashboardClient(t);
    await browser.signIn(email, PASSWORD);
    const links = linksOf(mails.map((m) => m.text).join('\n'));
    assert.ok(links.length >= 5, links.join(' '));
    for (const link of links) {
      assert.ok(link.startsWith(`${BASE}/`), link);
      const path = link.slice(BASE.length);
      const res = path.startsWith('/dashboard')
        ? await browser.get(path)
        : await t.app.inject({
            url: path,
            headers: {
              authorization: `Bearer ${session.token}`,
              ...(path.startsWith('/api/v1/invoices/') ? { accept: 'application/pdf' } : {}),
            },
          });
      const status =
        res.statusCode >= 300 && res.statusCode < 400
          ? (await t.app.inject({ url: String(res.headers.location) })).statusCode
          : res.statusCode;
      assert.equal(status, 200, `${link} answered ${res.statusCode}`);
    }
    // Every link is a link in the HTML part too.
    for (const m of mails)
      for (const link of linksOf(m.text)) assert.ok(m.html.includes(`<a href="${link}">`), link);
  });

  it('in every template point at routes the server has', async () => {
    for (const kind of NOTICE_KINDS) {
      const data = { invoice_id: invoiceId, ...SAMPLE[kind] };
      const { text } = renderNotice(kind, data, null, BASE);
      for (const link of linksOf(text)) {
        if (!link.startsWith(BASE)) continue; // a customer's own webhook address
        const path = link.slice(BASE.length);
        // Signed in, a dashboard link is a page (403 on the Developer plan for a Business
        // feature such as webhooks); the API asks for a credential (401) only on a route it has
        // (an unknown path is 404).
        let res = path.startsWith('/dashboard')
          ? await browser.get(path)
          : await t.app.inject({ url: path });
        // A redirect on this server (the reference's /docs to /docs/) is followed once.
        const location = res.headers.location;
        if (res.statusCode === 301 && typeof location === 'string' && location.startsWith('/'))
          res = await t.app.inject({ url: location });
        assert.ok(
          [200, 401, 403].includes(res.statusCode),
          `${kind}: ${link} answered ${res.statusCode}`,
        );
      }
    }
    const unknown = await t.app.inject({ url: '/api/v1/billing/invoices' });
    assert.equal(unknown.statusCode, 404, 'the check can fail');
  });

  it('welcome an account the operator created on a paid plan without inviting a choice of plan', async () => {
    const email = `operator-made-${Date.now()}@example.com`;
    const { account } = await t.services.accounts.signUp({ email, password: PASSWORD }, 'cli', {
      throttle: false,
      operatorPlan: 'Business',
      verified: true,
    });
    const [welcome] = await mailsOf(account.id);
    assert.equal(welcome?.kind, 'account.welcome');
    assert.match(welcome.text, /We set up your account on the Business plan/);
    assert.match(welcome.text, /Your first API key was handed to you with the account/);
    assert.doesNotMatch(welcome.text, /choose a (paid )?plan/i);
    assert.ok(welcome.text.includes(`${BASE}/dashboard`));
  });
});
