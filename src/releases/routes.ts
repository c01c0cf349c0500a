import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { COUNTRY_CODES, JOB_SLUGS, LEVELS } from '../catalog/index.js';
import type { SpendRouteQuota } from '../http/quota.js';
import { problemResponses } from '../http/openapi-responses.js';
import { StringEnum } from '../lib/string-enum.js';
import { CHANGES_LIMIT, type ReleaseCatalog } from './catalog.js';
import { CHANGE_REASONS, PERCENTILES } from './diff.js';
import { CHANGES_EXAMPLE, RELEASE_EXAMPLE, RELEASE_LIST_EXAMPLE } from './examples.js';

const version = Type.String({
  pattern: '^[0-9]{4}\\.[0-9]{2}\\.[0-9]+$',
  maxLength: 20,
  description: 'A release version (YYYY.MM.N).',
  examples: ['2026.11.6'],
});

const ReleaseSchema = Type.Object(
  {
    version: Type.String(),
    active: Type.Boolean({ description: 'Whether lookups without `release` answer from it.' }),
    published_at: Type.String({ format: 'date-time', description: 'When the release was built.' }),
    loaded_at: Type.String({ format: 'date-time', description: 'When this service loaded it.' }),
    first_year: Type.Integer(),
    current_year: Type.Integer(),
    last_published_year: Type.Integer({
      description: 'The last year with published statistics; later years are projected.',
    }),
    methodology: Type.String({ description: 'The method, in words.' }),
    sources: Type.Array(
      Type.Object({
        id: Type.String(),
        title: Type.String(),
        publisher: Type.String(),
        years: Type.Array(Type.Integer(), { description: 'The years the source covers.' }),
      }),
    ),
    counts: Type.Object({
      records: Type.Integer(),
      countries: Type.Integer(),
      jobs: Type.Integer(),
      levels: Type.Integer(),
      years: Type.Integer(),
    }),
    previous_release: Type.Union([Type.String(), Type.Null()]),
    changes_url: Type.Union([Type.String(), Type.Null()], {
      description: 'What changed from the previous kept release.',
    }),
  },
  { $id: 'Release', examples: [RELEASE_EXAMPLE] },
);

const group = {
  changed: Type.Integer(),
  beyond_1: Type.Integer(),
  beyond_5: Type.Integer(),
  beyond_10: Type.Integer(),
  median_change_pct: Type.Number(),
};
const Figures = Type.Object(Object.fromEntries(PERCENTILES.map((p) => [p, Type.Integer()])));
const reason = StringEnum(CHANGE_REASONS, {
  description:
    'new_source: a source covering the country was added or dropped; method: the methodology changed; fx: the exchange rate changed; revision: a published input was revised.',
});
const SummarySchema = Type.Object({
  cells: Type.Integer({ description: 'Cells (country, job, level, year) in both releases.' }),
  changed: Type.Integer(),
  added: Type.Integer(),
  removed: Type.Integer(),
  beyond: Type.Object(
    { '1': Type.Integer(), '5': Type.Integer(), '10': Type.Integer() },
    { description: 'Changed cells whose median moved by more than 1, 5 and 10 %.' },
  ),
  by_country: Type.Array(Type.Object({ country: Type.String(), ...group })),
  by_job: Type.Array(Type.Object({ job: Type.String(), ...group })),
  by_reason: Type.Object(Object.fromEntries(CHANGE_REASONS.map((r) => [r, Type.Integer()]))),
});

const ChangesSchema = Type.Object(
  {
    release: Type.String(),
    from: Type.String(),
    summary: SummarySchema,
    reasons: Type.Array(Type.Object({ reason, detail: Type.String() })),
    data: Type.Array(
      Type.Object({
        country: Type.String(),
        job: Type.String(),
        level: Type.String(),
        year: Type.Integer(),
        old: Figures,
        new: Figures,
        change_pct: Type.Number({ description: 'Relative change of the median, in percent.' }),
        reasons: Type.Array(reason),
      }),
    ),
    total: Type.Integer({ description: 'Changed cells matching the filters.' }),
    limit: Type.Integer(),
    offset: Type.Integer(),
  },
  { examples: [CHANGES_EXAMPLE] },
);

