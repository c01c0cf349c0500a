import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { LEVELS } from '../catalog/index.js';
import { AppError } from '../errors/index.js';
import { jsonAnswer, problemResponses } from '../http/openapi-responses.js';
import { StringEnum } from '../lib/string-enum.js';
import { assertPlanHas, FORMATS, type Plan, type PlanId } from '../plans/index.js';
import {
  salaryResponses,
  type SalaryDataStore,
  type SalaryMeta,
  type SalaryResponder,
  VintageQuery,
} from '../salary/index.js';

import { narrow } from './narrow.js';
import { customOpenApi, type OpenApiLabel } from './openapi.js';
import { CustomQuerySchema, MAX_CUSTOM_ENDPOINTS, PARAMETER_NAMES, SLUG_PATTERN } from './query.js';
import type { CustomEndpointRegistry } from './registry.js';
import type { CustomEndpointService } from './service.js';
import {
  CUSTOM_ENDPOINT_EXAMPLE,
  CUSTOM_ENDPOINT_LIST_EXAMPLE,
  NEW_CUSTOM_ENDPOINT_EXAMPLE,
} from './examples.js';
import { CUSTOM_OPENAPI_EXAMPLE } from './openapi-example.js';

export interface CustomEndpointRoutesOptions {
  service: CustomEndpointService;
  registry: CustomEndpointRegistry;
  responder: SalaryResponder;
  data: SalaryDataStore;
  plans: Readonly<Record<PlanId, Plan>>;
  /** The server URL of the account's OpenAPI document. */
  baseUrl: string;
  /** The name the account's OpenAPI document is titled with (a licensee's), if any. */
  label: (accountId: string) => OpenApiLabel | null;
}

