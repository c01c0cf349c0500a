// Bank statements reconciled: credits of a camt.053 built here pay, part-pay and over-pay the
// invoices they name, the rest waits for the operator, and a second import changes nothing.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { accountOnPlan } from '../helpers/accounts.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { camt053, camt054 } from '../helpers/camt.js';
import { DUTCH_SELLER } from '../helpers/seller.js';

const BANK = { SELLER_IBAN: 'NL91ABNA0417164300', SELLER_BIC: 'ABNANL2A' };
/** Developer (49 €) with Dutch VAT. */
const DUE = 5929;
const DAY = 86_400_000;

describe('bank statement import (camt.053)', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({ env: { ...DUTCH_SELLER, ...BANK } });
  });
  after(() => t.close());

  const get = (session: string, url: string) =>
    t.app.inject({ url, headers: { authorization: `Bearer ${session}` } });

  async function customer() {
    const a = await accountOnPlan(t, 'developer');
    const [invoice] = (await get(a.session, '/api/v1/invoices')).json().data;
    assert.equal(invoice.amount_due_cents, DUE);
    return { ...a, invoice };
  }
  const invoiceOf = async (c: Awaited<ReturnType<typeof customer>>) =>
    (await get(c.session, `/api/v1/invoices/${c.invoice.id}`)).json();
  const balanceOf = async (c: Awaited<ReturnType<typeof customer>>) =>
    (await get(c.session, '/api/v1/balance')).json().balance_cents as number;

  it('pays exactly, in part and over; lists the unmatched; a second import changes nothing', async () => {
    const [exact, partial, over, byText, untouched] = [
      await customer(),
      await customer(),
      await customer(),
      await customer(),
      await customer(),
    ];
    const rfWithSpaces = partial.invoice.reference.replace(/(.{4})/g, '$1 ');
    const xml = camt053([
      { ref: 'BANK-0001', amount: '59.29', rf: exact.invoice.reference, debtor: 'Exact B.V.' },
      { ref: 'BANK-0002', amount: '20.00', text: `Payment ${rfWithSpaces} part one` },
      { ref: 'BANK-0003', amount: '70.00', rf: over.invoice.reference },
      { ref: 'BANK-0004', amount: '59.29', text: `Salary API invoice ${byText.invoice.number}` },
      { ref: 'BANK-0005', amount: '12.34', text: 'donation, no invoice' },
      { ref: 'BANK-0006', amount: '59.29', text: 'RF00 wrong check digits' },
      { ref: 'BANK-0007', amount: '100.00', debit: true, text: 'rent' },
      { ref: 'BANK-0008', amount: '59.29', status: 'PDNG', rf: untouched.invoice.reference },
      { ref: 'BANK-0009', amount: '59.29', currency: 'CHF', rf: untouched.invoice.reference },
    ]);

    const first = await t.services.subscriptions.importBankStatement(xml, 'operator');
    assert.equal(first.message, 'camt.053');
    assert.equal(first.credits, 7);
    assert.equal(first.skipped, 2, 'the debit and the pending entry');
    assert.equal(first.already_imported, 0);
    const outcomes = Object.fromEntries(first.applied.map((a) => [a.bank_reference, a]));
    assert.deepEqual(
      first.applied.map((a) => [a.bank_reference, a.outcome]),
      [
        ['BANK-0001', 'paid'],
        ['BANK-0002', 'partial'],
        ['BANK-0003', 'overpaid'],
        ['BANK-0004', 'paid'],
        ['BANK-0005', 'unmatched'],
        ['BANK-0006', 'unmatched'],
        ['BANK-0009', 'unmatched'],
      ],
    );
    assert.equal(outcomes['BANK-0002']!.remaining_cents, DUE - 2000);
    assert.equal(outcomes['BANK-0003']!.credited_cents, 7000 - DUE);
    assert.equal(outcomes['BANK-0009']!.note, 'in CHF, not EUR');

    const state = async () => ({
      exact: [
        (await invoiceOf(exact)).status,
        (await invoiceOf(exact)).amount_due_cents,
        await balanceOf(exact),
      ],
      partial: [
        (await invoiceOf(partial)).status,
        (await invoiceOf(partial)).amount_due_cents,
        await balanceOf(partial),
      ],
      over: [
        (await invoiceOf(over)).status,
        (await invoiceOf(over)).amount_due_cents,
        await balanceOf(over),
      ],
      byText: [
        (await invoiceOf(byText)).status,
        (await invoiceOf(byText)).amount_due_cents,
        await balanceOf(byText),
      ],
      untouched: [
        (await invoiceOf(untouched)).status,
        (await invoiceOf(untouched)).amount_due_cents,
        await balanceOf(untouched),
      ],
    });
    const expected = {
      exact: ['paid', DUE, 0],
      partial: ['open', DUE - 2000, 0],
      over: ['paid', DUE, 7000 - DUE],
      byText: ['paid', DUE, 0],
      untouched: ['open', DUE, 0],
    };
    assert.deepEqual(await state(), expected);
    // What is left to pay is what the transfer details and the QR code ask for.
    assert.equal((await invoiceOf(partial)).transfer.amount_cents, DUE - 2000);
    assert.match((await invoiceOf(partial)).transfer.epc_qr, /\nEUR39\.29\n/);

    const unmatched = await t.services.subscriptions.unmatchedPayments();
    assert.deepEqual(
      unmatched.map((u) => [u.bankReference, u.amountCents, u.currency]),
      [
        ['BANK-0005', 1234, 'EUR'],
        ['BANK-0006', 5929, 'EUR'],
        ['BANK-0009', 5929, 'CHF'],
      ],
    );

    const second = await t.services.subscriptions.importBankStatement(xml, 'operator');
    assert.equal(second.already_imported, 7);
    assert.deepEqual(second.applied, []);
    assert.deepEqual(await state(), expected);
    assert.equal((await t.services.subscriptions.unmatchedPayments()).length, 3);

    const audit = await t.db.query<{ action: string; account_id: string | null; data: unknown }>(
      "SELECT action, account_id, data FROM audit_log WHERE action IN ('payments.import', 'invoices.mark_paid', 'invoices.part_paid') ORDER BY id",
    );
    assert.deepEqual(
      audit.map((a) => [a.action, a.account_id]),
      [
        ['invoices.mark_paid', exact.accountId],
        ['invoices.part_paid', partial.accountId],
        ['invoices.mark_paid', over.accountId],
        ['invoices.mark_paid', byText.accountId],
        ['payments.import', null],
        ['payments.import', null],
      ],
    );

    // The remainder, paid later, settles the invoice.
    const rest = await t.services.subscriptions.importBankStatement(
      camt053([{ ref: 'BANK-0010', amount: '39.29', rf: partial.invoice.reference }], 'STMT-2'),
      'operator',
    );
    assert.deepEqual(
      rest.applied.map((a) => a.outcome),
      ['paid'],
    );
    assert.equal((await invoiceOf(partial)).status, 'paid');
    assert.equal((await invoiceOf(partial)).transfer, null);
  });

  it('a payment of an overdue invoice makes a past_due account active again', async () => {
    const late = await customer();
    t.clock.advance(8 * DAY);
    await t.services.billing();
    const status = async () => (await get(late.session, '/api/v1/subscription')).json().status;
    assert.equal(await status(), 'past_due');
    const result = await t.services.subscriptions.importBankStatement(
      camt053([{ ref: 'BANK-LATE', amount: '59.29', rf: late.invoice.reference }], 'STMT-3'),
      'operator',
    );
    assert.deepEqual(
      result.applied.map((a) => a.outcome),
      ['paid'],
    );
    assert.equal(await status(), 'active');
  });

  it('reads a camt.054 credit notification the same way', async () => {
    const c = await customer();
    const xml = camt054([{ ref: 'NTF-0001', amount: '59.29', rf: c.invoice.reference }]);
    const result = await t.services.subscriptions.importBankStatement(xml, 'operator');
    assert.equal(result.message, 'camt.054');
    assert.deepEqual(
      result.applied.map((a) => [a.bank_reference, a.outcome]),
      [['NTF-0001', 'paid']],
    );
    assert.equal((await invoiceOf(c)).status, 'paid');
  });

  const bad = [
    ['not XML', 'this is not xml <', /is not well-formed XML/],
    [
      'another ISO 20022 message',
      '<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.001.001.03"><CstmrCdtTrfInitn/></Document>',
      /is not an ISO 20022 camt.053 statement or camt.054 notification/,
    ],
    [
      'a credit without a bank reference',
      camt053([{ ref: 'X', amount: '1.00' }]).replace(/<AcctSvcrRef>X<\/AcctSvcrRef>/g, ''),
      /entry 1 of STMT-2026-11-22 has no bank reference \(AcctSvcrRef\)/,
    ],
    [
      'an amount of the wrong form',
      camt053([{ ref: 'Y', amount: '1.005' }]),
      /entry 1 of STMT-2026-11-22 has no amount of the form 123.45/,
    ],
  ] as const;
  for (const [name, xml, reason] of bad)
    it(`refuses ${name}, naming why, and records nothing`, async () => {
      await assert.rejects(
        t.services.subscriptions.importBankStatement(xml, 'operator'),
        (e: unknown) => {
          const err = e as {
            code: string;
            status: number;
            extensions: { invalid_params: { name: string; reason: string }[] };
          };
          assert.equal(err.code, 'INVALID_PARAMETER');
          assert.equal(err.status, 400);
          assert.equal(err.extensions.invalid_params[0]!.name, 'statement');
          assert.match(err.extensions.invalid_params[0]!.reason, reason);
          return true;
        },
      );
      const rows = await t.db.query(
        "SELECT 1 FROM bank_payments WHERE bank_reference IN ('X', 'Y')",
      );
      assert.equal(rows.length, 0);
    });
});
