import type { Format } from '../plans/index.js';
import { toCsv } from './csv.js';
import { toParquet } from './parquet.js';
import type { Table } from './table.js';
import { toXlsx } from './xlsx.js';
import { toXml } from './xml.js';

export type { Table, Column, ColumnType, Cell } from './table.js';
export { XML_NAMESPACE } from './xml.js';

export const MEDIA_TYPES: Readonly<Record<Format, string>> = Object.freeze({
  json: 'application/json',
  csv: 'text/csv',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  xml: 'application/xml',
  parquet: 'application/vnd.apache.parquet',
});

export interface Rendered {
  body: Buffer;
  contentType: string;
  filename: string;
}

/** A table in one of the file formats (everything but JSON), with its type and file name. */
export async function renderTable(
  format: Exclude<Format, 'json'>,
  table: Table,
  name: { base: string; root: string; attributes?: Record<string, string> },
): Promise<Rendered> {
  const filename = `${name.base}.${format}`;
  switch (format) {
    case 'csv':
      return {
        body: toCsv(table),
        contentType: `${MEDIA_TYPES.csv}; charset=utf-8; header=present`,
        filename,
      };
    case 'xlsx':
      return { body: await toXlsx(table, name.root), contentType: MEDIA_TYPES.xlsx, filename };
    case 'xml':
      return {
        body: toXml(table, name.root, name.attributes ?? {}),
        contentType: `${MEDIA_TYPES.xml}; charset=utf-8`,
        filename,
      };
    case 'parquet':
      return { body: toParquet(table), contentType: MEDIA_TYPES.parquet, filename };
  }
}
