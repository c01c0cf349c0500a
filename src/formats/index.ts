import { Readable } from 'node:stream';
import type { Format } from '../plans/index.js';
import { csvChunks } from './csv.js';
import { parquetStream } from './parquet.js';
import { chunked, type ChunkedTable, type Table } from './table.js';
import { xlsxStream } from './xlsx.js';
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
import { collect, type FileName } from './render-pool.js';

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
 * Excel and Parquet writers' libraries (exceljs; apache-arrow and parquet-wasm: about 0.5 s and
 * 30 MB of memory each to load) are loaded on first use, each only for its own format.
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
      return xlsxStream(table, name.root, name.creator);
    case 'parquet':
      return parquetStream(table);
  }
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
