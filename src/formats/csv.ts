import { stringify } from 'csv-stringify/sync';
import type { Table } from './table.js';

/** RFC 4180: a header row, CRLF line ends, fields quoted when they need it. UTF-8. */
export function toCsv(table: Table): Buffer {
  const names = table.columns.map((c) => c.name);
  const text = stringify(
    table.rows.map((row) => names.map((n) => row[n] ?? '')),
    {
      header: true,
      columns: names,
      record_delimiter: 'windows',
      cast: { boolean: (v) => (v ? 'true' : 'false') },
    },
  );
  return Buffer.from(text, 'utf8');
}
