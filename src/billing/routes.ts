import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { AppError } from '../errors/index.js';
import { problemResponses } from '../http/openapi-responses.js';
import { StringEnum } from '../lib/string-enum.js';
import { MAX_ADDRESS_LINES } from './details.js';
import {
  BALANCE_EXAMPLE,
  BILLING_DETAILS_EXAMPLE,
  CANCELLATION_EXAMPLE,
  INVOICE_EXAMPLE,
  INVOICES_EXAMPLE,
  MANDATE_EXAMPLE,
  MANDATE_STATE_EXAMPLE,
  PLAN_CHANGE_EXAMPLE,
  SUBSCRIPTION_EXAMPLE,
} from './examples.js';
import { MANDATES_PER_DAY } from './sepa.js';
import type { SubscriptionService } from './service.js';

const Subscription = Type.Object(
  {
    plan: Type.String(),
    status: StringEnum(['active', 'past_due', 'canceled', 'none']),
    current_period_start: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    current_period_end: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    pending_plan: Type.Union([Type.String(), Type.Null()], {
      description: 'The plan from the next period (free: cancelled at period end).',
    }),
    cancel_at_period_end: Type.Boolean(),
    balance_cents: Type.Integer({
      description: 'Credit owed to the account, spent on the next invoices.',
    }),
  },
  { $id: 'Subscription', examples: [SUBSCRIPTION_EXAMPLE] },
);

const Line = Type.Object({
  kind: Type.String(),
  description: Type.String(),
  amount_cents: Type.Integer(),
  period_start: Type.String({ format: 'date-time' }),
  period_end: Type.String({ format: 'date-time' }),
});
const Party = Type.Object({
  name: Type.String(),
  address: Type.Array(Type.String()),
  country: Type.Union([Type.String(), Type.Null()], { description: 'ISO 3166-1 alpha-2.' }),
  vat_number: Type.Union([Type.String(), Type.Null()]),
});

const Transfer = Type.Object({
  beneficiary: Type.String(),
  iban: Type.String({ description: 'The seller’s IBAN, without spaces.' }),
  iban_display: Type.String({ description: 'The IBAN in groups of four.' }),
  bic: Type.Union([Type.String(), Type.Null()]),
  reference: Type.String({ description: 'The RF reference to give with the transfer.' }),
  amount_cents: Type.Integer(),
  epc_qr: Type.String({
    description:
      'The text of the EPC QR code (EPC069-12, “GiroCode”) that banking apps scan to fill in the transfer.',
  }),
});

const Mandate = Type.Object(
  {
    reference: Type.String({ description: 'The unique mandate reference (UMR) collections name.' }),
    scheme: StringEnum(['core', 'b2b'] as const),
    iban_masked: Type.String({
      description: 'The debtor’s IBAN, all but its first four and last four characters hidden.',
    }),
    account_holder: Type.String(),
    creditor_name: Type.String(),
    creditor_id: Type.String({ description: 'The SEPA creditor identifier.' }),
    mandate_text: Type.String({ description: 'The text accepted.' }),
    signed_at: Type.String({ format: 'date-time' }),
  },
  { $id: 'SepaMandate', examples: [MANDATE_EXAMPLE] },
);
const MandateState = Type.Object(
  {
    offered: Type.Boolean({ description: 'Whether the operator collects by SEPA Direct Debit.' }),
    terms: Type.Union([
      Type.Object({
        creditor_name: Type.String(),
        creditor_id: Type.String(),
        pre_notification_days: Type.Integer(),
        mandate_texts: Type.Object({ core: Type.String(), b2b: Type.String() }),
      }),
      Type.Null(),
    ]),
    mandate: Type.Union([Type.Ref('SepaMandate'), Type.Null()]),
  },
  { examples: [MANDATE_STATE_EXAMPLE] },
);
const MandateBody = Type.Object(
  {
    iban: Type.String({ maxLength: 64, description: 'An IBAN of a SEPA country; spaces allowed.' }),
    account_holder: Type.String({ maxLength: 70 }),
    scheme: StringEnum(['core', 'b2b'] as const, {
      description:
        '`core` for anyone; `b2b` for businesses (no refund right; tell your bank first).',
    }),
    // A JSON boolean, never coerced: no `type`, so "true" or 1 are refused rather than read as consent.
    accept_mandate_text: Type.Unsafe<boolean>({
      enum: [true, false],
      description:
        'Must be `true` (a JSON boolean): the mandate text of the scheme (GET) was shown and accepted.',
    }),
  },
  { additionalProperties: false },
);

