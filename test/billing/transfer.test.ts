// Getting paid by transfer: every invoice carries an ISO 11649 reference, and an open one the
// seller's IBAN and an EPC QR code, which an independent decoder reads back from the PDF.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { accountOnPlan, giveBillingDetails } from '../helpers/accounts.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { qrCodesInPdf } from '../helpers/qr.js';
import { DUTCH_SELLER } from '../helpers/seller.js';

const BANK = { SELLER_IBAN: 'NL91 ABNA 0417 1643 00', SELLER_BIC: 'ABNANL2A' };

describe('transfer details and the EPC QR code', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({ env: { ...DUTCH_SELLER, ...BANK } });
  });
  after(() => t.close());

  const call = (
    session: string,
    method: 'GET' | 'POST',
    url: string,
    body?: unknown,
    accept?: string,
  ) =>
    t.app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${session}`, ...(accept === undefined ? {} : { accept }) },
      ...(body === undefined ? {} : { payload: body as Record<string, unknown> }),
    });

  async function subscribed() {
    const a = await accountOnPlan(t, 'free');
    await giveBillingDetails(t, a.accountId);
    const sub = await call(a.session, 'POST', '/api/v1/subscription', { plan: 'developer' });
    assert.equal(sub.statusCode, 200, sub.body);
    return { ...a, invoice: sub.json().invoices[0] };
  }

  it('an open invoice names the seller’s account, its RF reference and the amount due', async () => {
    const a = await subscribed();
    const inv = a.invoice;
    // 49 € plus Dutch VAT at 21 %.
    assert.equal(inv.amount_due_cents, 5929);
    assert.match(inv.reference, /^RF\d{2}\d+$/);
    assert.equal(inv.reference.slice(4), String(inv.number));
    assert.deepEqual(inv.transfer, {
      beneficiary: 'Salary Data Europe B.V.',
      iban: 'NL91ABNA0417164300',
      iban_display: 'NL91 ABNA 0417 1643 00',
      bic: 'ABNANL2A',
      reference: inv.reference,
      amount_cents: 5929,
      epc_qr: [
        'BCD',
        '002',
        '1',
        'SCT',
        'ABNANL2A',
        'Salary Data Europe B.V.',
        'NL91ABNA0417164300',
        'EUR59.29',
        '',
        inv.reference,
      ].join('\n'),
    });
  });

  it('the PDF’s QR code decodes (Ghostscript + zbarimg) to the amount, reference and beneficiary', async () => {
    const a = await subscribed();
    const pdf = await call(
      a.session,
      'GET',
      `/api/v1/invoices/${a.invoice.id}`,
      undefined,
      'application/pdf',
    );
    assert.equal(pdf.statusCode, 200);
    const codes = await qrCodesInPdf(pdf.rawPayload);
    assert.equal(codes.length, 1, `one QR code on the invoice: ${JSON.stringify(codes)}`);
    const fields = codes[0]!.split('\n');
    assert.equal(fields[0], 'BCD');
    assert.equal(fields[1], '002');
    assert.equal(fields[2], '1', 'UTF-8');
    assert.equal(fields[3], 'SCT');
    assert.equal(fields[4], 'ABNANL2A');
    assert.equal(fields[5], 'Salary Data Europe B.V.');
    assert.equal(fields[6], 'NL91ABNA0417164300');
    assert.equal(fields[7], 'EUR59.29');
    assert.equal(fields[9], a.invoice.reference);
  });

  it('a paid invoice has no transfer details and no QR code, but keeps its reference', async () => {
    const a = await subscribed();
    await t.services.subscriptions.markPaid(a.invoice.id, 'operator');
    const res = await call(a.session, 'GET', `/api/v1/invoices/${a.invoice.id}`);
    assert.equal(res.json().transfer, null);
    assert.equal(res.json().reference, a.invoice.reference);
    const pdf = await call(
      a.session,
      'GET',
      `/api/v1/invoices/${a.invoice.id}`,
      undefined,
      'application/pdf',
    );
    assert.deepEqual(await qrCodesInPdf(pdf.rawPayload), []);
  });
});

describe('invoices of a seller without an IBAN', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({ env: DUTCH_SELLER });
  });
  after(() => t.close());

  it('carry a reference but no transfer details or QR code', async () => {
    const a = await accountOnPlan(t, 'free');
    await giveBillingDetails(t, a.accountId);
    const headers = { authorization: `Bearer ${a.session}` };
    const sub = await t.app.inject({
      method: 'POST',
      url: '/api/v1/subscription',
      headers,
      payload: { plan: 'developer' },
    });
    const inv = sub.json().invoices[0];
    assert.equal(inv.transfer, null);
    assert.match(inv.reference, /^RF\d+$/);
    const pdf = await t.app.inject({
      url: `/api/v1/invoices/${inv.id}`,
      headers: { ...headers, accept: 'application/pdf' },
    });
    assert.deepEqual(await qrCodesInPdf(pdf.rawPayload), []);
  });
});
