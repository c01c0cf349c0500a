/** A typed table: the same columns, in the same order, in every tabular format. */
export type ColumnType = 'string' | 'integer' | 'number' | 'boolean' | 'date';

export interface Column {
  readonly name: string;
  readonly type: ColumnType;
  readonly description?: string;
}

export type Cell = string | number | boolean | null;

export interface Table {
  /** Singular name of one row, e.g. `salary` (the XML element, the sheet name's base). */
  readonly rowName: string;
  readonly columns: readonly Column[];
  readonly rows: readonly Readonly<Record<string, Cell>>[];
}

/** Rows per chunk when a table is written piece by piece (streamed responses). */
export const CHUNK_ROWS = 1000;

export function* chunksOf<T>(rows: readonly T[], size = CHUNK_ROWS): Generator<readonly T[]> {
  for (let i = 0; i < rows.length; i += size) yield rows.slice(i, i + size);
}
