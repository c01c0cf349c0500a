import { Type, type Static } from '@sinclair/typebox';
import { COUNTRY_CODES } from '../catalog/index.js';
import { JOB_SLUGS, LEVELS } from '../catalog/index.js';
import { StringEnum } from '../lib/string-enum.js';
import { FORMATS } from '../plans/index.js';
import { EXTRA_FIELD_NAMES } from '../salary/index.js';

/** The request parameters a custom endpoint may leave open, each narrowing its saved values. */
export const PARAMETER_NAMES = ['country', 'job', 'level', 'year', 'format'] as const;
export type ParameterName = (typeof PARAMETER_NAMES)[number];

export const MAX_CUSTOM_ENDPOINTS = 100;
export const SLUG_PATTERN = '^[a-z0-9]+(-[a-z0-9]+)*$';

const YearsSchema = Type.Union(
  [
    Type.Literal('current'),
    Type.Literal('all'),
    Type.String({
      pattern: '^last ([1-9]|[1-4][0-9]|50)$',
      description: '`last N`: N years up to the current one.',
    }),
    Type.Object(
      {
        from: Type.Integer({ minimum: 2000, maximum: 2100 }),
        to: Type.Integer({ minimum: 2000, maximum: 2100 }),
      },
      { additionalProperties: false },
    ),
  ],
  {
    description:
      '`current` (the default), `last N` (N years up to the current one), `all` (every year the plan reaches) or `{from, to}`.',
  },
);

export const CustomQuerySchema = Type.Object(
  {
    countries: Type.Optional(
      Type.Array(Type.String({ pattern: '^[A-Za-z]{2}$' }), {
        minItems: 1,
        maxItems: 27,
        uniqueItems: true,
        description: 'ISO 3166-1 alpha-2 codes; every country when omitted.',
      }),
    ),
    jobs: Type.Optional(
      Type.Array(Type.String({ pattern: SLUG_PATTERN, maxLength: 64 }), {
        minItems: 1,
        maxItems: 64,
        uniqueItems: true,
        description: 'Job category slugs; every job when omitted.',
      }),
    ),
    levels: Type.Optional(
      Type.Array(StringEnum(LEVELS), {
        minItems: 1,
        maxItems: LEVELS.length,
        uniqueItems: true,
        description: 'Seniority levels; every level when omitted.',
      }),
    ),
    years: Type.Optional(YearsSchema),
    fields: Type.Optional(
      Type.Array(Type.String({ pattern: '^[a-z0-9_]+$', maxLength: 64 }), {
        maxItems: 32,
        uniqueItems: true,
        description: `Extra fields: ${EXTRA_FIELD_NAMES.join(', ')}.`,
      }),
    ),
    format: Type.Optional(
      StringEnum(FORMATS, {
        description:
          'The format answered (JSON when omitted); with `format` among the parameters, the default.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type CustomQuery = Static<typeof CustomQuerySchema>;

/** What is wrong with a saved query, as invalid_params (empty when it is valid). */
export function queryProblems(
  query: CustomQuery,
): { name: string; reason: string; allowed?: readonly (string | number)[] }[] {
  const problems: { name: string; reason: string; allowed?: readonly (string | number)[] }[] = [];
  for (const c of query.countries ?? []) {
    if (!COUNTRY_CODES.includes(normalCountry(c)))
      problems.push({
        name: 'query.countries',
        reason: `${c} is not covered`,
        allowed: COUNTRY_CODES,
      });
  }
  for (const j of query.jobs ?? []) {
    if (!JOB_SLUGS.includes(j))
      problems.push({
        name: 'query.jobs',
        reason: `unknown job category ${j}`,
        allowed: JOB_SLUGS,
      });
  }
  for (const f of query.fields ?? []) {
    if (!EXTRA_FIELD_NAMES.includes(f))
      problems.push({
        name: 'query.fields',
        reason: `unknown field ${f}`,
        allowed: EXTRA_FIELD_NAMES,
      });
  }
  const years = query.years;
  if (typeof years === 'object' && years.from > years.to)
    problems.push({ name: 'query.years', reason: `from ${years.from} is after to ${years.to}` });
  return problems;
}

/** Greece is EL at Eurostat and GR in ISO 3166; stored as the code the API answers with. */
export function normalCountry(input: string): string {
  const upper = input.toUpperCase();
  return upper === 'EL' ? 'GR' : upper;
}

/** The saved query as stored: codes upper-case, in a stable order. */
export function normalQuery(query: CustomQuery): CustomQuery {
  return {
    ...query,
    ...(query.countries === undefined
      ? {}
      : { countries: [...new Set(query.countries.map(normalCountry))].sort() }),
  };
}