/** The fields the API and the dashboard's form check alike. */
export const CustomEndpointSlugSchema = Type.String({
  pattern: SLUG_PATTERN,
  minLength: 1,
  maxLength: 64,
  description: 'Lower-case letters and digits in hyphen-separated words, e.g. `nordic-engineers`.',
});
export const CustomEndpointDescriptionSchema = Type.String({ maxLength: 500 });
const Body = Type.Object(
  {
    slug: CustomEndpointSlugSchema,
    description: Type.Optional(CustomEndpointDescriptionSchema),
    query: CustomQuerySchema,
    parameters: Type.Optional(
      Type.Array(StringEnum(PARAMETER_NAMES), {
        uniqueItems: true,
        maxItems: PARAMETER_NAMES.length,
        description:
          'Which of country, job, level, year and format a caller may pass, each narrowing within the saved values.',
      }),
    ),
  },
  { additionalProperties: false },
);
const View = Type.Object(
  {
    id: Type.String(),
    slug: Type.String(),
    path: Type.String({ description: 'Where it is published, for this account’s credentials.' }),
    description: Type.String(),
    query: CustomQuerySchema,
    parameters: Type.Array(StringEnum(PARAMETER_NAMES)),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { examples: [CUSTOM_ENDPOINT_EXAMPLE] },
);
const IdParams = Type.Object({ id: Type.String({ maxLength: 64 }) });
const WRITE = { auth: { access: 'account', scope: 'account:write' } } as const;
const READ = { auth: { access: 'account', scope: 'account:read' } } as const;
const tags = ['Custom endpoints'];

const okResponse = salaryResponses(
  'The saved query’s figures (narrowed by the parameters it leaves open), with the account’s custom schema applied.',
);

const suffix = (...parts: (string | undefined)[]): string =>
  parts
    .filter((p) => p !== undefined)
    .map((p) => `-${p}`)
    .join('');

/** CRUD of an account's custom endpoints, the endpoints themselves and their OpenAPI document. */
export const customEndpointRoutes: FastifyPluginAsyncTypebox<CustomEndpointRoutesOptions> = async (
  app,
  opts,
) => {
  const { service, registry, responder, data, plans } = opts;

  app.get(
    '/api/v1/custom-endpoints',
    {
      schema: {
        operationId: 'listCustomEndpoints',
        tags,
        summary: 'The account’s custom endpoints (Enterprise)',
        description: `Saved queries published at /api/v1/custom/{slug}; at most ${MAX_CUSTOM_ENDPOINTS} per account.`,
        response: {
          200: Type.Object(
            { data: Type.Array(View) },
            { examples: [CUSTOM_ENDPOINT_LIST_EXAMPLE] },
          ),
          ...problemResponses(401, 403),
        },
      },
      config: READ,
    },
    async (request) => ({ data: service.list(request.principal) }),
  );

  app.post(
    '/api/v1/custom-endpoints',
    {
      schema: {
        operationId: 'createCustomEndpoint',
        tags,
        summary: 'Publish a saved query as a custom endpoint (Enterprise)',
        description:
          'Lists omitted in `query` mean all. `parameters` names what a caller may still pass per request; everything else is fixed. Slugs are unique per account.',
        body: Body,
        response: {
          201: jsonAnswer(View, NEW_CUSTOM_ENDPOINT_EXAMPLE),
          ...problemResponses(400, 401, 403, 409),
        },
      },
      config: WRITE,
    },
    async (request, reply) => {
      const view = await service.create(request.principal, request.body, request.ip);
      return reply.code(201).header('location', `/api/v1/custom-endpoints/${view.id}`).send(view);
    },
  );

  app.get(
    '/api/v1/custom-endpoints/:id',
    {
      schema: {
        operationId: 'getCustomEndpointDefinition',
        tags,
        summary: 'One custom endpoint’s definition (Enterprise)',
        description: 'The saved query, the open parameters and where it is published.',
        params: IdParams,
        response: { 200: View, ...problemResponses(401, 403, 404) },
      },
      config: READ,
    },
    async (request) => service.get(request.principal, request.params.id),
  );

  app.put(
    '/api/v1/custom-endpoints/:id',
    {
      schema: {
        operationId: 'replaceCustomEndpoint',
        tags,
        summary: 'Replace a custom endpoint’s definition (Enterprise)',
        description: 'Takes effect on every instance within a second.',
        params: IdParams,
        body: Body,
        response: { 200: View, ...problemResponses(400, 401, 403, 404, 409) },
      },
      config: WRITE,
    },
    async (request) =>
      service.update(request.principal, request.params.id, request.body, request.ip),
  );

  app.delete(
    '/api/v1/custom-endpoints/:id',
    {
      schema: {
        operationId: 'deleteCustomEndpoint',
        tags,
        summary: 'Delete a custom endpoint (Enterprise)',
        description: 'Its path answers 404 on every instance within a second.',
        params: IdParams,
        response: {
          204: { type: 'null', description: 'Deleted.' },
          ...problemResponses(401, 403, 404),
        },
      },
      config: WRITE,
    },
    async (request, reply) => {
      await service.remove(request.principal, request.params.id, request.ip);
      return reply.code(204).send();
    },
  );

  app.get(
    '/api/v1/custom/openapi.json',
    {
      schema: {
        operationId: 'getCustomOpenApi',
        tags,
        summary: 'An OpenAPI 3.1 document of the account’s custom endpoints (Enterprise)',
        description:
          'Every custom endpoint of the calling account with its open parameters (their allowed values as enums) and response shapes (the custom schema’s field names): input for a code generator.',
        response: {
          200: {
            description: 'The OpenAPI document.',
            content: {
              'application/json': { schema: { type: 'object' }, example: CUSTOM_OPENAPI_EXAMPLE },
            },
          },
          ...problemResponses(401, 403),
        },
      },
      config: READ,
    },
    async (request, reply) => {
      const principal = request.principal;
      assertPlanHas(plans, principal.plan, (p) => p.customEndpoints, 'Custom endpoints');
      const accountId = principal.accountId as string;
      const document = customOpenApi({
        endpoints: registry.list(accountId),
        plan: principal.plan,
        schema: principal.responseSchema,
        known: data.index,
        baseUrl: opts.baseUrl,
        label: opts.label(accountId),
      });
      return reply.type('application/json; charset=utf-8').send(JSON.stringify(document));
    },
  );

  app.get(
    '/api/v1/custom/:slug',
    {
      schema: {
        operationId: 'getCustomEndpoint',
        tags,
        summary: 'A custom endpoint of the calling account (Enterprise)',
        description:
          'Answers the saved query in every format the plan has, with the account’s custom schema applied; large results are written once per data release and streamed. Another account’s slug is 404. Counted in quota and usage as `GET /api/v1/custom/{slug}` with the slug itself.',
        params: Type.Object({ slug: Type.String({ maxLength: 64 }) }),
        querystring: Type.Object(
          {
            country: Type.Optional(Type.String({ pattern: '^[A-Za-z]{2}$' })),
            job: Type.Optional(Type.String({ pattern: SLUG_PATTERN, maxLength: 64 })),
            level: Type.Optional(StringEnum(LEVELS)),
            year: Type.Optional(Type.String({ pattern: '^[0-9]{4}$' })),
            format: Type.Optional(StringEnum(FORMATS)),
            ...VintageQuery,
          },
          { additionalProperties: false },
        ),
        response: okResponse,
      },
      // The saved query may be as large as a bulk file: judged by its status alone (docs/sla.md).
      config: {
        auth: { access: 'data', scope: 'salary:read' },
        quota: { cost: 1 },
        sla: { timed: false },
      },
    },
    (request, reply) => {
      const principal = request.principal;
      const name = request.params.slug;
      const endpoint =
        principal.accountId === null ? undefined : registry.find(principal.accountId, name);
      if (endpoint === undefined) {
        throw new AppError('NOT_FOUND', `There is no custom endpoint ${name} for this account.`);
      }
      assertPlanHas(plans, principal.plan, (p) => p.customEndpoints, 'Custom endpoints');
      request.usageEndpoint = `GET /api/v1/custom/${endpoint.slug}`;
      const index = data.index;
      const q = request.query;
      const { selection, format } = narrow(
        endpoint.query,
        endpoint.parameters,
        q,
        request.headers.accept,
        principal.plan,
        index === undefined ? undefined : { currentYear: index.currentYear, years: index.years },
      );
      const years = (m: SalaryMeta): string =>
        m.year !== undefined ? String(m.year) : `${m.years?.[0]}-${m.years?.at(-1)}`;
      const vintage = {
        ...(q.release === undefined ? {} : { release: q.release }),
        ...(q.as_of === undefined ? {} : { as_of: q.as_of }),
      };
      return responder.serveSelection(
        request,
        reply,
        { ...selection, ...vintage },
        format,
        (m) => `${endpoint.slug}${suffix(q.country?.toUpperCase(), q.job, q.level)}-${years(m)}`,
      );
    },
  );
};
