/** A typed table: the same columns, in the same order, in every tabular format. */
export type ColumnType = 'string' | 'integer' | 'number' | 'boolean' | 'date';

export interface Column {
  readonly name: string;
  readonly type: ColumnType;
  readonly description?: string;
}

export type Cell = string | number | boolean | null;
export type Row = Readonly<Record<string, Cell>>;

export interface Table {
  /** Singular name of one row, e.g. `salary` (the XML element, the sheet name's base). */
  readonly rowName: string;
  readonly columns: readonly Column[];
  readonly rows: readonly Row[];
}

/** A table whose rows arrive in chunks (never all in memory at once): streamed exports. */
export interface ChunkedTable {
  readonly rowName: string;
  readonly columns: readonly Column[];
  readonly chunks: AsyncIterable<readonly Row[]> | Iterable<readonly Row[]>;
}

/** Rows per chunk when a table is written piece by piece (streamed responses). */
export const CHUNK_ROWS = 1000;

export function* chunksOf<T>(rows: readonly T[], size = CHUNK_ROWS): Generator<readonly T[]> {
  for (let i = 0; i < rows.length; i += size) yield rows.slice(i, i + size);
}

/** A whole table as a chunked one, in chunks of CHUNK_ROWS. */
export function chunked(table: Table): ChunkedTable {
  return { rowName: table.rowName, columns: table.columns, chunks: chunksOf(table.rows) };
}

/** The same rows in chunks of exactly `size` (the last one shorter), whatever came in. */
export async function* regrouped<T>(
  chunks: AsyncIterable<readonly T[]> | Iterable<readonly T[]>,
  size: number,
): AsyncGenerator<readonly T[]> {
  let group: T[] = [];
  for await (const chunk of chunks) {
    for (const row of chunk) {
      group.push(row);
      if (group.length === size) {
        yield group;
        group = [];
      }
    }
  }
  if (group.length > 0) yield group;
}
