import { Type, type Static } from '@sinclair/typebox';

/**
 * A data release file is JSON Lines (optionally gzip-compressed, `.jsonl.gz`):
 * line 1 is the header, every following line one salary record. docs/data-release-format.md
 * describes every field; the loader validates a file completely against these schemas
 * before it writes anything.
 */
export const RELEASE_FORMAT = 'salary-release/1';

const Money = Type.Integer({ minimum: 0, maximum: 100_000_000 });

export const ReleaseSourceSchema = Type.Object(
  {
    id: Type.String({ pattern: '^[a-z0-9_]+$', maxLength: 100 }),
    title: Type.String({ minLength: 1, maxLength: 300 }),
    publisher: Type.String({ minLength: 1, maxLength: 200 }),
    url: Type.String({ maxLength: 500 }),
    used_for: Type.String({ maxLength: 500 }),
  },
  { additionalProperties: false },
);

export const ReleaseHeaderSchema = Type.Object(
  {
    type: Type.Literal('release'),
    format: Type.Literal(RELEASE_FORMAT),
    version: Type.String({ pattern: '^[0-9]{4}\\.[0-9]{2}\\.[0-9]+$', maxLength: 20 }),
    created_at: Type.String({ format: 'date-time' }),
    first_year: Type.Integer({ minimum: 2000, maximum: 2100 }),
    current_year: Type.Integer({ minimum: 2000, maximum: 2100 }),
    last_published_year: Type.Integer({ minimum: 2000, maximum: 2100 }),
    methodology: Type.String({ minLength: 1, maxLength: 2000 }),
    sources: Type.Array(ReleaseSourceSchema, { minItems: 1, maxItems: 200 }),
    /** Employment weight of each job (they sum to 1), for a country without weights of its own. */
    job_weights: Type.Record(Type.String(), Type.Number({ exclusiveMinimum: 0, maximum: 1 })),
    /** Each country's own job weights (country code → job → weight, summing to 1 per country). */
    country_job_weights: Type.Optional(
      Type.Record(
        Type.String({ pattern: '^[A-Z]{2}$' }),
        Type.Record(Type.String(), Type.Number({ exclusiveMinimum: 0, maximum: 1 })),
      ),
    ),
    /** Share of employees at each level within a job (they sum to 1). */
    level_weights: Type.Record(Type.String(), Type.Number({ exclusiveMinimum: 0, maximum: 1 })),
    record_count: Type.Integer({ minimum: 1 }),
  },
  { additionalProperties: false },
);
export type ReleaseHeader = Static<typeof ReleaseHeaderSchema>;

export const RecordBasisSchema = Type.Union([
  Type.Literal('published'),
  Type.Literal('interpolated'),
  Type.Literal('projected'),
]);
export type RecordBasis = Static<typeof RecordBasisSchema>;

export const ConfidenceSchema = Type.Union([
  Type.Literal('high'),
  Type.Literal('medium'),
  Type.Literal('low'),
]);

export const ReleaseRecordSchema = Type.Object(
  {
    type: Type.Literal('salary'),
    country: Type.String({ pattern: '^[A-Z]{2}$' }),
    job: Type.String({ pattern: '^[a-z0-9]+(-[a-z0-9]+)*$', maxLength: 64 }),
    level: Type.String({ pattern: '^[a-z]+$', maxLength: 16 }),
    year: Type.Integer({ minimum: 2000, maximum: 2100 }),
    /** How the country's average pay for this year was obtained (published, interpolated, projected). */
    basis: RecordBasisSchema,
    confidence: ConfidenceSchema,
    /** The evidence behind the record's job ratio and country mean, in a few words. */
    confidence_note: Type.String({ minLength: 1, maxLength: 200 }),
    /** Gross annual pay in EUR, full-time equivalent, whole euros. */
    p10: Money,
    p25: Money,
    median: Money,
    p75: Money,
    p90: Money,
    mean: Money,
    /** Local currency in that year and its units per EUR (annual average); EUR countries: 1. */
    local_currency: Type.String({ pattern: '^[A-Z]{3}$' }),
    fx_rate: Type.Number({ exclusiveMinimum: 0, maximum: 100_000 }),
  },
  { additionalProperties: false },
);
export type ReleaseRecord = Static<typeof ReleaseRecordSchema>;
