import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { SpendRouteQuota } from '../http/quota.js';
import { problemResponses } from '../http/openapi-responses.js';
import { COUNTRIES, currentCurrency } from './countries.js';
import { JOBS, LEVELS, iscoMajorGroup } from './jobs.js';

const LEVEL_DESCRIPTIONS: Record<(typeof LEVELS)[number], string> = {
  junior: 'Early career: 1–3 years in the job (the entry of a pay scale).',
  mid: 'Established: 4–10 years in the job.',
  senior: 'Experienced: 11–20 years in the job.',
  lead: 'Most experienced: 21 years or more, or the top of a normal career on a pay scale.',
};

const CountriesResponse = Type.Object(
  {
    data: Type.Array(
      Type.Object({
        code: Type.String({ description: 'ISO 3166-1 alpha-2.' }),
        name: Type.String(),
        native_name: Type.String(),
        currency: Type.String({ description: 'Currency in use today (ISO 4217).' }),
        eurostat_code: Type.String({ description: 'Code in Eurostat tables (EL for Greece).' }),
      }),
    ),
  },
  {
    examples: [
      {
        data: [
          {
            code: 'AT',
            name: 'Austria',
            native_name: 'Österreich',
            currency: 'EUR',
            eurostat_code: 'AT',
          },
          {
            code: 'PL',
            name: 'Poland',
            native_name: 'Polska',
            currency: 'PLN',
            eurostat_code: 'PL',
          },
        ],
      },
    ],
  },
);

const JobsResponse = Type.Object(
  {
    data: Type.Array(
      Type.Object({
        slug: Type.String(),
        title: Type.String(),
        isco_code: Type.String({ description: 'Main ISCO-08 unit group.' }),
        isco_codes: Type.Array(Type.String(), {
          description:
            'Every ISCO-08 unit group the job covers, the main one first; the data sources are mapped to this definition.',
        }),
        isco_title: Type.String(),
        isco_major_group: Type.Integer({ minimum: 1, maximum: 9 }),
        sector: Type.String(),
      }),
    ),
    levels: Type.Array(Type.Object({ id: Type.String(), description: Type.String() })),
  },
  {
    examples: [
      {
        data: [
          {
            slug: 'software-engineer',
            title: 'Software engineer',
            isco_code: '2512',
            isco_codes: ['2512', '2514'],
            isco_title: 'Software developers',
            isco_major_group: 2,
            sector: 'information and communication',
          },
        ],
        levels: [{ id: 'senior', description: 'Experienced: 11–20 years in the job.' }],
      },
    ],
  },
);

/** The body of GET /api/v1/countries (also the MCP tool list_countries). */
export const COUNTRY_LIST = {
  data: COUNTRIES.map((c) => ({
    code: c.code,
    name: c.name,
    native_name: c.nativeName,
    currency: currentCurrency(c),
    eurostat_code: c.eurostatCode,
  })).sort((a, b) => a.code.localeCompare(b.code)),
};
/** The body of GET /api/v1/jobs (also the MCP tool list_jobs). */
export const JOB_LIST = {
  data: JOBS.map((j) => ({
    slug: j.slug,
    title: j.title,
    isco_code: j.iscoCode,
    isco_codes: [...j.iscoCodes],
    isco_title: j.iscoTitle,
    isco_major_group: iscoMajorGroup(j),
    sector: j.sector,
  })),
  levels: LEVELS.map((id) => ({ id, description: LEVEL_DESCRIPTIONS[id] })),
};

export const catalogRoutes: FastifyPluginAsyncTypebox<{
  spendRouteQuota: SpendRouteQuota;
}> = async (app, opts) => {
  const EmptyQuery = Type.Object({}, { additionalProperties: false });
  app.get(
    '/api/v1/countries',
    {
      schema: {
        operationId: 'listCountries',
        tags: ['Catalogue'],
        summary: 'The 27 EU member states covered',
        description:
          'ISO code, English and native name, and the currency in use today for each country. One of the three Free-plan endpoints; counts against the quota.',
        querystring: EmptyQuery,
        response: { 200: CountriesResponse, ...problemResponses(400, 401, 429) },
      },
      config: { auth: { access: 'data', scope: 'salary:read' }, quota: { cost: 1 } },
    },
    async (request, reply) => opts.spendRouteQuota(request, reply, () => COUNTRY_LIST),
  );
  app.get(
    '/api/v1/jobs',
    {
      schema: {
        operationId: 'listJobs',
        tags: ['Catalogue'],
        summary: 'The 21 job categories and the seniority levels',
        description:
          'Each job with its ISCO-08 unit group and major group, and the four seniority levels. One of the three Free-plan endpoints; counts against the quota.',
        querystring: EmptyQuery,
        response: { 200: JobsResponse, ...problemResponses(400, 401, 429) },
      },
      config: { auth: { access: 'data', scope: 'salary:read' }, quota: { cost: 1 } },
    },
    async (request, reply) => opts.spendRouteQuota(request, reply, () => JOB_LIST),
  );
};
