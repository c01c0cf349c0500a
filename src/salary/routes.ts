import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { COUNTRY_CODES } from '../catalog/index.js';
import { JOB_SLUGS } from '../catalog/index.js';
import { MEDIA_TYPES } from '../formats/index.js';
import { problemResponses } from '../http/openapi-responses.js';
import type { QuotaDeclaration } from '../http/quota.js';
import { HISTORY_EXAMPLE } from './examples.js';
import { EXTRA_FIELD_NAMES } from './fields.js';
import type { SalaryResponder } from './responder.js';
import {
  BulkArchiveQuerySchema,
  BulkCountriesQuerySchema,
  BulkJobsQuerySchema,
  HistoryQuerySchema,
  SalaryQuerySchema,
  SalaryResponseSchema,
} from './schemas.js';
import type { RouteAuth } from '../auth/index.js';

export interface SalaryRoutesOptions {
  /** Answers a selection in every format the plan allows (shared with the custom endpoints). */
  responder: SalaryResponder;
}

/**
 * The responses of a route answering salary figures in every format a plan may have: the
 * salary routes', the custom endpoints' and the pay position's (their own 200 description and,
 * for the position, its own JSON body; for the history, its own example).
 */
export function salaryResponses<S extends object = typeof SalaryResponseSchema>(
  description: string,
  json: S = SalaryResponseSchema as unknown as S,
  example?: unknown,
) {
  return {
    200: {
      description,
      content: {
        'application/json': { schema: json, ...(example === undefined ? {} : { example }) },
        ...Object.fromEntries(
          (['csv', 'xlsx', 'xml', 'parquet'] as const).map((f) => [
            MEDIA_TYPES[f],
            {
              schema:
                f === 'csv' || f === 'xml'
                  ? { type: 'string' }
                  : { type: 'string', format: 'binary' },
            },
          ]),
        ),
      },
    },
    ...problemResponses(400, 401, 403, 404, 406, 429, 503),
  };
}

const FIGURES =
  'The figures: JSON by default; CSV, Excel, XML or Parquet with format= or Accept, as the plan allows.';
const okResponse = salaryResponses(FIGURES);
export const LOOKUP_AUTH = { access: 'data', scope: 'salary:read' } as const satisfies RouteAuth;
const BULK_AUTH = { access: 'data', scope: 'bulk:read' } as const satisfies RouteAuth;
/**
 * What a request to any salary route, bulk ones included, spends of the plan's request limit
 * (docs/architecture.md); an export run spends what the bulk request it equals would.
 */
export const SALARY_QUOTA = { cost: 1 } as const satisfies QuotaDeclaration;
const config = {
  allowedValues: { country: COUNTRY_CODES, job: JOB_SLUGS, fields: EXTRA_FIELD_NAMES },
  auth: LOOKUP_AUTH,
  quota: SALARY_QUOTA,
} as const;
/** The history is every year the plan reaches: the query plus this. */
const HISTORY_FIXED = { year: 'all' } as const;

const yearOf = (raw: string | undefined): number | 'all' | undefined =>
  raw === undefined || raw === 'all' ? raw : Number(raw);
const suffix = (...parts: (string | number | undefined)[]): string =>
  parts
    .filter((p) => p !== undefined)
    .map((p) => `-${p}`)
    .join('');

export const salaryRoutes: FastifyPluginAsyncTypebox<SalaryRoutesOptions> = async (app, opts) => {
  const { responder } = opts;
  const serve: typeof responder.serve = (...args) => responder.serve(...args);

  app.get(
    '/api/v1/salary',
    {
      schema: {
        operationId: 'getSalary',
        tags: ['Salary'],
        summary: 'Salary percentiles for a country and job',
        description:
          'Gross annual pay (full-time equivalent, EUR) for one country and job category, per seniority level. Every figure is modelled from published statistics; `meta` names the release, the method and the sources. Available on every plan: without credentials on the Free plan (JSON, current year, 100 requests per hour per address).',
        querystring: SalaryQuerySchema,
        response: okResponse,
      },
      config,
    },
    (request, reply) => {
      const q = request.query;
      return serve(
        request,
        reply,
        q,
        (m) => `salary-${m.country?.code}-${q.job}${suffix(q.level)}-${m.year}`,
      );
    },
  );

  app.get(
    '/api/v1/salary/history',
    {
      schema: {
        operationId: 'getSalaryHistory',
        tags: ['Salary'],
        summary: 'The time series of a country and job, as far back as the plan reaches',
        description:
          'Every year from the earliest the plan reaches to the current year: Free the current year, Developer 1 year back, Business 3, Enterprise the full archive from 2014.',
        querystring: HistoryQuerySchema,
        response: salaryResponses(FIGURES, SalaryResponseSchema, HISTORY_EXAMPLE),
      },
      config,
    },
    (request, reply) => {
      const q = request.query;
      return serve(
        request,
        reply,
        { ...q, ...HISTORY_FIXED },
        (m) => `salary-history-${m.country?.code}-${q.job}${suffix(q.level)}`,
      );
    },
  );

  const bulk = { tags: ['Bulk'], response: okResponse };
  // A bulk file's time grows with what was asked for: judged by its status alone (docs/sla.md).
  const bulkConfig = {
    ...config,
    auth: BULK_AUTH,
    planFeature: 'bulk',
    sla: { timed: false },
  } as const;
  app.get(
    '/api/v1/bulk/countries',
    {
      schema: {
        ...bulk,
        operationId: 'bulkCountries',
        summary: 'One job in all 27 countries (Business and Enterprise)',
        description:
          'Every country for one job; `year=all` for every year the plan reaches. Large results are written once per data release and then served from memory.',
        querystring: BulkCountriesQuerySchema,
      },
      config: bulkConfig,
    },
    (request, reply) => {
      const q = request.query;
      const selection = { ...q, year: yearOf(q.year) };
      return serve(
        request,
        reply,
        selection,
        (m) => `salary-all-countries-${q.job}${suffix(q.level, q.year ?? m.year)}`,
      );
    },
  );

  app.get(
    '/api/v1/bulk/jobs',
    {
      schema: {
        ...bulk,
        operationId: 'bulkJobs',
        summary: 'All 21 jobs in one country (Business and Enterprise)',
        description:
          'Every job for one country; `year=all` for every year the plan reaches. Large results are written once per data release and then served from memory.',
        querystring: BulkJobsQuerySchema,
      },
      config: bulkConfig,
    },
    (request, reply) => {
      const q = request.query;
      const selection = { ...q, year: yearOf(q.year) };
      return serve(
        request,
        reply,
        selection,
        (m) => `salary-${m.country?.code}-all-jobs${suffix(q.level, q.year ?? m.year)}`,
      );
    },
  );

  app.get(
    '/api/v1/bulk/archive',
    {
      schema: {
        ...bulk,
        operationId: 'bulkArchive',
        summary: 'Every country and job (Business and Enterprise)',
        description:
          'All 27 countries × 21 jobs × 4 levels for one year, or with `year=all` every year the plan reaches (Enterprise: the full archive from 2014). Written once per data release and then served from memory.',
        querystring: BulkArchiveQuerySchema,
      },
      config: bulkConfig,
    },
    (request, reply) => {
      const q = request.query;
      const selection = { ...q, year: yearOf(q.year) };
      return serve(
        request,
        reply,
        selection,
        (m) => `salary-archive${suffix(q.level, q.year ?? m.year)}`,
      );
    },
  );
};
