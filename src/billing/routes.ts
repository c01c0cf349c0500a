import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { AppError } from '../errors/index.js';
import { problemResponses } from '../http/openapi-responses.js';
import { StringEnum } from '../lib/string-enum.js';
import type { Db } from '../store/index.js';
import { publicInvoice } from './invoicing.js';
import * as repo from './repo.js';
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
  { $id: 'Subscription' },
);

const Line = Type.Object({
  kind: Type.String(),
  description: Type.String(),
  amount_cents: Type.Integer(),
  period_start: Type.String({ format: 'date-time' }),
  period_end: Type.String({ format: 'date-time' }),
});
const Invoice = Type.Object(
  {
    id: Type.String(),
    number: Type.Integer(),
    status: StringEnum(['open', 'paid', 'void', 'uncollectible']),
    currency: Type.String(),
    period_start: Type.String({ format: 'date-time' }),
    period_end: Type.String({ format: 'date-time' }),
    lines: Type.Array(Line),
    subtotal_cents: Type.Integer(),
    balance_applied_cents: Type.Integer(),
    amount_due_cents: Type.Integer(),
    created_at: Type.String({ format: 'date-time' }),
    due_at: Type.String({ format: 'date-time' }),
    paid_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  },
  { $id: 'Invoice' },
);

export const billingSchemas = [Subscription, Invoice];

export const billingRoutes: FastifyPluginAsyncTypebox<{
  subscriptions: SubscriptionService;
  db: Db;
}> = async (app, opts) => {
  const { subscriptions, db } = opts;
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
          'From Free: subscribes now (monthly cycle anchored today), invoices the first month and returns the first API key (shown once). Upgrade: immediate, invoicing the prorated difference for the rest of the period. Downgrade, or `free` to cancel: at the end of the period; the plan stays until then. Enterprise is set by contract.',
        body: Type.Object(
          { plan: StringEnum(['free', 'developer', 'business'] as const) },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            subscription: Type.Ref('Subscription'),
            invoices: Type.Array(Type.Ref('Invoice')),
            api_key: Type.Optional(Type.Ref('NewApiKey')),
          }),
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
          200: Type.Object({
            subscription: Type.Ref('Subscription'),
            invoices: Type.Array(Type.Ref('Invoice')),
          }),
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
          200: Type.Object({ data: Type.Array(Type.Ref('Invoice')) }),
          ...problemResponses(401, 403),
        },
      },
      config: read,
    },
    async (request) => ({
      data: (await repo.listInvoices(db, request.principal.accountId as string)).map(publicInvoice),
    }),
  );

  app.get(
    '/api/v1/invoices/:id',
    {
      schema: {
        operationId: 'getInvoice',
        tags,
        summary: 'One invoice',
        description: 'Another account’s invoice is 404.',
        params: Type.Object({ id: Type.String({ pattern: '^in_[A-Za-z0-9_-]{1,40}$' }) }),
        response: { 200: Type.Ref('Invoice'), ...problemResponses(400, 401, 403, 404) },
      },
      config: read,
    },
    async (request) => {
      const invoice = await repo.findInvoice(
        db,
        request.params.id,
        request.principal.accountId as string,
      );
      if (invoice === undefined)
        throw new AppError('NOT_FOUND', `No invoice ${request.params.id} on this account.`);
      return publicInvoice(invoice);
    },
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
          200: Type.Object({
            balance_cents: Type.Integer(),
            entries: Type.Array(
              Type.Object({
                amount_cents: Type.Integer(),
                reason: Type.String(),
                invoice_id: Type.Union([Type.String(), Type.Null()]),
                created_at: Type.String({ format: 'date-time' }),
              }),
            ),
          }),
          ...problemResponses(401, 403),
        },
      },
      config: read,
    },
    async (request) => {
      const accountId = request.principal.accountId as string;
      const entries = await repo.ledger(db, accountId);
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
