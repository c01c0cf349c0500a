import { Readable } from 'node:stream';
import type { Format } from '../plans/index.js';
import { csvChunks } from './csv.js';
import { chunked, type ChunkedTable, type Table } from './table.js';
import type * as WriterModule from './writers.js';
import { xmlChunks } from './xml.js';

export {
  chunksOf,
  CHUNK_ROWS,
  type ChunkedTable,
  type Table,
  type Column,
  type ColumnType,
  type Cell,
  type Row,
} from './table.js';
export { NEUTRAL_XML_NAMESPACE, XML_NAMESPACE } from './xml.js';
export { RenderPool, type FileFormat, type FileName } from './render-pool.js';
import type { FileName } from './render-pool.js';

export const MEDIA_TYPES: Readonly<Record<Format, string>> = Object.freeze({
  json: 'application/json',
  csv: 'text/csv',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  xml: 'application/xml',
  parquet: 'application/vnd.apache.parquet',
});

/**
 * Tables with more rows than this are large: written as a stream by the format writers, and
 * (salary results) written once per release and cached; smaller ones are written at once.
 */
export const STREAM_ABOVE_ROWS = 500;

export interface Rendered {
  body: Buffer | Readable;
  contentType: string;
  filename: string;
}

/** The Content-Type and file name of a file in this format. */
export function fileMeta(
  format: Exclude<Format, 'json'>,
  base: string,
): { contentType: string; filename: string } {
  const contentType =
    format === 'csv'
      ? `${MEDIA_TYPES.csv}; charset=utf-8; header=present`
      : format === 'xml'
        ? `${MEDIA_TYPES.xml}; charset=utf-8`
        : MEDIA_TYPES[format];
  return { contentType, filename: `${base}.${format}` };
}

/**
 * A table whose rows come in chunks, in one of the file formats, produced as they come. The
 * Excel and Parquet writers (exceljs, parquet-wasm: about 0.7 s to load) are loaded on first use.
 */
export async function streamOf(
  format: Exclude<Format, 'json'>,
  table: ChunkedTable,
  name: FileName,
): Promise<Readable> {
  switch (format) {
    case 'csv':
      return Readable.from(csvChunks(table));
    case 'xml':
      return Readable.from(xmlChunks(table, name.root, name.attributes ?? {}));
    case 'xlsx':
      return (await fileWriters()).xlsxStream(table, name.root, name.creator);
    case 'parquet':
      return (await fileWriters()).parquetStream(table);
  }
}

type Writers = typeof WriterModule;
let writers: Writers | Promise<Writers> | undefined;

/** The Excel and Parquet writers, loaded on first use (or handed in by a render worker). */
function fileWriters(): Writers | Promise<Writers> {
  return (writers ??= import('./writers.js'));
}

/** A render worker's own, statically imported writers (a worker has no use for laziness). */
export function useWriters(loaded: Writers): void {
  writers = loaded;
}

async function collect(stream: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of stream) parts.push(Buffer.from(part as Uint8Array | string));
  return Buffer.concat(parts);
}

/** A table in one of the file formats as one buffer, however large (the render workers). */
export async function renderWhole(
  format: Exclude<Format, 'json'>,
  table: Table,
  name: FileName,
): Promise<Buffer> {
  return collect(await streamOf(format, chunked(table), name));
}

/**
 * A table in one of the file formats (everything but JSON), with its type and file name.
 * Every format is produced piece by piece; large tables go out as a stream.
 */
export async function renderTable(
  format: Exclude<Format, 'json'>,
  table: Table,
  name: FileName & { base: string },
): Promise<Rendered> {
  const stream = await streamOf(format, chunked(table), name);
  return {
    body: table.rows.length > STREAM_ABOVE_ROWS ? stream : await collect(stream),
    ...fileMeta(format, name.base),
  };
}
