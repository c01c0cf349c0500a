// The plan change's confirmation shows what its invoice will say: net, VAT and why, gross.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { accountOnPlan } from '../helpers/accounts.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { DUTCH_SELLER } from '../helpers/seller.js';
import { DashboardClient } from './client.js';

describe('dashboard plan change: VAT on the confirmation', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({ env: DUTCH_SELLER });
  });
  after(() => t.close());

  /** Signed in to the dashboard, the first step of a change to Developer. */
  async function developerPreview(email: string) {
    const client = new DashboardClient(t);
    await client.signIn(email);
    const billing = await client.get('/dashboard/billing');
    const preview = await client.post(
      '/dashboard/billing/plan',
      { plan: 'developer' },
      billing.body,
    );
    return { client, preview };
  }

  const cases = [
    {
      who: 'a German consumer',
      details: {
        company_name: 'Erika Mustermann',
        address_lines: ['Heidestraße 17', '51147 Köln'],
        country: 'DE',
      },
      label: /VAT 19 % \(Germany\)/,
      net: '49.00',
      vat: '9.31',
      gross: '58.31',
    },
    {
      who: 'a German business with a checked VAT number',
      details: {
        company_name: 'Beispiel Analytics GmbH',
        address_lines: ['Friedrichstraße 1', '10117 Berlin'],
        country: 'DE',
        vat_number: 'DE136695976',
      },
      label: /reverse charge/,
      net: '49.00',
      vat: '0.00',
      gross: '49.00',
    },
  ];

  for (const c of cases) {
    it(`shows ${c.who} net €${c.net}, VAT €${c.vat}, charged €${c.gross}, as the invoice says`, async () => {
      const a = await accountOnPlan(t, 'free');
      const put = await t.app.inject({
        method: 'PUT',
        url: '/api/v1/account/billing-details',
        headers: { authorization: `Bearer ${a.session}` },
        payload: c.details,
      });
      assert.equal(put.statusCode, 200, put.body);
      const { client, preview } = await developerPreview(a.email);
      assert.equal(preview.statusCode, 200, preview.body);
      assert.match(preview.body, new RegExp(`id="due-net">€${c.net}<`));
      assert.match(preview.body, new RegExp(`id="due-vat">€${c.vat}<`));
      assert.match(preview.body, new RegExp(`id="due-now">€${c.gross}<`));
      assert.match(/id="due-vat-label">([^<]+)</.exec(preview.body)?.[1] ?? '', c.label);
      const done = await client.post(
        '/dashboard/billing/plan/confirm',
        { plan: 'developer' },
        preview.body,
      );
      assert.equal(done.statusCode, 201, done.body);
      const invoices = await t.app.inject({
        url: '/api/v1/invoices',
        headers: { authorization: `Bearer ${a.session}` },
      });
      const [invoice] = invoices.json().data;
      assert.equal((invoice.subtotal_cents / 100).toFixed(2), c.net);
      assert.equal((invoice.total_cents / 100).toFixed(2), c.gross);
    });
  }

  it('an upgrade after the renewal was invoiced lists both lines its invoice will carry', async () => {
    const a = await accountOnPlan(t, 'developer');
    for (const invoice of await t.services.subscriptions.invoices(a.accountId))
      await t.services.subscriptions.markPaid(invoice.id, 'operator');
    // Six days before the period ends: the renewal is invoiced in advance.
    t.clock.advance(24 * 24 * 60 * 60 * 1000);
    await t.services.billing();
    const client = new DashboardClient(t);
    await client.signIn(a.email);
    const billing = await client.get('/dashboard/billing');
    const preview = await client.post(
      '/dashboard/billing/plan',
      { plan: 'business' },
      billing.body,
    );
    assert.equal(preview.statusCode, 200, preview.body);
    const shown = [
      ...(/id="change-lines">([\s\S]*?)<\/table>/.exec(preview.body)?.[1] ?? '').matchAll(
        /<th scope="row">([^<]+)<\/th><td class="num">€([\d,.]+)</g,
      ),
    ].map((m) => [m[1], m[2]]);
    assert.equal(shown.length, 2, preview.body);
    const gross = /id="due-now">€([\d,.]+)</.exec(preview.body)?.[1];
    const done = await client.post(
      '/dashboard/billing/plan/confirm',
      { plan: 'business' },
      preview.body,
    );
    assert.equal(done.statusCode, 303, done.body);
    const invoices = await t.app.inject({
      url: '/api/v1/invoices',
      headers: { authorization: `Bearer ${a.session}` },
    });
    const invoice = invoices.json().data.at(-1);
    assert.deepEqual(
      shown,
      invoice.lines.map((l: { description: string; amount_cents: number }) => [
        l.description,
        (l.amount_cents / 100).toFixed(2),
      ]),
    );
    assert.equal(gross, (invoice.total_cents / 100).toFixed(2));
  });

  it('without billing details, says what is missing and offers no confirmation', async () => {
    const a = await accountOnPlan(t, 'free');
    const { preview } = await developerPreview(a.email);
    assert.equal(preview.statusCode, 200);
    assert.match(preview.body, /No invoice is issued without billing details/);
    assert.doesNotMatch(preview.body, /Confirm: change to/);
  });
});