const Invoice = Type.Object(
  {
    id: Type.String(),
    number: Type.Integer(),
    status: StringEnum(['open', 'paid', 'void', 'uncollectible']),
    currency: Type.String(),
    period_start: Type.String({ format: 'date-time' }),
    period_end: Type.String({ format: 'date-time' }),
    lines: Type.Array(Line),
    subtotal_cents: Type.Integer({ description: 'The lines added up, without VAT.' }),
    vat: Type.Object(
      {
        treatment: StringEnum(['standard', 'reverse_charge', 'outside_eu', 'not_charged']),
        rate_percent: Type.Number({ description: 'The rate charged; 0 unless standard.' }),
        country: Type.Union([Type.String(), Type.Null()], {
          description: 'The member state whose rate is charged; null unless standard.',
        }),
        note: Type.Union([Type.String(), Type.Null()], {
          description: 'The sentence the invoice prints about its VAT.',
        }),
        amount_cents: Type.Integer(),
      },
      { description: 'How VAT is treated (docs/billing.md).' },
    ),
    total_cents: Type.Integer({ description: 'Subtotal plus VAT.' }),
    balance_applied_cents: Type.Integer(),
    amount_due_cents: Type.Integer(),
    created_at: Type.String({ format: 'date-time' }),
    due_at: Type.String({ format: 'date-time' }),
    paid_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    seller: Type.Union([Party, Type.Null()], {
      description: 'The seller as it was when the invoice was issued.',
    }),
    buyer: Type.Union([Party, Type.Null()], {
      description:
        'The account’s billing details when the invoice was issued; null when none were given.',
    }),
    reference: Type.String({
      description:
        'The structured creditor reference (ISO 11649) a bank transfer paying this invoice carries.',
      examples: ['RF971042'],
    }),
    transfer: Type.Union([Transfer, Type.Null()], {
      description:
        'How to pay the invoice by SEPA credit transfer; null unless it is open with an amount due and the seller gave an IBAN.',
    }),
  },
  { $id: 'Invoice', examples: [INVOICE_EXAMPLE] },
);

const BillingDetails = Type.Object(
  {
    company_name: Type.String(),
    address_lines: Type.Array(Type.String()),
    country: Type.String({ description: 'ISO 3166-1 alpha-2 (Greece is GR).' }),
    vat_number: Type.Union([Type.String(), Type.Null()]),
    vat_number_check: Type.Union(
      [
        Type.Object({
          by: Type.Union([Type.Literal('check_digits'), Type.Literal('vies')]),
          at: Type.String({ format: 'date-time' }),
          reference: Type.Union([Type.String(), Type.Null()]),
        }),
        Type.Null(),
      ],
      {
        description:
          'The check the EU VAT number passed: its check digits, or VIES (the EU’s register) where the operator verifies with it. null: no EU number, or not verified yet because VIES did not answer; invoices carry VAT until it is verified.',
      },
    ),
    location_confirmed_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description:
        'When the operator confirmed a location outside the EU VAT area; until then invoices to it carry VAT.',
    }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { $id: 'BillingDetails', examples: [BILLING_DETAILS_EXAMPLE] },
);

