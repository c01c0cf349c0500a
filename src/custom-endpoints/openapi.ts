import { COUNTRY_CODES } from '../catalog/index.js';
import { JOB_SLUGS, LEVELS } from '../catalog/index.js';
import type { Column } from '../formats/index.js';
import { MEDIA_TYPES } from '../formats/index.js';
import type { Plan } from '../plans/index.js';
import {
  EXTRA_FIELDS,
  SALARY_COLUMNS,
  SalaryMetaSchema,
  SalaryRecordSchema,
  VintageQuery,
  type CustomSchema,
} from '../salary/index.js';
import { savedYears, type YearsKnown } from './narrow.js';
import type { CustomEndpointRow } from './repo.js';

/** Who an account's document names: a licensee (white-label: this service not named). */
export interface OpenApiLabel {
  readonly licensee: string;
  readonly whiteLabel: boolean;
}

type Json = Record<string, unknown>;
/** A TypeBox schema as plain JSON Schema (its symbols dropped). */
const plain = (schema: unknown): Json => JSON.parse(JSON.stringify(schema)) as Json;

const COLUMN_TYPES = new Map<string, Column>([
  ...SALARY_COLUMNS.map((c) => [c.name, c] as const),
  ...Object.entries(EXTRA_FIELDS).map(([name, f]) => [name, f.column] as const),
]);

function columnSchema(column: Column | undefined): Json {
  const type =
    column?.type === 'integer'
      ? 'integer'
      : column?.type === 'number'
        ? 'number'
        : column?.type === 'boolean'
          ? 'boolean'
          : 'string';
  return {
    type: [type, 'null'],
    ...(column?.type === 'date' ? { format: 'date' } : {}),
    ...(column?.description === undefined ? {} : { description: column.description }),
  };
}

/** The records' shape: the custom schema's names and types, or the standard record. */
function recordSchema(schema: CustomSchema | null): Json {
  if (schema === null) return plain(SalaryRecordSchema);
  return {
    type: 'object',
    properties: Object.fromEntries(
      schema.fields.map((f) => [
        f.name,
        { ...columnSchema(COLUMN_TYPES.get(f.field)), title: f.field },
      ]),
    ),
    additionalProperties: false,
  };
}

const camel = (slug: string): string =>
  slug.replace(/-([a-z0-9])/g, (_m, c: string) => c.toUpperCase());

const PROBLEM = { $ref: '#/components/schemas/Problem' };
const problem = (description: string): Json => ({
  description,
  content: { 'application/problem+json': { schema: PROBLEM } },
});

/**
 * An OpenAPI 3.1 document of one account's custom endpoints: each path with its open
 * parameters (enums of the values it serves) and its response in every format of the plan,
 * records under the account's custom field names. Clean under spectral:oas.
 */
export function customOpenApi(input: {
  endpoints: readonly CustomEndpointRow[];
  plan: Plan;
  schema: CustomSchema | null;
  known: YearsKnown | undefined;
  baseUrl: string;
  label: OpenApiLabel | null;
}): Json {
  const { endpoints, plan, schema, known, label } = input;
  const neutral = label?.whiteLabel === true;
  const record = recordSchema(schema);
  const paths: Json = {};
  for (const e of endpoints) {
    const q = e.query;
    const enums: Record<string, { schema: Json; description: string }> = {
      country: {
        schema: { type: 'string', enum: q.countries ?? COUNTRY_CODES },
        description: 'One of the countries this endpoint serves (ISO 3166-1 alpha-2).',
      },
      job: {
        schema: { type: 'string', enum: q.jobs ?? JOB_SLUGS },
        description: 'One of the job categories this endpoint serves.',
      },
      level: {
        schema: { type: 'string', enum: q.levels ?? LEVELS },
        description: 'One of the seniority levels this endpoint serves.',
      },
      year: {
        schema:
          known === undefined
            ? { type: 'integer' }
            : {
                type: 'integer',
                enum: savedYears(q, plan, known) ?? [known.currentYear],
              },
        description: 'One of the years this endpoint serves.',
      },
      format: {
        schema: { type: 'string', enum: plan.formats, default: q.format ?? 'json' },
        description: 'Response format; overrides the Accept header.',
      },
    };
    const formats = plan.formats;
    // Every saved query may be pinned to a kept release the plan reaches (Free: the active one).
    const vintage =
      plan.releasesBack === 0
        ? []
        : (['release', 'as_of'] as const).map((name) => {
            const { description, ...schema } = plain(VintageQuery[name]);
            return { name, in: 'query', required: false, description, schema };
          });
    paths[`/api/v1/custom/${e.slug}`] = {
      get: {
        operationId: camel(e.slug),
        tags: ['Custom endpoints'],
        summary: e.description === '' ? `Custom endpoint ${e.slug}` : e.description.slice(0, 120),
        description:
          (e.description === '' ? '' : `${e.description}\n\n`) +
          `Saved query: ${JSON.stringify(q)}. ` +
          (e.parameters.length === 0
            ? 'It takes no parameters.'
            : `Parameters narrow within the saved values: ${e.parameters.join(', ')}.`),
        parameters: [
          ...e.parameters.map((name) => ({
            name,
            in: 'query',
            required: false,
            description: enums[name]!.description,
            schema: enums[name]!.schema,
          })),
          ...vintage,
        ],
        responses: {
          200: {
            description: 'The figures.',
            content: Object.fromEntries(
              formats.map((f) => [
                MEDIA_TYPES[f],
                {
                  schema:
                    f === 'json'
                      ? {
                          type: 'object',
                          properties: {
                            data: { type: 'array', items: record },
                            meta: plain(SalaryMetaSchema),
                          },
                          required: ['data', 'meta'],
                        }
                      : f === 'csv' || f === 'xml'
                        ? { type: 'string' }
                        : { type: 'string', format: 'binary' },
                },
              ]),
            ),
          },
          400: problem('A parameter outside the values this endpoint serves.'),
          401: problem('Missing or invalid credential.'),
          403: problem('The plan or the key does not allow it.'),
          404: problem('No such endpoint for this account, or no data.'),
          406: problem('The Accept header names no format this endpoint produces.'),
          429: problem('Rate limit reached; see Retry-After.'),
          503: problem('Temporarily unavailable; see Retry-After.'),
        },
      },
    };
  }
  const title = label === null ? 'Custom endpoints' : `${label.licensee} data API`;
  return {
    openapi: '3.1.0',
    info: {
      title,
      version: '1.0.0',
      description:
        'The custom endpoints of one account: saved queries over gross annual pay percentiles (EUR) for EU member states, job categories and seniority levels. Every figure is modelled from published statistics; `meta` names the release and the method.',
      contact: neutral
        ? { name: label.licensee }
        : { name: 'API support', email: 'support@salary-api.eu', url: 'https://salary-api.eu' },
    },
    servers: [{ url: input.baseUrl }],
    security: [{ apiKey: [] }],
    tags: [{ name: 'Custom endpoints', description: 'Saved queries published by the account.' }],
    paths,
    components: {
      securitySchemes: {
        apiKey: { type: 'http', scheme: 'bearer', description: 'An API key of the account.' },
      },
      schemas: {
        Problem: {
          type: 'object',
          description: 'RFC 9457 problem details.',
          properties: {
            type: { type: 'string' },
            title: { type: 'string' },
            status: { type: 'integer' },
            detail: { type: 'string' },
            instance: { type: 'string' },
          },
        },
      },
    },
  };
}
