import { stringify } from 'csv-stringify/sync';
import { chunksOf, type Table } from './table.js';

const OPTIONS = {
  record_delimiter: 'windows',
  cast: { boolean: (v: boolean) => (v ? 'true' : 'false') },
} as const;

/** RFC 4180: a header row, CRLF line ends, fields quoted when they need it. UTF-8. */
export function* csvChunks(table: Table): Generator<string> {
  const names = table.columns.map((c) => c.name);
  yield stringify([names], OPTIONS);
  for (const rows of chunksOf(table.rows)) {
    yield stringify(
      rows.map((row) => names.map((n) => row[n] ?? '')),
      OPTIONS,
    );
  }
}
