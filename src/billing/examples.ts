/**
 * Examples in the API reference: the billing of the account of the accounts feature's examples,
 * as the server answered: Developer from 5 October 2026, Business from 19 October, Enterprise
 * (a contract of 1,500 EUR a month) from 2 November, invoiced with German VAT (a buyer in
 * Germany without a VAT number) by a Dutch seller.
 */

const SELLER = {
  name: 'Salary Data Europe B.V.',
  address: ['Keizersgracht 1', '1015 CJ Amsterdam'],
  country: 'NL',
  vat_number: 'NL812345678B01',
};

const BUYER = {
  name: 'Example Analytics GmbH',
  address: ['Friedrichstraße 1', '10117 Berlin'],
  country: 'DE',
  vat_number: null,
};

const VAT_NOTE =
  "VAT at the standard rate of Germany, 19 %: the buyer's country, where the service is supplied to a buyer without a VAT number (Article 58, Directive 2006/112/EC).";

const CORE_MANDATE_TEXT =
  'By accepting this mandate, you authorise (A) Salary Data Europe B.V. (SEPA creditor identifier NL69ZZZ123456780000) to send instructions to your bank to debit your account and (B) your bank to debit your account in accordance with the instructions from Salary Data Europe B.V.. As part of your rights, you are entitled to a refund from your bank under the terms and conditions of your agreement with your bank. A refund must be claimed within 8 weeks starting from the date on which your account was debited. You are told the amount and date of each collection at least 5 days in advance, with the invoice.';

/** An invoice once paid: nothing is left to transfer. */
const paid = <T extends object>(invoice: T, paidAt: string) => ({
  ...invoice,
  status: 'paid',
  paid_at: paidAt,
  transfer: null,
});

/** GET /api/v1/subscription */
export const SUBSCRIPTION_EXAMPLE = {
  plan: 'enterprise',
  status: 'active',
  current_period_start: '2026-11-05T08:24:45.000Z',
  current_period_end: '2026-12-05T08:24:45.000Z',
  pending_plan: null,
  cancel_at_period_end: false,
  balance_cents: 0,
};

/** GET /api/v1/invoices/{id}: the invoice of the move to Enterprise, open, as issued. */
export const INVOICE_EXAMPLE = {
  id: 'in_Snf-KIyEoCn9nta5',
  number: 4,
  status: 'open',
  currency: 'EUR',
  period_start: '2026-11-02T10:00:00.000Z',
  period_end: '2026-11-05T08:24:45.000Z',
  lines: [
    {
      kind: 'proration',
      description: 'Upgrade from Business to Enterprise, rest of the period',
      amount_cents: 12313,
      period_start: '2026-11-02T10:00:00.000Z',
      period_end: '2026-11-05T08:24:45.000Z',
    },
    {
      kind: 'renewal_adjustment',
      description: 'Enterprise plan for the next period (19900 cents invoiced in advance)',
      amount_cents: 130100,
      period_start: '2026-11-05T08:24:45.000Z',
      period_end: '2026-12-05T08:24:45.000Z',
    },
  ],
  subtotal_cents: 142413,
  vat: {
    treatment: 'standard',
    rate_percent: 19,
    country: 'DE',
    note: VAT_NOTE,
    amount_cents: 27058,
  },
  total_cents: 169471,
  balance_applied_cents: 0,
  amount_due_cents: 169471,
  created_at: '2026-11-02T10:00:00.000Z',
  due_at: '2026-11-09T10:00:00.000Z',
  paid_at: null,
  seller: SELLER,
  buyer: BUYER,
  reference: 'RF904',
  transfer: {
    beneficiary: 'Salary Data Europe B.V.',
    iban: 'NL91ABNA0417164300',
    iban_display: 'NL91 ABNA 0417 1643 00',
    bic: 'ABNANL2A',
    reference: 'RF904',
    amount_cents: 169471,
    epc_qr:
      'BCD\n002\n1\nSCT\nABNANL2A\nSalary Data Europe B.V.\nNL91ABNA0417164300\nEUR1694.71\n\nRF904',
  },
};

/** The invoice of the upgrade to Business, open, as issued. */
const UPGRADE_INVOICE = {
  id: 'in_DpKc1Tq4gYBtHEHi',
  number: 2,
  status: 'open',
  currency: 'EUR',
  period_start: '2026-10-19T14:03:52.000Z',
  period_end: '2026-11-05T08:24:45.000Z',
  lines: [
    {
      kind: 'proration',
      description: 'Upgrade from Developer to Business, rest of the period',
      amount_cents: 8112,
      period_start: '2026-10-19T14:03:52.000Z',
      period_end: '2026-11-05T08:24:45.000Z',
    },
  ],
  subtotal_cents: 8112,
  vat: {
    treatment: 'standard',
    rate_percent: 19,
    country: 'DE',
    note: VAT_NOTE,
    amount_cents: 1541,
  },
  total_cents: 9653,
  balance_applied_cents: 0,
  amount_due_cents: 9653,
  created_at: '2026-10-19T14:03:52.000Z',
  due_at: '2026-10-26T14:03:52.000Z',
  paid_at: null,
  seller: SELLER,
  buyer: BUYER,
  reference: 'RF472',
  transfer: {
    beneficiary: 'Salary Data Europe B.V.',
    iban: 'NL91ABNA0417164300',
    iban_display: 'NL91 ABNA 0417 1643 00',
    bic: 'ABNANL2A',
    reference: 'RF472',
    amount_cents: 9653,
    epc_qr:
      'BCD\n002\n1\nSCT\nABNANL2A\nSalary Data Europe B.V.\nNL91ABNA0417164300\nEUR96.53\n\nRF472',
  },
};

