import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { actorOf } from '../auth/index.js';
import { problemResponses } from '../http/openapi-responses.js';
import { ACCOUNT_EXPORT_EXAMPLE, DELETION_EXAMPLE } from './deletion-examples.js';
import { DELETE_CONFIRMATION, exportFileName } from './deletion.js';
import type { AccountService } from './service.js';

const Rows = Type.Array(Type.Object({}, { additionalProperties: true }));
const RowOrNull = Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()]);

const ExportSchema = Type.Object(
  {
    exported_at: Type.String({ format: 'date-time' }),
    account: Type.Object({}, { additionalProperties: true }),
    api_keys: Rows,
    sessions: Rows,
    subscription: RowOrNull,
    billing_details: RowOrNull,
    invoices: Rows,
    invoice_lines: Rows,
    balance_ledger: Rows,
    usage_daily: Rows,
    webhooks: Rows,
    exports: Rows,
    custom_endpoints: Rows,
    support_requests: Rows,
    audit_log: Rows,
    sepa_mandates: Rows,
    retained_after_deletion: Type.Array(Type.String()),
  },
  { examples: [ACCOUNT_EXPORT_EXAMPLE] },
);

const DeletionSchema = Type.Object(
  {
    account_id: Type.String(),
    deleted_at: Type.String({ format: 'date-time' }),
    api_keys_revoked: Type.Integer(),
    sessions_ended: Type.Integer(),
    subscription_canceled: Type.Boolean(),
    invoices_voided: Type.Integer({
      description: 'Renewal invoices issued in advance for a period not begun.',
    }),
    invoices_kept: Type.Integer({ description: 'Invoices kept for tax law, paid or owed.' }),
    retained: Type.Array(Type.String(), { description: 'What is kept, how long and why.' }),
  },
  { examples: [DELETION_EXAMPLE] },
);

/** The account's data export and its deletion. */
export const accountDeletionRoutes: FastifyPluginAsyncTypebox<{
  accounts: AccountService;
}> = async (app, { accounts }) => {
  const tags = ['Account'];

  app.get(
    '/api/v1/account/export',
    {
      schema: {
        operationId: 'exportAccountData',
        tags,
        summary: 'Everything held about the account, as JSON',
        description:
          'The account, its API keys (metadata, never secrets), sessions, subscription, billing details, invoices, ledger, daily usage, webhooks and exports (without their secrets), custom endpoints, support requests, audit entries and SEPA Direct Debit mandates (the IBAN masked). Sent as an attachment; the export is recorded in the audit log.',
        response: { 200: ExportSchema, ...problemResponses(401, 403) },
      },
      config: { auth: { access: 'account', scope: 'account:read' } },
    },
    async (request, reply) => {
      const accountId = request.principal.accountId as string;
      const data = await accounts.exportData(accountId, actorOf(request.principal), request.ip);
      return reply
        .header(
          'content-disposition',
          `attachment; filename="${exportFileName(accountId, data.exported_at)}"`,
        )
        .header('cache-control', 'no-store')
        .send(data);
    },
  );

  app.post(
    '/api/v1/account/deletion',
    {
      schema: {
        operationId: 'deleteAccount',
        tags,
        summary: 'Delete the account',
        description: `Needs the account's password and \`confirm\` set to \`${DELETE_CONFIRMATION}\` (5 wrong passwords an hour, then 429). At once: every API key and session stops working, the subscription is canceled (no refund of the period under way; a renewal invoiced in advance for a period not begun is voided), webhooks, exports, custom endpoints, billing details and support requests are deleted, and the e-mail address, name and contacts are erased, so the address can sign up again. Kept, as \`retained\` says: invoices and payments for 10 years (tax law), the audit log, usage counts. Download the export first.`,
        body: Type.Object(
          {
            password: Type.String({ minLength: 1, maxLength: 256 }),
            confirm: Type.String({ maxLength: 20, examples: [DELETE_CONFIRMATION] }),
          },
          { additionalProperties: false },
        ),
        response: { 200: DeletionSchema, ...problemResponses(400, 401, 403, 429) },
      },
      config: { auth: { access: 'account', scope: 'account:write' } },
    },
    async (request) =>
      accounts.deleteAccount(
        request.principal.accountId as string,
        request.body,
        actorOf(request.principal),
        request.ip,
      ),
  );
};
