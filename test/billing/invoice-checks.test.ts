// Invoices over real HTTP: every page of the PDF numbered from 1, and the tax number of a
// buyer outside the EU checked for its form like an EU VAT number is.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { accountOnPlan, giveBillingDetails } from '../helpers/accounts.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { listenHttp } from '../helpers/http.js';
import { pageTexts } from '../helpers/pdf.js';
import { DUTCH_SELLER } from '../helpers/seller.js';

describe('invoice PDFs and billing details over HTTP', () => {
  let t: TestApp;
  let base: string;
  before(async () => {
    t = await buildTestApp({ env: DUTCH_SELLER });
    ({ base } = await listenHttp(t));
  });
  after(() => t.close());

  const send = (session: string, method: string, path: string, body?: unknown) =>
    fetch(`${base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${session}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  it('numbers every page of an invoice "page N of M" from 1', async () => {
    const a = await accountOnPlan(t, 'free');
    await giveBillingDetails(t, a.accountId);
    const sub = await send(a.session, 'POST', '/api/v1/subscription', { plan: 'developer' });
    assert.equal(sub.status, 200);
    const [invoice] = ((await sub.json()) as { invoices: { id: string; number: string }[] })
      .invoices;
    const pdf = await fetch(`${base}/api/v1/invoices/${invoice!.id}`, {
      headers: { authorization: `Bearer ${a.session}`, accept: 'application/pdf' },
    });
    assert.equal(pdf.status, 200);
    const pages = await pageTexts(new Uint8Array(await pdf.arrayBuffer()));
    assert.ok(pages.length >= 1);
    pages.forEach((text, i) =>
      assert.match(
        text.replace(/\n/g, ' '),
        new RegExp(`Invoice ${invoice!.number} · page ${i + 1} of ${pages.length}`),
        `page ${i + 1}`,
      ),
    );
  });

  for (const vatNumber of ['CHE-123.456.789 MWST/TVA', 'X', `CHE${'1'.repeat(22)}`]) {
    it(`a buyer outside the EU with the tax number ${JSON.stringify(vatNumber.slice(0, 20))}: 400 naming vat_number`, async () => {
      const a = await accountOnPlan(t, 'free');
      await giveBillingDetails(t, a.accountId);
      const res = await send(a.session, 'PUT', '/api/v1/account/billing-details', {
        company_name: 'Beispiel AG',
        address_lines: ['Bahnhofstrasse 1', '8001 Zürich'],
        country: 'CH',
        vat_number: vatNumber,
      });
      assert.equal(res.status, 400);
      const problem = (await res.json()) as { invalid_params: { name: string; reason: string }[] };
      assert.equal(problem.invalid_params[0]?.name, 'vat_number');
      assert.match(problem.invalid_params[0].reason, /2 to 20 letters and digits/);
    });
  }

  it('a buyer outside the EU with a tax number of letters and digits: stored as given', async () => {
    const a = await accountOnPlan(t, 'free');
    await giveBillingDetails(t, a.accountId);
    const res = await send(a.session, 'PUT', '/api/v1/account/billing-details', {
      company_name: 'Beispiel AG',
      address_lines: ['Bahnhofstrasse 1', '8001 Zürich'],
      country: 'CH',
      vat_number: 'CHE-123.456.789',
    });
    assert.equal(res.status, 200);
    assert.equal(((await res.json()) as { vat_number: string }).vat_number, 'CHE123456789');
  });
});
