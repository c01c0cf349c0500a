import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { Readable } from 'node:stream';
import { AppError } from '../errors/index.js';
import { rangeStillValid, requestedRange } from '../http/byte-range.js';
import { jsonAnswer, problemResponses } from '../http/openapi-responses.js';
import { StringEnum } from '../lib/string-enum.js';
import { FORMATS } from '../plans/index.js';
import {
  CHANGED_EXPORT_EXAMPLE,
  DESTINATION_TEST_EXAMPLE,
  EXPORT_EXAMPLE,
  EXPORT_LIST_EXAMPLE,
  QUEUED_RUN_EXAMPLE,
  RUN_EXAMPLE,
  RUN_LIST_EXAMPLE,
} from './examples.js';
import type { ExportService } from './service.js';
import { DestinationSchema, ExportQuerySchema } from './types.js';

const time = Type.String({ format: 'date-time' });
const nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) =>
  Type.Union([t, Type.Null()]);

const PublicDestinationSchema = Type.Union([
  Type.Object({
    type: Type.Literal('sftp'),
    host: Type.String(),
    port: Type.Integer(),
    username: Type.String(),
    auth: StringEnum(['password', 'private_key'], {
      description: 'Which credential is stored (never returned).',
    }),
    host_key_sha256: Type.String(),
    path: Type.String(),
  }),
  Type.Object({ type: Type.Literal('webhook'), url: Type.String() }),
]);

export const ExportSchema = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    schedule: Type.String({ description: '5-field cron expression.' }),
    timezone: Type.String({ description: 'IANA time zone the schedule is read in.' }),
    query: ExportQuerySchema,
    format: StringEnum(FORMATS),
    compression: StringEnum(['gzip', 'none']),
    destination: PublicDestinationSchema,
    next_run_at: time,
    created_at: time,
    updated_at: time,
  },
  { $id: 'Export', examples: [EXPORT_EXAMPLE] },
);

/** The answer to a create or change that made a webhook destination: its secret, once. */
const ExportWithSecret = Type.Object({
  ...ExportSchema.properties,
  secret: Type.Optional(
    Type.String({
      description:
        'Webhook destinations only, shown this once: the `whsec_…` secret that signs its events (Standard Webhooks).',
    }),
  ),
});

export const ExportRunSchema = Type.Object(
  {
    id: Type.String(),
    export_id: Type.String(),
    trigger: StringEnum(['schedule', 'manual']),
    status: StringEnum(['queued', 'running', 'succeeded', 'failed']),
    scheduled_at: time,
    started_at: nullable(time),
    finished_at: nullable(time),
    next_attempt_at: Type.Union([time, Type.Null()], {
      description: 'When queued after a failed attempt: the next try.',
    }),
    rows: nullable(Type.Integer()),
    bytes: nullable(Type.Integer()),
    sha256: Type.Union([Type.String(), Type.Null()], {
      description: 'SHA-256 (hex) of the delivered file.',
    }),
    file_name: Type.Union([Type.String(), Type.Null()], {
      description: 'Where the file was delivered (remote path).',
    }),
    attempts: Type.Integer(),
    error: Type.Union([Type.String(), Type.Null()], { description: 'The last error, in words.' }),
  },
  { $id: 'ExportRun', examples: [RUN_EXAMPLE] },
);

export const exportSchemas = [ExportSchema, ExportRunSchema];

/** The fields the API and the dashboard's form check alike. */
export const ExportNameSchema = Type.String({ minLength: 1, maxLength: 100 });
export const ExportScheduleSchema = Type.String({
  minLength: 9,
  maxLength: 100,
  description:
    'A 5-field cron expression, e.g. `0 6 * * 1` (Mondays 06:00); at most hourly, so the minute field is one minute.',
});
export const ExportTimezoneSchema = Type.String({
  minLength: 1,
  maxLength: 64,
  description: 'IANA time zone; default UTC.',
});
const Format = StringEnum(FORMATS);
const Compression = StringEnum(['gzip', 'none']);
const CreateBody = Type.Object(
  {
    name: ExportNameSchema,
    schedule: ExportScheduleSchema,
    timezone: Type.Optional(ExportTimezoneSchema),
    query: ExportQuerySchema,
    format: Format,
    compression: Type.Optional(Compression),
    destination: DestinationSchema,
  },
  { additionalProperties: false },
);
const UpdateBody = Type.Partial(CreateBody, { additionalProperties: false });
const Params = Type.Object({ id: Type.String({ pattern: '^exp_[A-Za-z0-9_-]{1,40}$' }) });
const RunParams = Type.Object({ run_id: Type.String({ pattern: '^run_[A-Za-z0-9_-]{1,40}$' }) });

