import { stringify } from 'csv-stringify/sync';
import type { ChunkedTable } from './table.js';

const OPTIONS = {
  record_delimiter: 'windows',
  cast: { boolean: (v: boolean) => (v ? 'true' : 'false') },
} as const;

/** RFC 4180: a header row, CRLF line ends, fields quoted when they need it. UTF-8. */
export async function* csvChunks(table: ChunkedTable): AsyncGenerator<string> {
  const names = table.columns.map((c) => c.name);
  yield stringify([names], OPTIONS);
  for await (const rows of table.chunks) {
    yield stringify(
      rows.map((row) => names.map((n) => row[n] ?? '')),
      OPTIONS,
    );
  }
}
