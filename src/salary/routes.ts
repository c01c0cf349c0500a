import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { COUNTRY_CODES } from '../catalog/countries.js';
import { JOB_SLUGS } from '../catalog/jobs.js';
import { MEDIA_TYPES, STREAM_ABOVE_ROWS, type RenderPool } from '../formats/index.js';
import { problemResponses } from '../http/openapi-responses.js';
import type { ConsumeQuota } from '../http/quota.js';
import type { CheapPathRoute } from '../http/fast-lookup.js';
import { EXTRA_FIELD_NAMES } from './fields.js';
import { negotiateFormat } from './format.js';
import { withSchemaFields } from './custom-schema.js';
import {
  JSON_TYPE,
  renderSalaryFile,
  renderSalaryJson,
  sendRendered,
  sendSalaryResult,
} from './respond.js';
import type { FileCache } from './file-cache.js';
import {
  BulkArchiveQuerySchema,
  BulkCountriesQuerySchema,
  BulkJobsQuerySchema,
  HistoryQuerySchema,
  SalaryQuerySchema,
  SalaryResponseSchema,
} from './schemas.js';
import type { PreparedSelection, Selection, SalaryService } from './service.js';
import type { DownloadGate } from './download-gate.js';
import type { SalaryMeta } from './schemas.js';
import type { Format } from '../plans/index.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RouteAuth } from '../auth/index.js';
import type { CustomSchema } from './custom-schema.js';

export interface SalaryRoutesOptions {
  salary: SalaryService;
  consumeQuota: ConsumeQuota;
  downloads: DownloadGate;
  /** Writes large files in worker threads. */
  renderer: RenderPool;
  /** Large files already written, per release. */
  files: FileCache;
}

const okResponse = {
  200: {
    description:
      'The figures: JSON by default; CSV, Excel, XML or Parquet with format= or Accept, as the plan allows.',
    content: {
      'application/json': { schema: SalaryResponseSchema },
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
/** The lookups' declaration; the lookup fast path in front of Fastify reads the same one. */
export const LOOKUP_AUTH = { access: 'data', scope: 'salary:read' } as const satisfies RouteAuth;
const BULK_AUTH = { access: 'data', scope: 'bulk:read' } as const satisfies RouteAuth;
const config = {
  allowedValues: { country: COUNTRY_CODES, job: JOB_SLUGS, fields: EXTRA_FIELD_NAMES },
  auth: LOOKUP_AUTH,
} as const;
/** The history is every year the plan reaches: the query plus this, on every path. */
const HISTORY_FIXED = { year: 'all' } as const;
/** The two lookups may be answered by the lookup fast path (plain JSON, same declaration). */
const lookupConfig = { ...config, cheapPath: {} } as const satisfies CheapPathRoute;
const historyConfig = {
  ...config,
  cheapPath: { fixed: HISTORY_FIXED },
} as const satisfies CheapPathRoute;

const yearOf = (raw: string | undefined): number | 'all' | undefined =>
  raw === undefined || raw === 'all' ? raw : Number(raw);
const suffix = (...parts: (string | number | undefined)[]): string =>
  parts
    .filter((p) => p !== undefined)
    .map((p) => `-${p}`)
    .join('');

export const salaryRoutes: FastifyPluginAsyncTypebox<SalaryRoutesOptions> = async (app, opts) => {
  const { salary, consumeQuota, downloads, renderer, files } = opts;

  /**
   * Select (validation and plan checks), spend quota, then answer in the negotiated format.
   * A cached standard JSON body with an in-process limiter is answered synchronously (no
   * promise on the hot path); everything else returns a promise.
   */
  function serve(
    request: FastifyRequest,
    reply: FastifyReply,
    selection: Selection & { format?: Format },
    filename: (meta: SalaryMeta) => string,
  ): undefined | Promise<void> {
    const feature = request.routeOptions.config.planFeature;
    const format = negotiateFormat(selection.format, request.headers.accept);
    const schema = request.principal.responseSchema;
    if (format === 'json' && schema === null) {
      const body = salary.standardJson(selection, request.principal, { feature });
      if (body !== undefined) {
        const spent = consumeQuota(request, reply);
        if (spent === undefined) {
          reply.type(JSON_TYPE).send(body);
          return undefined;
        }
        return spent.then(() => {
          reply.type(JSON_TYPE).send(body);
        });
      }
    }
    return serveSelection(request, reply, selection, format, filename);
  }

  async function serveSelection(
    request: FastifyRequest,
    reply: FastifyReply,
    selection: Selection,
    format: Format,
    filename: (meta: SalaryMeta) => string,
  ): Promise<void> {
    const feature = request.routeOptions.config.planFeature;
    const schema = request.principal.responseSchema;
    const fields = withSchemaFields(selection.fields, schema);
    const prepared = salary.prepare({ ...selection, fields }, request.principal, format, {
      feature,
    });
    if (prepared.expectedRows > STREAM_ABOVE_ROWS) {
      return serveLarge(request, reply, prepared, format, filename, schema);
    }
    const result = prepared.build();
    const spent = consumeQuota(request, reply);
    if (spent !== undefined) await spent;
    await sendSalaryResult(reply, result, format, filename(result.meta), schema);
  }

  /**
   * A large result: from the per-release cache, or written once (a file in a worker thread, JSON
   * a chunk per turn of the event loop) while the main thread goes on serving. Only a file still
   * to be written passes the download gate; refused there, a request costs nothing and spends
   * no quota.
   */
  async function serveLarge(
    request: FastifyRequest,
    reply: FastifyReply,
    prepared: PreparedSelection,
    format: Format,
    filename: (meta: SalaryMeta) => string,
    schema: CustomSchema | null,
  ): Promise<void> {
    const key = `${request.routeOptions.url}|${format}|${prepared.key}|${schema === null ? '' : JSON.stringify(schema.fields)}`;
    const cached = files.get(prepared.release, key);
    const leave =
      cached === undefined && format !== 'json'
        ? downloads.enter(request.principal.limitBucket)
        : undefined;
    let body = cached;
    try {
      const result = cached === undefined ? prepared.build() : undefined;
      const spent = consumeQuota(request, reply);
      if (spent !== undefined) await spent;
      body ??= files.getOrAdd(prepared.release, key, () =>
        format === 'json'
          ? renderSalaryJson(result!, schema)
          : renderSalaryFile(renderer, result!, format, filename(result!.meta), schema),
      );
    } catch (error) {
      leave?.();
      throw error;
    }
    if (leave !== undefined) body.then(leave, leave);
    sendRendered(reply, await body);
  }

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
      config: lookupConfig,
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
        response: okResponse,
      },
      config: historyConfig,
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
  const bulkConfig = { ...config, auth: BULK_AUTH, planFeature: 'bulk' } as const;
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
