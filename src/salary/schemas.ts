import { Type, type Static } from '@sinclair/typebox';
import { LEVELS } from '../catalog/jobs.js';
import { StringEnum } from '../lib/string-enum.js';
import { FORMATS } from '../plans/index.js';

export const SalaryQuerySchema = Type.Object(
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
    level: Type.Optional(
      StringEnum(LEVELS, { description: 'Seniority level; every level when omitted.' }),
    ),
    year: Type.Optional(
      Type.Integer({
        minimum: 2000,
        maximum: 2100,
        description:
          "Year of the figures; the dataset's current year when omitted. History depth depends on the plan.",
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
export type SalaryQuery = Static<typeof SalaryQuerySchema>;

export const SalaryRecordSchema = Type.Object(
  {
    country: Type.String({ description: 'ISO 3166-1 alpha-2 code.' }),
    job: Type.String(),
    level: Type.String(),
    year: Type.Integer(),
    currency: Type.Literal('EUR'),
    period: Type.Literal('annual'),
    p25: Type.Integer({
      description: 'Gross annual pay, full-time equivalent, 25th percentile (EUR).',
    }),
    median: Type.Integer({ description: 'Gross annual pay, full-time equivalent, median (EUR).' }),
    p75: Type.Integer({
      description: 'Gross annual pay, full-time equivalent, 75th percentile (EUR).',
    }),
    basis: StringEnum(['published', 'interpolated', 'projected'], {
      description:
        "How the country's average pay for the year was obtained: published by Eurostat, modelled between published points, or projected beyond the last published year.",
    }),
    projected: Type.Boolean({ description: 'True for years after the last published figure.' }),
    confidence: StringEnum(['medium', 'low'], {
      description:
        'medium: the country mean of that year is published; low: modelled or projected.',
    }),
  },
  { additionalProperties: false },
);

export const ReleaseRefSchema = Type.Object({
  version: Type.String(),
  created_at: Type.String({ format: 'date-time' }),
  current_year: Type.Integer(),
  last_published_year: Type.Integer(),
});

export const SalaryResponseSchema = Type.Object({
  data: Type.Array(SalaryRecordSchema),
  meta: Type.Object({
    country: Type.Object({ code: Type.String(), name: Type.String() }),
    job: Type.Object({ slug: Type.String(), title: Type.String(), isco_code: Type.String() }),
    year: Type.Integer(),
    release: ReleaseRefSchema,
    source: Type.String({
      description: 'Short note of how the figures were made and from which publishers.',
    }),
    methodology_url: Type.String({
      description: 'Where every modelling step, number and caveat is documented.',
    }),
    modelled: Type.Literal(true, {
      description: 'Every figure is modelled from published statistics.',
    }),
  }),
});
export type SalaryResponse = Static<typeof SalaryResponseSchema>;