export const exportRoutes: FastifyPluginAsyncTypebox<{ exports: ExportService }> = async (
  app,
  { exports },
) => {
  const tags = ['Exports'];
  const read = { auth: { access: 'account', scope: 'exports:read' } } as const;
  const write = { auth: { access: 'account', scope: 'exports:write' } } as const;

  app.post(
    '/api/v1/exports',
    {
      schema: {
        operationId: 'createExport',
        tags,
        summary: 'Schedule a bulk export',
        description:
          'Enterprise. A bulk selection delivered as a file on a cron schedule in a time zone: uploaded to an SFTP server, or kept 7 days and announced to a webhook URL by a signed `export.completed` with a signed, expiring `download_url`. Credentials are stored encrypted and never returned; a webhook destination’s signing secret is in this answer only.',
        body: CreateBody,
        response: {
          201: jsonAnswer(ExportWithSecret, EXPORT_EXAMPLE),
          ...problemResponses(400, 401, 403, 409),
        },
      },
      config: write,
    },
    async (request, reply) =>
      reply.code(201).send(await exports.create(request.principal, request.body)),
  );

  app.get(
    '/api/v1/exports',
    {
      schema: {
        operationId: 'listExports',
        tags,
        summary: 'List scheduled exports',
        description: 'Every export of the account, without credentials.',
        response: {
          200: Type.Object(
            { data: Type.Array(Type.Ref('Export')) },
            { examples: [EXPORT_LIST_EXAMPLE] },
          ),
          ...problemResponses(401, 403),
        },
      },
      config: read,
    },
    async (request) => ({ data: await exports.list(request.principal) }),
  );

  app.post(
    '/api/v1/exports/test-destination',
    {
      schema: {
        operationId: 'testExportDestination',
        tags,
        summary: 'Check a destination without exporting',
        description:
          'SFTP: connects, checks the host key, authenticates, writes and removes a small file. Webhook: sends a signed `export.test` event, signed with a one-off secret given in the answer. A failure is answered when the test’s timeout (15 s) ends, whatever happened: an SFTP server that could not be reached (refused, reset, timed out, another protocol, another host key) reads the same in every case, the reason being logged for the operator only; a host-key mismatch is named, with the key the server showed, only for the host saved on the export given as `export_id`. At most 30 tests an hour per account, shared with webhook test sends; then 429 with Retry-After.',
        body: Type.Object(
          {
            destination: DestinationSchema,
            export_id: Type.Optional(
              Type.String({
                pattern: '^exp_[A-Za-z0-9_-]{1,40}$',
                description:
                  'The export being edited: a host-key mismatch on the host saved on it names the key the server showed.',
              }),
            ),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object(
            {
              ok: Type.Boolean(),
              error: Type.Union([Type.String(), Type.Null()]),
              secret: Type.Optional(
                Type.String({ description: 'Webhook: the one-off secret that signed the ping.' }),
              ),
            },
            { examples: [DESTINATION_TEST_EXAMPLE] },
          ),
          ...problemResponses(400, 401, 403, 404, 429),
        },
      },
      config: write,
    },
    async (request) => {
      const { destination, export_id: exportId } = request.body;
      const { answer, detail } = await exports.testDestination(
        request.principal,
        destination,
        exportId,
      );
      // The reason of a failure is the operator's to read, never the caller's.
      if (!answer.ok)
        request.log.info(
          { request_id: request.id, destination: destination.type, reason: detail },
          'export destination test failed',
        );
      return answer;
    },
  );

  app.get(
    '/api/v1/exports/runs/:run_id',
    {
      schema: {
        operationId: 'getExportRun',
        tags,
        summary: 'One export run',
        description: 'Status, times, rows, bytes, SHA-256 and the last error of one run.',
        params: RunParams,
        response: { 200: Type.Ref('ExportRun'), ...problemResponses(400, 401, 403, 404) },
      },
      config: read,
    },
    async (request) => exports.run(request.principal, request.params.run_id),
  );

  app.get(
    '/api/v1/exports/files/:run_id',
    {
      schema: {
        operationId: 'downloadExportFile',
        tags,
        summary: 'Download a webhook export’s file (signed link)',
        description:
          'The `download_url` of an `export.completed` event: the link itself is the credential, good until its `expires` (7 days after the run). An altered or expired link is 403. An interrupted download resumes with `Range: bytes=<first>-` (one range, RFC 9110), best with `If-Range` set to the `ETag`: 206 with `Content-Range`; a range beyond the end is 416.',
        params: RunParams,
        querystring: Type.Object({
          expires: Type.Optional(Type.String({ maxLength: 20 })),
          signature: Type.Optional(Type.String({ maxLength: 100 })),
        }),
        headers: Type.Object({
          range: Type.Optional(Type.String()),
          'if-range': Type.Optional(Type.String()),
        }),
        response: {
          200: {
            description:
              'The file as delivered (gzip when the export compresses), with `Content-Length`, `ETag` (its SHA-256) and `Accept-Ranges: bytes`.',
            content: {
              'application/octet-stream': { schema: { type: 'string', format: 'binary' } },
            },
          },
          206: {
            description: 'The one range asked for; `Content-Range` says which bytes of how many.',
            content: {
              'application/octet-stream': { schema: { type: 'string', format: 'binary' } },
            },
          },
          ...problemResponses(400, 403, 416),
        },
      },
      config: { auth: { access: 'public' } },
    },
    async (request, reply) => {
      const { expires = '', signature = '' } = request.query;
      const file = await exports.download(request.params.run_id, expires, signature);
      const etag = `"${file.sha256}"`;
      const range = rangeStillValid(request.headers['if-range'], etag)
        ? requestedRange(request.headers.range, file.bytes)
        : undefined;
      if (range === 'unsatisfiable')
        throw new AppError(
          'RANGE_NOT_SATISFIABLE',
          `The file has ${file.bytes} bytes and the range asked for holds none of them: a range must start before byte ${file.bytes}, and a suffix (bytes=-n) must ask for at least one byte.`,
          { headers: { 'content-range': `bytes */${file.bytes}` } },
        );
      reply
        .header('content-type', file.contentType)
        .header('content-disposition', `attachment; filename="${file.fileName}"`)
        .header('cache-control', 'private, no-store')
        .header('x-content-sha256', file.sha256)
        .header('etag', etag)
        .header('accept-ranges', 'bytes');
      // HEAD: an empty stream, which Fastify's HEAD handling drains, keeping this Content-Length
      // (for no payload it would say 0); none of the file's parts is read.
      const head = request.method === 'HEAD';
      if (range === undefined)
        return reply.header('content-length', file.bytes).send(head ? nothing() : file.open());
      return reply
        .code(206)
        .header('content-range', `bytes ${range.start}-${range.end}/${file.bytes}`)
        .header('content-length', range.end + 1 - range.start)
        .send(head ? nothing() : file.open(range));
    },
  );

  app.get(
    '/api/v1/exports/:id',
    {
      schema: {
        operationId: 'getExport',
        tags,
        summary: 'One scheduled export',
        description: 'Another account’s export is 404.',
        params: Params,
        response: { 200: Type.Ref('Export'), ...problemResponses(400, 401, 403, 404) },
      },
      config: read,
    },
    async (request) => exports.get(request.principal, request.params.id),
  );

  app.patch(
    '/api/v1/exports/:id',
    {
      schema: {
        operationId: 'updateExport',
        tags,
        summary: 'Change a scheduled export',
        description:
          'Any field of the creation body; a new schedule or time zone sets the next run from now. A new destination replaces the stored credential; a new webhook destination gets a new signing secret, in this answer only.',
        params: Params,
        body: UpdateBody,
        response: {
          200: jsonAnswer(ExportWithSecret, CHANGED_EXPORT_EXAMPLE),
          ...problemResponses(400, 401, 403, 404),
        },
      },
      config: write,
    },
    async (request) => exports.update(request.principal, request.params.id, request.body),
  );

  app.delete(
    '/api/v1/exports/:id',
    {
      schema: {
        operationId: 'deleteExport',
        tags,
        summary: 'Delete a scheduled export',
        description: 'Its runs and their history go with it.',
        params: Params,
        response: { 204: Type.Null(), ...problemResponses(400, 401, 403, 404) },
      },
      config: write,
    },
    async (request, reply) => {
      await exports.remove(request.principal, request.params.id);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/api/v1/exports/:id/run',
    {
      schema: {
        operationId: 'runExport',
        tags,
        summary: 'Run an export now',
        description:
          'Queues a run beside the schedule; follow it with the run’s id. The run spends the account’s request quota as the bulk request it equals: with no room left, 429 with Retry-After and nothing is queued. One manual run at a time per export: 409 (with its `run_id`) while one is queued or running.',
        params: Params,
        response: {
          202: jsonAnswer(Type.Ref('ExportRun'), QUEUED_RUN_EXAMPLE),
          ...problemResponses(400, 401, 403, 404, 409, 429),
        },
      },
      config: write,
    },
    async (request, reply) =>
      reply.code(202).send(await exports.runNow(request.principal, request.params.id)),
  );

  app.get(
    '/api/v1/exports/:id/runs',
    {
      schema: {
        operationId: 'listExportRuns',
        tags,
        summary: 'Runs of an export',
        description: 'The latest 100, newest first.',
        params: Params,
        response: {
          200: Type.Object(
            { data: Type.Array(Type.Ref('ExportRun')) },
            { examples: [RUN_LIST_EXAMPLE] },
          ),
          ...problemResponses(400, 401, 403, 404),
        },
      },
      config: read,
    },
    async (request) => ({ data: await exports.runs(request.principal, request.params.id) }),
  );
};

/** A body of no bytes, as a stream. */
function nothing(): Readable {
  return Readable.from([]);
}
