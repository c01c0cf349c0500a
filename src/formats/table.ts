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
