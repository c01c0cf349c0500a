import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { COUNTRY_CODES } from '../catalog/countries.js';
import { JOB_SLUGS } from '../catalog/jobs.js';
import type { ConsumeQuota } from '../http/quota.js';
import { problemResponses } from '../http/openapi-responses.js';
import { MEDIA_TYPES, renderTable } from '../formats/index.js';
import { negotiateFormat } from './format.js';
import { salaryTable } from './table.js';
import { SalaryQuerySchema, SalaryResponseSchema } from './schemas.js';
import type { SalaryService } from './service.js';

const fileResponses = Object.fromEntries(
  (['csv', 'xlsx', 'xml', 'parquet'] as const).map((f) => [
    MEDIA_TYPES[f],
    { schema: { type: 'string', format: f === 'csv' || f === 'xml' ? undefined : 'binary' } },
  ]),
);

export interface SalaryRoutesOptions {
  salary: SalaryService;
  consumeQuota: ConsumeQuota;
}

export const salaryRoutes: FastifyPluginAsyncTypebox<SalaryRoutesOptions> = async (app, opts) => {
  const { salary, consumeQuota } = opts;
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
        response: {
          200: {
            description:
              'The figures: JSON by default; CSV, Excel, XML or Parquet with format= or Accept, as the plan allows.',
            content: { 'application/json': { schema: SalaryResponseSchema }, ...fileResponses },
          },
          ...problemResponses(400, 401, 403, 404, 406, 429, 503),
        },
      },
      config: { allowedValues: { country: COUNTRY_CODES, job: JOB_SLUGS }, scope: 'salary:read' },
    },
    async (request, reply) => {
      const format = negotiateFormat(request.query.format, request.headers.accept);
      const body = salary.lookup(request.query, request.principal, format);
      await consumeQuota(request, reply);
      if (format === 'json') return body;
      const { country, job, year } = body.meta;
      const level = request.query.level === undefined ? '' : `-${request.query.level}`;
      const file = await renderTable(format, salaryTable(body), {
        base: `salary-${country.code}-${job.slug}${level}-${year}`,
        root: 'salaries',
        attributes: { release: body.meta.release.version },
      });
      return (
        reply
          .type(file.contentType)
          .header('content-disposition', `attachment; filename="${file.filename}"`)
          // A file body: the typed reply only knows the JSON schema of this status.
          .send(file.body as never)
      );
    },
  );
};