/** GET /api/v1/invoices: every invoice of the account, paid. */
export const INVOICES_EXAMPLE = {
  data: [
    {
      id: 'in_LPLbveOw_wifsI0r',
      number: 1,
      status: 'paid',
      currency: 'EUR',
      period_start: '2026-10-05T08:24:45.000Z',
      period_end: '2026-11-05T08:24:45.000Z',
      lines: [
        {
          kind: 'subscription',
          description: 'Developer plan',
          amount_cents: 4900,
          period_start: '2026-10-05T08:24:45.000Z',
          period_end: '2026-11-05T08:24:45.000Z',
        },
      ],
      subtotal_cents: 4900,
      vat: {
        treatment: 'standard',
        rate_percent: 19,
        country: 'DE',
        note: VAT_NOTE,
        amount_cents: 931,
      },
      total_cents: 5831,
      balance_applied_cents: 0,
      amount_due_cents: 5831,
      created_at: '2026-10-05T08:24:45.000Z',
      due_at: '2026-10-12T08:24:45.000Z',
      paid_at: '2026-10-21T09:02:00.000Z',
      seller: SELLER,
      buyer: BUYER,
      reference: 'RF741',
      transfer: null,
    },
    paid(UPGRADE_INVOICE, '2026-10-21T09:02:00.000Z'),
    {
      id: 'in_AkBK5tNUuo5oQH7q',
      number: 3,
      status: 'paid',
      currency: 'EUR',
      period_start: '2026-11-05T08:24:45.000Z',
      period_end: '2026-12-05T08:24:45.000Z',
      lines: [
        {
          kind: 'subscription',
          description: 'Business plan',
          amount_cents: 19900,
          period_start: '2026-11-05T08:24:45.000Z',
          period_end: '2026-12-05T08:24:45.000Z',
        },
      ],
      subtotal_cents: 19900,
      vat: {
        treatment: 'standard',
        rate_percent: 19,
        country: 'DE',
        note: VAT_NOTE,
        amount_cents: 3781,
      },
      total_cents: 23681,
      balance_applied_cents: 0,
      amount_due_cents: 23681,
      created_at: '2026-10-29T08:24:45.000Z',
      due_at: '2026-11-05T08:24:45.000Z',
      paid_at: '2026-10-31T10:12:00.000Z',
      seller: SELLER,
      buyer: BUYER,
      reference: 'RF203',
      transfer: null,
    },
    paid(INVOICE_EXAMPLE, '2026-11-09T07:55:00.000Z'),
  ],
};

/** POST /api/v1/subscription: the upgrade from Developer to Business on 19 October. */
export const PLAN_CHANGE_EXAMPLE = {
  subscription: {
    plan: 'business',
    status: 'active',
    current_period_start: '2026-10-05T08:24:45.000Z',
    current_period_end: '2026-11-05T08:24:45.000Z',
    pending_plan: null,
    cancel_at_period_end: false,
    balance_cents: 0,
  },
  invoices: [UPGRADE_INVOICE],
};

/** DELETE /api/v1/subscription: on Free from the end of the period; nothing invoiced. */
export const CANCELLATION_EXAMPLE = {
  subscription: { ...SUBSCRIPTION_EXAMPLE, pending_plan: 'free', cancel_at_period_end: true },
  invoices: [],
};

/** GET and PUT /api/v1/account/billing-details. */
export const BILLING_DETAILS_EXAMPLE = {
  company_name: 'Example Analytics GmbH',
  address_lines: ['Friedrichstraße 1', '10117 Berlin'],
  country: 'DE',
  vat_number: null,
  vat_number_check: null,
  location_confirmed_at: null,
  updated_at: '2026-10-05T08:21:17.000Z',
};

/** PUT and DELETE /api/v1/billing/mandate: the mandate given (and, on DELETE, revoked). */
export const MANDATE_EXAMPLE = {
  reference: 'SAPI-20261005-5CD9720289',
  scheme: 'core',
  iban_masked: 'DE89 •••• •••• •••• ••30 00',
  account_holder: 'Example Analytics GmbH',
  creditor_name: 'Salary Data Europe B.V.',
  creditor_id: 'NL69ZZZ123456780000',
  mandate_text: CORE_MANDATE_TEXT,
  signed_at: '2026-10-05T08:23:02.000Z',
};

/** GET /api/v1/billing/mandate */
export const MANDATE_STATE_EXAMPLE = {
  offered: true,
  terms: {
    creditor_name: 'Salary Data Europe B.V.',
    creditor_id: 'NL69ZZZ123456780000',
    pre_notification_days: 5,
    mandate_texts: {
      core: CORE_MANDATE_TEXT,
      b2b: 'By accepting this mandate, you authorise (A) Salary Data Europe B.V. (SEPA creditor identifier NL69ZZZ123456780000) to send instructions to your bank to debit your account and (B) your bank to debit your account in accordance with the instructions from Salary Data Europe B.V.. This mandate is only intended for business-to-business transactions. You are not entitled to a refund from your bank after your account has been debited, but you are entitled to request your bank not to debit your account up until the day on which the payment is due. Your bank must be told of this mandate before the first collection. You are told the amount and date of each collection at least 5 days in advance, with the invoice.',
    },
  },
  mandate: MANDATE_EXAMPLE,
};

/** GET /api/v1/balance: no credit, none spent. */
export const BALANCE_EXAMPLE = { balance_cents: 0, entries: [] };
