// Credit on the balance is spent on an invoice's total with VAT, not on its subtotal: checked
// on invoices with VAT and without (the reverse charge), with credit short of the subtotal,
// between the subtotal and the total, exactly the total, and beyond it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { addLedgerEntry } from '../../src/billing/index.js';
import { accountOnPlan } from '../helpers/accounts.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { DUTCH_SELLER } from '../helpers/seller.js';

const DEVELOPER = 4900;
/** A consumer in the seller's country: Dutch VAT (21 %). */
const WITH_VAT = {
  vat: 1029,
  details: { company_name: 'Jan de Vries', address_lines: ['Damrak 1'], country: 'NL' },
};
/** A business in another member state with a VAT number: reverse charge, no VAT. */
const WITHOUT_VAT = {
  vat: 0,
  details: {
    company_name: 'Beispiel Analytics GmbH',
    address_lines: ['Friedrichstraße 1', '10117 Berlin'],
    country: 'DE',
    vat_number: 'DE 136 695 976',
  },
};

describe('balance credit spent on an invoice with and without VAT', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({ env: DUTCH_SELLER });
  });
  after(() => t.close());

  const call = (token: string, method: 'GET' | 'PUT' | 'POST', url: string, body?: object) =>
    t.app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${token}` },
      ...(body === undefined ? {} : { payload: body }),
    });

  const cases = [
    // [invoice, credit, applied, due, status, balance left]
    [WITH_VAT, 3000, 3000, 2929, 'open', 0],
    [WITH_VAT, 5000, 5000, 929, 'open', 0],
    [WITH_VAT, 5929, 5929, 0, 'paid', 0],
    [WITH_VAT, 6000, 5929, 0, 'paid', 71],
    [WITHOUT_VAT, 3000, 3000, 1900, 'open', 0],
    [WITHOUT_VAT, 4900, 4900, 0, 'paid', 0],
    [WITHOUT_VAT, 5000, 4900, 0, 'paid', 100],
  ] as const;

  for (const [invoice, credit, applied, due, status, left] of cases) {
    const total = DEVELOPER + invoice.vat;
    it(`a ${total} invoice (VAT ${invoice.vat}) with ${credit} of credit: ${applied} applied, ${due} due, ${status}, ${left} left`, async () => {
      const a = await accountOnPlan(t, 'free');
      if (invoice.details !== undefined) {
        const res = await call(
          a.session,
          'PUT',
          '/api/v1/account/billing-details',
          invoice.details,
        );
        assert.equal(res.statusCode, 200, res.body);
      }
      await addLedgerEntry(t.db, {
        accountId: a.accountId,
        amountCents: credit,
        reason: 'SLA credit',
        invoiceId: null,
        at: t.clock.now(),
      });
      const sub = await call(a.session, 'POST', '/api/v1/subscription', { plan: 'developer' });
      assert.equal(sub.statusCode, 200, sub.body);
      const [issued] = sub.json().invoices;
      assert.deepEqual(
        {
          subtotal: issued.subtotal_cents,
          vat: issued.vat.amount_cents,
          total: issued.total_cents,
          applied: issued.balance_applied_cents,
          due: issued.amount_due_cents,
          status: issued.status,
        },
        { subtotal: DEVELOPER, vat: invoice.vat, total, applied, due, status },
      );
      const balance = (await call(a.session, 'GET', '/api/v1/balance')).json();
      assert.equal(balance.balance_cents, left);
      const entries = balance.entries.map((e: { amount_cents: number; invoice_id: string }) => [
        e.amount_cents,
        e.invoice_id,
      ]);
      assert.deepEqual(
        entries.sort((x: [number], y: [number]) => y[0] - x[0]),
        [
          [credit, null],
          [-applied, issued.id],
        ],
      );
    });
  }
});
