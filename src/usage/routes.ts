import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { problemResponses } from '../http/openapi-responses.js';
import { StringEnum } from '../lib/string-enum.js';
import { USAGE_EXAMPLE } from './examples.js';
import type { UsageService } from './service.js';

const Counts = Type.Record(Type.String(), Type.Integer());

export const usageRoutes: FastifyPluginAsyncTypebox<{ usage: UsageService }> = async (
  app,
  { usage },
) => {
  app.get(
    '/api/v1/usage',
    {
      schema: {
        operationId: 'getUsage',
        tags: ['Usage'],
        summary: 'Requests per hour or day, by endpoint, status and key, and today’s quota',
        description:
          'Developer plan and above. Counts every API request of the account; the last few seconds may come from other instances with a delay of up to the flush interval.',
        querystring: Type.Object(
          {
            from: Type.Optional(
              Type.String({
                pattern: '^\\d{4}-\\d{2}-\\d{2}$',
                description: 'First UTC day (default: 6 days ago).',
              }),
            ),
            to: Type.Optional(
              Type.String({
                pattern: '^\\d{4}-\\d{2}-\\d{2}$',
                description: 'Last UTC day, inclusive (default: today).',
              }),
            ),
            granularity: Type.Optional(StringEnum(['hour', 'day'] as const)),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object(
            {
              from: Type.String({ format: 'date-time' }),
              to: Type.String({ format: 'date-time' }),
              granularity: Type.String(),
              total: Type.Integer(),
              series: Type.Array(
                Type.Object({
                  start: Type.String({ format: 'date-time' }),
                  requests: Type.Integer(),
                  errors: Type.Integer(),
                }),
              ),
              by_endpoint: Counts,
              by_status: Counts,
              by_key: Counts,
              quota: Type.Object({
                limit: Type.Union([Type.Integer(), Type.Null()]),
                used: Type.Union([Type.Integer(), Type.Null()]),
                remaining: Type.Union([Type.Integer(), Type.Null()]),
                window: Type.Union([Type.String(), Type.Null()]),
                resets_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
              }),
            },
            { examples: [USAGE_EXAMPLE] },
          ),
          ...problemResponses(400, 401, 403),
        },
      },
      config: { auth: { access: 'account', scope: 'usage:read' } },
    },
    async (request) => usage.report(request.principal, request.query),
  );
};
