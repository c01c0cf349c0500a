import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { actorOf } from '../auth/index.js';
import { AppError } from '../errors/index.js';
import { problemResponses } from '../http/openapi-responses.js';
import { StringEnum } from '../lib/string-enum.js';
import { CONTACTS_EXAMPLE, SUPPORT_REQUEST_EXAMPLE } from './examples.js';
import { SEVERITIES, type SupportService } from './service.js';

const RequestBody = Type.Object(
  {
    subject: Type.String({ minLength: 1, maxLength: 200 }),
    message: Type.String({ minLength: 1, maxLength: 10_000 }),
    severity: Type.Optional(StringEnum(SEVERITIES, { description: 'normal unless given.' })),
  },
  { additionalProperties: false },
);

const SupportRequest = Type.Object(
  {
    id: Type.String(),
    priority: Type.String({ description: 'P1 Enterprise, P2 Business, P3 Developer.' }),
    response_target: Type.String(),
    created_at: Type.String({ format: 'date-time' }),
  },
  { examples: [SUPPORT_REQUEST_EXAMPLE] },
);

const Address = Type.Union([Type.String({ format: 'email', maxLength: 254 }), Type.Null()]);

const ContactsBody = Type.Object(
  {
    name: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 200 }), Type.Null()])),
    billing_email: Type.Optional(Address),
    technical_email: Type.Optional(Address),
    notices_opt_out: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, minProperties: 1 },
);

const Contacts = Type.Object(
  {
    name: Type.Union([Type.String(), Type.Null()], {
      description: 'Greets the account in e-mail.',
    }),
    billing_email: Type.Union([Type.String(), Type.Null()], {
      description: 'Billing notices; the account e-mail when null.',
    }),
    technical_email: Type.Union([Type.String(), Type.Null()], {
      description: 'Technical and security notices; the account e-mail when null.',
    }),
    notices_opt_out: Type.Boolean({ description: 'No notices but billing and security ones.' }),
    support: Type.Object({
      channel: Type.String(),
      response_target: Type.Union([Type.String(), Type.Null()]),
      community_url: Type.Optional(Type.String()),
      account_manager: Type.Optional(
        Type.Object({ name: Type.Union([Type.String(), Type.Null()]), email: Type.String() }),
      ),
    }),
  },
  { examples: [CONTACTS_EXAMPLE] },
);

const accountOf = (principal: { accountId: string | null }): string => {
  if (principal.accountId === null) throw new AppError('UNAUTHENTICATED', 'Sign in first.');
  return principal.accountId;
};

export const supportRoutes: FastifyPluginAsyncTypebox<{ support: SupportService }> = async (
  app,
  { support },
) => {
  app.post(
    '/api/v1/support/requests',
    {
      schema: {
        operationId: 'createSupportRequest',
        tags: ['Account'],
        summary: 'Ask support',
        description:
          'Developer plan and above; mailed to support with the priority of the plan, and confirmed to the account by e-mail. Free accounts get 403 naming the community channel. At most 10 requests per account per day (429).',
        body: RequestBody,
        response: { 201: SupportRequest, ...problemResponses(400, 401, 403, 429) },
      },
      config: { auth: { access: 'account', scope: 'account:write' } },
    },
    async (request, reply) =>
      reply.code(201).send(await support.submit(accountOf(request.principal), request.body)),
  );

  app.get(
    '/api/v1/account/contacts',
    {
      schema: {
        operationId: 'getAccountContacts',
        tags: ['Account'],
        summary: 'Notice addresses, opt-out and support channel',
        description:
          'Where billing and technical e-mail goes, the opt-out, and the support channel and response target of the plan (with the account manager for Enterprise).',
        response: { 200: Contacts, ...problemResponses(401, 403) },
      },
      config: { auth: { access: 'account', scope: 'account:read' } },
    },
    async (request) => support.contacts(accountOf(request.principal)),
  );

  app.patch(
    '/api/v1/account/contacts',
    {
      schema: {
        operationId: 'updateAccountContacts',
        tags: ['Account'],
        summary: 'Set notice addresses, name and opt-out',
        description:
          'null resets an address to the account e-mail. The opt-out silences every notice but billing and security ones.',
        body: ContactsBody,
        response: { 200: Contacts, ...problemResponses(400, 401, 403) },
      },
      config: { auth: { access: 'account', scope: 'account:write' } },
    },
    async (request) =>
      support.updateContacts(accountOf(request.principal), request.body, {
        actor: actorOf(request.principal),
        ip: request.ip,
      }),
  );
};
