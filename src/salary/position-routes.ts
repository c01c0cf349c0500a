import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { COUNTRY_CODES } from '../catalog/index.js';
import { JOB_SLUGS, LEVELS } from '../catalog/index.js';
import { renderTable } from '../formats/index.js';
import { PAID_PLAN_SECURITY } from '../http/openapi.js';
import type { SpendRouteQuota } from '../http/quota.js';
import { StringEnum } from '../lib/string-enum.js';
import { FORMATS } from '../plans/index.js';
import { POSITION_EXAMPLE } from './examples.js';
import { negotiateFormat } from './format.js';
import { BANDS } from './position-model.js';
import { positionTable, type PayPositionService } from './position.js';
import { fileName, labelled, marked, sendRendered, type Labelling } from './render.js';
import { LOOKUP_AUTH, salaryResponses } from './routes.js';
import { SalaryMetaSchema } from './schemas.js';

export interface PositionRoutesOptions {
  positions: PayPositionService;
  spendRouteQuota: SpendRouteQuota;
  /** A white-label account's labelling (null: this service's own). */
  labelling?: (accountId: string | null) => Labelling | null;
}

export const PositionQuerySchema = Type.Object(
  {
    country: Type.String({
      description:
        'ISO 3166-1 alpha-2 code of an EU member state, case-insensitive (EL is accepted for Greece).',
      pattern: '^[A-Za-z]{2}$',
      examples: ['DE'],
    }),
    job: Type.String({
      description: 'Job category slug, see GET /api/v1/jobs.',
      pattern: '^[a-z0-9]+(-[a-z0-9]+)*$',
      maxLength: 64,
      examples: ['software-engineer'],
    }),
    level: StringEnum(LEVELS, { description: 'Seniority level.' }),
    year: Type.Optional(
      Type.Integer({
        minimum: 2000,
        maximum: 2100,
        description:
          "Year of the distribution; the dataset's current year when omitted. History depth depends on the plan.",
      }),
    ),
    salary: Type.Number({
      exclusiveMinimum: 0,
      maximum: 1_000_000_000,
      description: 'Gross annual salary, full-time equivalent, in `currency`.',
      examples: [72000],
    }),
    currency: Type.Optional(
      Type.String({
        pattern: '^[A-Za-z]{3}$',
        description:
          "Currency of `salary`: EUR (default) or the country's own currency that year (e.g. PLN, SEK), converted at the ECB annual average rate.",
      }),
    ),
    format: Type.Optional(
      StringEnum(FORMATS, {
        description: 'Response format; overrides the Accept header. JSON when omitted.',
      }),
    ),
  },
  { additionalProperties: false },
);

const PositionSchema = Type.Object({
  country: Type.String(),
  job: Type.String(),
  level: Type.String(),
  year: Type.Integer(),
  salary: Type.Number({ description: 'The salary as given, in `currency`.' }),
  currency: Type.String({
    description: 'Currency of `salary` only (`salary_currency` in the file formats).',
  }),
  salary_eur: Type.Integer({ description: 'The salary in EUR (ECB annual average rate).' }),
  percentile: Type.Number({
    minimum: 0.1,
    maximum: 99.9,
    description:
      'Share of the modelled distribution earning less, in percent (one decimal, 0.1–99.9).',
  }),
  band: StringEnum(BANDS, { description: 'The published percentiles that enclose the salary.' }),
  distribution: Type.Object(
    {
      currency: Type.Literal('EUR'),
      p10: Type.Integer(),
      p25: Type.Integer(),
      median: Type.Integer(),
      p75: Type.Integer(),
      p90: Type.Integer(),
      interpolation: Type.Literal('log-normal between published percentiles'),
      tails: Type.Literal('log-normal fitted to p10 and p90'),
      log_mean: Type.Number({ description: "Mean of ln(salary) of the tails' log-normal." }),
      log_sd: Type.Number({
        description: "Standard deviation of ln(salary) of the tails' log-normal.",
      }),
    },
    {
      description: 'The distribution the salary was placed in (EUR a year): docs/pay-position.md.',
    },
  ),
  local_currency: Type.String(),
  fx_rate: Type.Number({ description: 'Units of local currency per EUR that year.' }),
  basis: StringEnum(['published', 'interpolated', 'projected']),
  projected: Type.Boolean(),
  confidence: StringEnum(['high', 'medium', 'low'], { description: "The record's confidence." }),
});

export const PositionResponseSchema = Type.Object(
  {
    data: PositionSchema,
    meta: SalaryMetaSchema,
  },
  { examples: [POSITION_EXAMPLE] },
);

const okResponse = salaryResponses(
  'The position: JSON by default; CSV, Excel, XML or Parquet with format= or Accept, as the plan allows.',
  PositionResponseSchema,
);

export const positionRoutes: FastifyPluginAsyncTypebox<PositionRoutesOptions> = async (
  app,
  opts,
) => {
  const labellingOf = opts.labelling ?? (() => null);
  app.get(
    '/api/v1/salary/position',
    {
      schema: {
        operationId: 'getPayPosition',
        tags: ['Salary'],
        summary: 'Where a salary sits in the market (Developer and higher)',
        description:
          "The percentile of a gross annual salary within the modelled pay distribution of one country, job, level and year: log-normal between the published percentiles p10, p25, median, p75 and p90, and beyond p10 and p90 the log-normal fitted to them (docs/pay-position.md). Answers the percentile, the band of published percentiles around it, the distribution used and the record's confidence. Counts against the quota like a lookup.",
        querystring: PositionQuerySchema,
        response: okResponse,
        security: PAID_PLAN_SECURITY,
      },
      config: {
        allowedValues: { country: COUNTRY_CODES, job: JOB_SLUGS },
        auth: LOOKUP_AUTH,
        quota: { cost: 1 },
      },
    },
    async (request, reply) => {
      const q = request.query;
      const format = negotiateFormat(q.format, request.headers.accept);
      const result = opts.positions.position(q, request.principal, format);
      return opts.spendRouteQuota(request, reply, async () => {
        const labelling = labellingOf(request.principal.accountId);
        const shown = marked(
          { ...result, meta: labelled({ ...result, data: [], fields: [] }, labelling).meta },
          request.principal.mode === 'test',
        );
        if (format === 'json') return reply.send(shown);
        const d = result.data;
        const base = `salary-position-${d.country}-${d.job}-${d.level}-${d.year}`;
        return sendRendered(
          reply,
          await renderTable(format, positionTable(shown), fileName(shown, base, labelling)),
        );
      });
    },
  );
};