const ChangesQuerySchema = Type.Object(
  {
    from: Type.Optional({
      ...version,
      description: 'The release to compare with; the previous kept release when omitted.',
    }),
    country: Type.Optional(
      Type.String({ pattern: '^[A-Za-z]{2}$', description: 'Only this country (ISO code).' }),
    ),
    job: Type.Optional(StringEnum(JOB_SLUGS, { description: 'Only this job.' })),
    level: Type.Optional(StringEnum(LEVELS, { description: 'Only this level.' })),
    year: Type.Optional(
      Type.Integer({ minimum: 2000, maximum: 2100, description: 'Only this year.' }),
    ),
    min_change: Type.Optional(
      Type.Number({
        minimum: 0,
        maximum: 1000,
        description: 'Only cells whose median moved by at least this many percent (either way).',
      }),
    ),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000, default: CHANGES_LIMIT })),
    offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0 })),
  },
  { additionalProperties: false },
);

const config = {
  auth: { access: 'data', scope: 'salary:read' },
  quota: { cost: 1 },
  allowedValues: { country: COUNTRY_CODES },
} as const;
const EmptyQuery = Type.Object({}, { additionalProperties: false });

export const releaseRoutes: FastifyPluginAsyncTypebox<{
  catalog: ReleaseCatalog;
  spendRouteQuota: SpendRouteQuota;
}> = async (app, opts) => {
  const { catalog, spendRouteQuota } = opts;
  app.get(
    '/api/v1/releases',
    {
      schema: {
        operationId: 'listReleases',
        tags: ['Releases'],
        summary: 'The kept data releases, newest first',
        description:
          'Every kept data release (vintage): its version, publication and loading dates, sources with their years, method and counts. The first is the active release; `release=` or `as_of=` on the salary endpoints answers from an older one.',
        querystring: EmptyQuery,
        response: {
          200: Type.Object(
            { data: Type.Array(ReleaseSchema) },
            { examples: [RELEASE_LIST_EXAMPLE] },
          ),
          ...problemResponses(400, 401, 429),
        },
      },
      config,
    },
    async (request, reply) => {
      const data = await catalog.list();
      return spendRouteQuota(request, reply, () => ({ data }));
    },
  );

  app.get(
    '/api/v1/releases/:version',
    {
      schema: {
        operationId: 'getRelease',
        tags: ['Releases'],
        summary: 'One kept data release',
        description:
          'A kept release by its version: published and loaded dates, sources with their years, method version, counts, and whether it is active. Any kept version, whatever the plan; its figures follow the plan’s retention.',
        params: Type.Object({ version }),
        querystring: EmptyQuery,
        response: { 200: ReleaseSchema, ...problemResponses(400, 401, 404, 429) },
      },
      config,
    },
    async (request, reply) => {
      const release = await catalog.get(request.params.version);
      return spendRouteQuota(request, reply, () => release);
    },
  );

  app.get(
    '/api/v1/releases/:version/changes',
    {
      schema: {
        operationId: 'getReleaseChanges',
        tags: ['Releases'],
        summary: 'What changed between two kept releases',
        description:
          'Each cell (country, job, level, year) whose figures differ from the `from` release, with the old and new percentiles, the relative change of the median and the reasons, and a summary by country, job and reason over the cells that match the filters. Both releases must be within the plan: Developer and Business reach the active and the previous release, Enterprise every kept release.',
        params: Type.Object({ version }),
        querystring: ChangesQuerySchema,
        response: { 200: ChangesSchema, ...problemResponses(400, 401, 403, 404, 429) },
      },
      config,
    },
    async (request, reply) => {
      const changes = await catalog.changes(request.params.version, request.query, request.principal);
      return spendRouteQuota(request, reply, () => changes);
    },
  );
};
