import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { AppError } from '../errors/index.js';
import { problemResponses } from '../http/openapi-responses.js';
import { StringEnum } from '../lib/string-enum.js';
import { SEVERITIES, type SupportService } from './service.js';

const RequestBody = Type.Object(
  {
    subject: Type.String({ minLength: 1, maxLength: 200 }),
    message: Type.String({ minLength: 1, maxLength: 10_000 }),
    severity: Type.Optional(StringEnum(SEVERITIES, { description: 'normal unless given.' })),
  },
  { additionalProperties: false },
);

const SupportRequest = Type.Object({
  id: Type.String(),
  priority: Type.String({ description: 'P1 Enterprise, P2 Business, P3 Developer.' }),
  response_target: Type.String(),
  created_at: Type.String({ format: 'date-time' }),
});

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
    async (request, reply) => {
      const accountId = request.principal.accountId;
      if (accountId === null) throw new AppError('UNAUTHENTICATED', 'Sign in first.');
      return reply.code(201).send(await support.submit(accountId, request.body));
    },
  );
};