const BillingDetailsBody = Type.Object(
  {
    company_name: Type.String({
      minLength: 1,
      maxLength: 200,
      description: 'The company invoiced (or your own name when buying privately).',
      examples: ['Example Analytics GmbH'],
    }),
    address_lines: Type.Array(Type.String({ maxLength: 120 }), {
      minItems: 1,
      maxItems: MAX_ADDRESS_LINES,
      description: 'Street, postal code and city, one line each.',
      examples: [['Friedrichstraße 1', '10117 Berlin']],
    }),
    country: Type.String({
      pattern: '^[A-Za-z]{2}$',
      description: 'ISO 3166-1 alpha-2 country code; Greece is GR.',
      examples: ['DE'],
    }),
    vat_number: Type.Optional(
      Type.Union([Type.String({ maxLength: 30 }), Type.Null()], {
        description:
          'The VAT identification number with its country prefix (EL for Greece, FR for Monaco); spaces, dots and hyphens are ignored. Checked against the form and the check digits of the country’s numbers, and with VIES where the operator enabled it. Empty or null: none.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const billingSchemas = [Subscription, Invoice, BillingDetails, Mandate];

/** PDF when Accept names it, JSON otherwise. */
function wantsPdf(accept: string | undefined): boolean {
  return accept !== undefined && /\bapplication\/pdf\b/i.test(accept);
}

export const billingRoutes: FastifyPluginAsyncTypebox<{
  subscriptions: SubscriptionService;
}> = async (app, opts) => {
  const { subscriptions } = opts;
  const tags = ['Billing'];
  const read = { auth: { access: 'account', scope: 'billing:read' } } as const;
  const write = { auth: { access: 'account', scope: 'billing:write' } } as const;

  app.get(
    '/api/v1/subscription',
    {
      schema: {
        operationId: 'getSubscription',
        tags,
        summary: 'The subscription',
        description: 'Plan, status, current period, scheduled change and balance.',
        response: { 200: Type.Ref('Subscription'), ...problemResponses(401, 403) },
      },
      config: read,
    },
    async (request) => subscriptions.view(request.principal.accountId as string),
  );

  app.post(
    '/api/v1/subscription',
    {
      schema: {
        operationId: 'changeSubscription',
        tags,
        summary: 'Subscribe, upgrade, downgrade or cancel',
        description:
          'From Free: subscribes now (monthly cycle anchored today), invoices the first month and returns the first API key (shown once). Upgrade: immediate, invoicing the prorated difference for the rest of the period. Downgrade, or `free` to cancel: at the end of the period; the plan stays until then. Enterprise is set by contract. A change that would issue an invoice needs the billing details first (409 `BILLING_DETAILS_REQUIRED`): no invoice is made out to an unnamed buyer.',
        body: Type.Object(
          { plan: StringEnum(['free', 'developer', 'business'] as const) },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object(
            {
              subscription: Type.Ref('Subscription'),
              invoices: Type.Array(Type.Ref('Invoice')),
              api_key: Type.Optional(Type.Ref('NewApiKey')),
            },
            { examples: [PLAN_CHANGE_EXAMPLE] },
          ),
          ...problemResponses(400, 401, 402, 403, 409),
        },
      },
      config: write,
    },
    async (request) => {
      if (request.principal.plan.id === 'enterprise') {
        throw new AppError(
          'CONFLICT',
          'Enterprise plans are changed through the contract; contact your account manager.',
        );
      }
      return subscriptions.change(request.principal, request.body.plan, request.ip);
    },
  );

  app.delete(
    '/api/v1/subscription',
    {
      schema: {
        operationId: 'cancelSubscription',
        tags,
        summary: 'Cancel at the end of the period',
        description: 'The paid plan stays until the period ends, then the account is on Free.',
        response: {
          200: Type.Object(
            { subscription: Type.Ref('Subscription'), invoices: Type.Array(Type.Ref('Invoice')) },
            { examples: [CANCELLATION_EXAMPLE] },
          ),
          ...problemResponses(401, 403, 409),
        },
      },
      config: write,
    },
    async (request) => {
      const { subscription, invoices } = await subscriptions.change(
        request.principal,
        'free',
        request.ip,
      );
      return { subscription, invoices };
    },
  );

  app.get(
    '/api/v1/invoices',
    {
      schema: {
        operationId: 'listInvoices',
        tags,
        summary: 'Invoices, oldest first',
        description: 'Amounts in euro cents.',
        response: {
          200: Type.Object(
            { data: Type.Array(Type.Ref('Invoice')) },
            { examples: [INVOICES_EXAMPLE] },
          ),
          ...problemResponses(401, 403),
        },
      },
      config: read,
    },
    async (request) => ({
      data: await subscriptions.invoices(request.principal.accountId as string),
    }),
  );

  app.get(
    '/api/v1/invoices/:id',
    {
      schema: {
        operationId: 'getInvoice',
        tags,
        summary: 'One invoice, as JSON or as a PDF',
        description:
          'With `Accept: application/pdf` the invoice as a PDF document to book: seller and buyer as they were when it was issued, number, dates, lines, VAT and total. Otherwise JSON. Another account’s invoice is 404.',
        params: Type.Object({ id: Type.String({ pattern: '^in_[A-Za-z0-9_-]{1,40}$' }) }),
        response: {
          200: {
            description: 'The invoice.',
            content: {
              'application/json': { schema: Type.Ref('Invoice') },
              'application/pdf': { schema: { type: 'string', format: 'binary' } },
            },
          },
          ...problemResponses(400, 401, 403, 404),
        },
      },
      config: read,
    },
    async (request, reply) => {
      const accountId = request.principal.accountId as string;
      if (!wantsPdf(request.headers.accept))
        return subscriptions.invoice(accountId, request.params.id);
      const pdf = await subscriptions.invoicePdf(accountId, request.params.id);
      return reply
        .header('content-type', 'application/pdf')
        .header('content-disposition', `attachment; filename="${pdf.fileName}"`)
        .header('cache-control', 'private, no-store')
        .send(Buffer.from(pdf.bytes));
    },
  );

  app.get(
    '/api/v1/account/billing-details',
    {
      schema: {
        operationId: 'getBillingDetails',
        tags,
        summary: 'Billing details: who invoices are made out to',
        description:
          'Company name, address, country and VAT number; `null` when none were given (invoices then name the account and charge VAT as for a consumer in the seller’s country).',
        response: {
          200: Type.Union([Type.Ref('BillingDetails'), Type.Null()], {
            examples: [BILLING_DETAILS_EXAMPLE],
          }),
          ...problemResponses(401, 403),
        },
      },
      config: read,
    },
    async (request) => subscriptions.details.get(request.principal.accountId as string),
  );

  app.put(
    '/api/v1/account/billing-details',
    {
      schema: {
        operationId: 'setBillingDetails',
        tags,
        summary: 'Set the billing details',
        description:
          'Applies to invoices issued from now on; an issued invoice keeps the details it was issued with. The VAT number must have the form of the country’s numbers with its prefix; a business in another EU country than the seller’s is invoiced without VAT under the reverse charge (docs/billing.md).',
        body: BillingDetailsBody,
        response: { 200: Type.Ref('BillingDetails'), ...problemResponses(400, 401, 403, 413, 415) },
      },
      config: write,
    },
    async (request) => subscriptions.details.set(request.principal, request.body, request.ip),
  );

  app.get(
    '/api/v1/billing/mandate',
    {
      schema: {
        operationId: 'getSepaMandate',
        tags,
        summary: 'The SEPA Direct Debit mandate',
        description:
          'The mandate in force (`null` if none), and the creditor and mandate texts to show before one is given. `offered` is false when the operator does not collect by direct debit.',
        response: { 200: MandateState, ...problemResponses(401, 403) },
      },
      config: read,
    },
    async (request) => subscriptions.mandates.get(request.principal.accountId as string),
  );

  app.put(
    '/api/v1/billing/mandate',
    {
      schema: {
        operationId: 'giveSepaMandate',
        tags,
        summary: 'Give a SEPA Direct Debit mandate',
        description: `Open invoices are then collected from the IBAN by SEPA Direct Debit (Core or B2B), each announced with the invoice e-mail (amount, mandate reference, creditor identifier, collection date). Replaces a mandate in force; the same IBAN, holder and scheme as the mandate in force answer it unchanged. At most ${MANDATES_PER_DAY} mandates in 24 hours (429 with Retry-After). The IBAN is stored encrypted and shown masked.`,
        body: MandateBody,
        response: {
          200: Type.Ref('SepaMandate'),
          ...problemResponses(400, 401, 403, 409, 415),
          429: {
            description: `More than ${MANDATES_PER_DAY} mandates in 24 hours; Retry-After says when the next is taken.`,
            content: { 'application/problem+json': { schema: Type.Ref('Problem') } },
          },
        },
      },
      config: write,
    },
    async (request) => subscriptions.mandates.give(request.principal, request.body, request.ip),
  );

  app.delete(
    '/api/v1/billing/mandate',
    {
      schema: {
        operationId: 'revokeSepaMandate',
        tags,
        summary: 'Revoke the SEPA Direct Debit mandate',
        description: 'Nothing more is collected under it; open invoices are then paid by transfer.',
        response: { 200: Type.Ref('SepaMandate'), ...problemResponses(401, 403, 404) },
      },
      config: write,
    },
    async (request) => subscriptions.mandates.revoke(request.principal, request.ip),
  );

  app.get(
    '/api/v1/balance',
    {
      schema: {
        operationId: 'getBalance',
        tags,
        summary: 'Account balance and its ledger',
        description:
          'Positive amounts are credit owed to the account (e.g. from a downgrade); negative ones are credit spent on invoices.',
        response: {
          200: Type.Object(
            {
              balance_cents: Type.Integer(),
              entries: Type.Array(
                Type.Object({
                  amount_cents: Type.Integer(),
                  reason: Type.String(),
                  invoice_id: Type.Union([Type.String(), Type.Null()]),
                  created_at: Type.String({ format: 'date-time' }),
                }),
              ),
            },
            { examples: [BALANCE_EXAMPLE] },
          ),
          ...problemResponses(401, 403),
        },
      },
      config: read,
    },
    async (request) => {
      const accountId = request.principal.accountId as string;
      const entries = await subscriptions.ledger(accountId);
      return {
        balance_cents: entries.reduce((sum, e) => sum + e.amountCents, 0),
        entries: entries.map((e) => ({
          amount_cents: e.amountCents,
          reason: e.reason,
          invoice_id: e.invoiceId,
          created_at: new Date(e.createdAt).toISOString(),
        })),
      };
    },
  );
};
