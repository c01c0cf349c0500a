import type { FastifyReply } from 'fastify';
import { Readable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import {
  chunksOf,
  fileMeta,
  NEUTRAL_XML_NAMESPACE,
  type FileName,
  renderTable,
  type FileFormat,
  type RenderPool,
  type Row,
  type Table,
} from '../formats/index.js';
import { applySchema, schemaShape, type CustomSchema } from './custom-schema.js';
import type { Format } from '../plans/index.js';
import type { CachedFile } from './file-cache.js';
import type { SalaryResult } from './service.js';
import type { SalaryMeta } from './schemas.js';
import { salaryColumns, salaryRow, salaryTable } from './table.js';

/** The media type of every JSON salary response. */
export const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * How a white-label account's data is labelled: its licensee's attribution where this
 * service's name would be (meta, the XML root, the workbook's author); no provider named.
 */
export interface Labelling {
  readonly licensee: string;
  readonly attribution: string;
}

/** The result with the licensee's attribution in its meta (white-label accounts). */
export function labelled(result: SalaryResult, labelling: Labelling | null): SalaryResult {
  return labelling === null
    ? result
    : { ...result, meta: { ...result.meta, attribution: labelling.attribution } };
}

/** The result marked as answered to a test-mode key (`meta.mode`), or as it is. */
export function marked<T extends { meta: SalaryMeta }>(result: T, test: boolean): T {
  return test ? { ...result, meta: { ...result.meta, mode: 'test' } } : result;
}

/**
 * Sends a result of at most STREAM_ABOVE_ROWS records as JSON (through the route's serializer)
 * or as a named file in the chosen format; larger ones are written whole once and cached
 * (renderSalaryJson, renderSalaryFile).
 */
export async function sendSalaryResult(
  reply: FastifyReply,
  result: SalaryResult,
  format: Format,
  filenameBase: string,
  schema: CustomSchema | null = null,
  labelling: Labelling | null = null,
): Promise<FastifyReply> {
  result = labelled(result, labelling);
  if (schema !== null) {
    const table = applySchema(salaryTable(result), schema);
    const custom = { ...result, data: table.rows as SalaryResult['data'] };
    if (format === 'json') {
      // The account's own field names: not the route's schema, so serialised here.
      return reply.type(JSON_TYPE).send(Readable.from(jsonChunks(custom)));
    }
    return sendFile(reply, format, table, result, filenameBase, labelling);
  }
  if (format === 'json') return reply.send({ data: result.data, meta: result.meta });
  return sendFile(reply, format, salaryTable(result), result, filenameBase, labelling);
}

/**
 * How salary files are named inside: the XML root and sheet, the release attribute; for a
 * white-label account a neutral namespace, the attribution and the licensee as author.
 */
export function fileName(
  result: Pick<SalaryResult, 'meta'>,
  base: string,
  labelling: Labelling | null = null,
): FileName & { base: string } {
  const attributes: Record<string, string> = { release: result.meta.release.version };
  if (result.meta.mode === 'test') attributes.mode = 'test';
  if (labelling === null) return { base, root: 'salaries', attributes };
  return {
    base,
    root: 'salaries',
    attributes: {
      xmlns: NEUTRAL_XML_NAMESPACE,
      ...attributes,
      attribution: labelling.attribution,
    },
    creator: labelling.licensee,
  };
}

async function sendFile(
  reply: FastifyReply,
  format: FileFormat,
  table: Table,
  result: SalaryResult,
  filenameBase: string,
  labelling: Labelling | null,
): Promise<FastifyReply> {
  return sendRendered(
    reply,
    await renderTable(format, table, fileName(result, filenameBase, labelling)),
  );
}

/** Sends a whole body, a file as an attachment under its name. */
export function sendRendered(
  reply: FastifyReply,
  file: Pick<CachedFile, 'contentType' | 'filename'> & { body: CachedFile['body'] | Readable },
): FastifyReply {
  reply.type(file.contentType);
  if (file.filename !== null)
    reply.header('content-disposition', `attachment; filename="${file.filename}"`);
  return reply.send(file.body);
}

/**
 * A large result as one JSON body, written a chunk of records per turn of the event loop, so
 * other requests are answered between chunks.
 */
export async function renderSalaryJson(
  result: SalaryResult,
  schema: CustomSchema | null,
  labelling: Labelling | null = null,
): Promise<CachedFile> {
  result = labelled(result, labelling);
  const shaped =
    schema === null
      ? result
      : { ...result, data: applySchema(salaryTable(result), schema).rows as SalaryResult['data'] };
  const parts: string[] = [];
  for (const part of jsonChunks(shaped)) {
    parts.push(part);
    await nextTurn();
  }
  return { body: Buffer.from(parts.join(''), 'utf8'), contentType: JSON_TYPE, filename: null };
}

/**
 * A large result as a whole file, written by a worker thread of the pool. Its rows are built a
 * chunk at a time, as the worker asks for them: the table is never held whole.
 */
export async function renderSalaryFile(
  pool: RenderPool,
  result: SalaryResult,
  format: FileFormat,
  filenameBase: string,
  schema: CustomSchema | null,
  labelling: Labelling | null = null,
): Promise<CachedFile> {
  const columns = salaryColumns(result.fields, result.meta);
  const shape = schema === null ? null : schemaShape(columns, schema);
  const chunks = function* (): Generator<Row[]> {
    for (const part of chunksOf(result.data)) {
      const rows = part.map((r) => salaryRow(r, result.fields, result.meta));
      yield shape === null ? rows : rows.map(shape.row);
    }
  };
  const table = { rowName: 'salary', columns: shape?.columns ?? columns, chunks: chunks() };
  const body = await pool.render(format, table, fileName(result, filenameBase, labelling));
  return { body, ...fileMeta(format, filenameBase) };
}

export function* jsonChunks(result: SalaryResult): Generator<string> {
  yield '{"data":[';
  let separator = '';
  for (const part of chunksOf(result.data)) {
    yield separator + part.map((r) => JSON.stringify(r)).join(',');
    separator = ',';
  }
  yield `],"meta":${JSON.stringify(result.meta)}}`;
}
