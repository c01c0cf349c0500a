import { Type, type Static, type TSchema } from '@sinclair/typebox';
import type { Column } from '../formats/index.js';
import { LEVELS } from '../catalog/index.js';
import { StringEnum } from '../lib/string-enum.js';
import { FORMATS } from '../plans/index.js';
import { EXTRA_FIELDS, EXTRA_FIELD_NAMES } from './fields.js';
import { LOOKUP_EXAMPLE } from './examples.js';

const country = Type.String({
  description:
    'ISO 3166-1 alpha-2 code of an EU member state, case-insensitive (EL is accepted for Greece).',
  pattern: '^[A-Za-z]{2}$',
  examples: ['DE'],
});
const job = Type.String({
  description: 'Job category slug, see GET /api/v1/jobs.',
  pattern: '^[a-z0-9]+(-[a-z0-9]+)*$',
  maxLength: 64,
  examples: ['software-engineer'],
});
const level = StringEnum(LEVELS, { description: 'Seniority level; every level when omitted.' });
const format = StringEnum(FORMATS, {
  description: 'Response format; overrides the Accept header. JSON when omitted.',
});
const fields = Type.String({
  pattern: '^[a-z0-9_]+(,[a-z0-9_]+)*$',
  maxLength: 300,
  description: `Extra fields, comma-separated (Business and Enterprise): ${EXTRA_FIELD_NAMES.join(', ')}.`,
});
const year = Type.Integer({
  minimum: 2000,
  maximum: 2100,
  description:
    "Year of the figures; the dataset's current year when omitted. History depth depends on the plan.",
});

const release = Type.String({
  pattern: '^[0-9]{4}\\.[0-9]{2}\\.[0-9]+$',
  maxLength: 20,
  description:
    'Answer from this kept data release (GET /api/v1/releases); the active release when omitted. Free reaches the active release, Developer and Business the previous one too, Enterprise every kept release.',
  examples: ['2026.11.7'],
});
const asOf = Type.String({
  format: 'date',
  description:
    'Answer from the release in effect on this date (YYYY-MM-DD): the newest kept release published on or before it. Not together with `release`.',
  examples: ['2026-11-26'],
});
/** `release=` and `as_of=`: every salary query may pin its answer to a kept release. */
export const VintageQuery = { release: Type.Optional(release), as_of: Type.Optional(asOf) };

export const SalaryQuerySchema = Type.Object(
  {
    country,
    job,
    level: Type.Optional(level),
    year: Type.Optional(year),
    fields: Type.Optional(fields),
    format: Type.Optional(format),
    ...VintageQuery,
  },
  { additionalProperties: false },
);
export type SalaryQuery = Static<typeof SalaryQuerySchema>;

export const HistoryQuerySchema = Type.Object(
  {
    country,
    job,
    level: Type.Optional(level),
    fields: Type.Optional(fields),
    format: Type.Optional(format),
    ...VintageQuery,
  },
  { additionalProperties: false },
);

const bulkYear = Type.String({
  pattern: '^([0-9]{4}|all)$',
  description: 'A year, or `all` for every year the plan reaches; the current year when omitted.',
});
export const BulkCountriesQuerySchema = Type.Object(
  {
    job,
    level: Type.Optional(level),
    year: Type.Optional(bulkYear),
    fields: Type.Optional(fields),
    format: Type.Optional(format),
    ...VintageQuery,
  },
  { additionalProperties: false },
);
export const BulkJobsQuerySchema = Type.Object(
  {
    country,
    level: Type.Optional(level),
    year: Type.Optional(bulkYear),
    fields: Type.Optional(fields),
    format: Type.Optional(format),
    ...VintageQuery,
  },
  { additionalProperties: false },
);
export const BulkArchiveQuerySchema = Type.Object(
  {
    level: Type.Optional(level),
    year: Type.Optional(bulkYear),
    fields: Type.Optional(fields),
    format: Type.Optional(format),
    ...VintageQuery,
  },
  { additionalProperties: false },
);

function columnSchema(column: Column): TSchema {
  const base = { description: column.description };
  const typed =
    column.type === 'integer'
      ? Type.Integer(base)
      : column.type === 'number'
        ? Type.Number(base)
        : Type.String(base);
  return Type.Optional(Type.Union([typed, Type.Null()]));
}

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
    local_currency: Type.String({
      description:
        'The currency the country used that year (ISO 4217): EUR in the euro area, e.g. PLN, SEK, HUF elsewhere.',
    }),
    local_median: Type.Integer({
      description:
        'The median in local_currency, at the ECB annual average rate of that year (equal to median where local_currency is EUR).',
    }),
    basis: StringEnum(['published', 'interpolated', 'projected'], {
      description:
        "How the country's average pay for the year was obtained: published by Eurostat, modelled between published points, or projected beyond the last published year.",
    }),
    projected: Type.Boolean({ description: 'True for years after the last published figure.' }),
    confidence: StringEnum(['high', 'medium', 'low'], {
      description:
        "The evidence behind the figure. high: the job's pay comes from the country's own occupation (unit-group) table and the country's average pay for the year is published. medium: the country's own table covers only the job's occupation group (the job is placed within its group by a model pooled over other countries' tables), or the country average is one year from a published one (a short projection or back-cast). low: the occupation group is borrowed from the EU average, or the country average is two or more years from a published one.",
    }),
    confidence_note: Type.String({
      description:
        'The evidence behind `confidence` in a few words: the table the job\'s figure comes from and how the country average of the year was obtained, e.g. "own occupation table Destatis 2022/23 (2022-04 Medical doctor); mean published (Eurostat 2024)".',
    }),
    ...Object.fromEntries(
      EXTRA_FIELD_NAMES.map((name) => [name, columnSchema(EXTRA_FIELDS[name]!.column)]),
    ),
  },
  { additionalProperties: false },
);
export type PublicRecord = {
  country: string;
  job: string;
  level: string;
  year: number;
  currency: 'EUR';
  period: 'annual';
  p25: number;
  median: number;
  p75: number;
  local_currency: string;
  local_median: number;
  basis: string;
  projected: boolean;
  confidence: string;
  confidence_note: string;
} & Record<string, unknown>;

export const ReleaseRefSchema = Type.Object({
  version: Type.String(),
  created_at: Type.String({ format: 'date-time' }),
  current_year: Type.Integer(),
  last_published_year: Type.Integer(),
});

export const SalaryMetaSchema = Type.Object({
  country: Type.Optional(Type.Object({ code: Type.String(), name: Type.String() })),
  job: Type.Optional(
    Type.Object({ slug: Type.String(), title: Type.String(), isco_code: Type.String() }),
  ),
  year: Type.Optional(Type.Integer()),
  years: Type.Optional(Type.Array(Type.Integer())),
  count: Type.Integer({ description: 'Number of records in data.' }),
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
  attribution: Type.Optional(
    Type.String({
      description:
        "White-label accounts: the licensee's attribution text, in place of this service's name.",
    }),
  ),
  mode: Type.Optional(
    Type.Literal('test', {
      description:
        'Present only in answers to a test-mode key (sk_test_…): the same figures, outside quota, usage and billing. Absent for live keys.',
    }),
  ),
});
export type SalaryMeta = Static<typeof SalaryMetaSchema>;

export const SalaryResponseSchema = Type.Object(
  {
    data: Type.Array(SalaryRecordSchema),
    meta: SalaryMetaSchema,
  },
  { examples: [LOOKUP_EXAMPLE] },
);
export type SalaryResponse = Static<typeof SalaryResponseSchema>;
