import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import type { Format } from '../plans/index.js';
import type { Cell, Table } from './table.js';

export type FileFormat = Exclude<Format, 'json'>;

export interface FileName {
  readonly root: string;
  readonly attributes?: Record<string, string>;
  /** Who the file names as its author (an Excel workbook's creator); this service when omitted. */
  readonly creator?: string;
}

/** What a render worker receives: the table as JSON bytes (one transfer, no deep clone). */
export interface RenderTask {
  readonly format: FileFormat;
  /** A `ColumnarTable` as UTF-8 JSON. */
  readonly table: Uint8Array;
  readonly name: FileName & { readonly base: string };
}

/** A table with one array of values per column: a third of the bytes of row objects. */
interface ColumnarTable {
  readonly rowName: string;
  readonly columns: Table['columns'];
  readonly values: readonly (readonly Cell[])[];
}

export function encodeTable(table: Table): Uint8Array {
  const values = table.columns.map((c) => table.rows.map((r) => r[c.name] ?? null));
  const columnar: ColumnarTable = { rowName: table.rowName, columns: table.columns, values };
  // TextEncoder gives an ArrayBuffer of its own: a small Buffer may be a slice of Node's
  // shared pool, which must never be transferred.
  return new TextEncoder().encode(JSON.stringify(columnar));
}

export function decodeTable(bytes: Uint8Array): Table {
  const { rowName, columns, values } = JSON.parse(
    Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'),
  ) as ColumnarTable;
  const count = values[0]?.length ?? 0;
  const rows: Record<string, Cell>[] = [];
  for (let i = 0; i < count; i++) {
    const row: Record<string, Cell> = {};
    columns.forEach((c, j) => (row[c.name] = values[j]?.[i] ?? null));
    rows.push(row);
  }
  return { rowName, columns, rows };
}

/** Worker threads stay up this long without work, then exit (their memory with them). */
const IDLE_MS = 30_000;

/**
 * Large files (a bulk result as Excel, Parquet, CSV or XML: up to seconds of CPU) are written
 * in worker threads, so the main thread keeps serving lookups and /health meanwhile. The
 * table travels as JSON bytes, transferred without a copy: a structured clone of tens of
 * thousands of row objects alone blocked the main thread for a tenth of a second or more.
 */
export class RenderPool {
  readonly #pool: Piscina<RenderTask, ArrayBufferView>;

  /** `threads`: at most this many files rendered at once (default: cores − 1, at least 1). */
  constructor(threads = Math.max(1, availableParallelism() - 1)) {
    // The worker is a sibling module: .ts under the test loader, .js once built.
    const extension = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
    this.#pool = new Piscina({
      filename: new URL(`./render-worker${extension}`, import.meta.url).href,
      minThreads: 0,
      maxThreads: threads,
      idleTimeout: IDLE_MS,
    });
  }

  async render(
    format: FileFormat,
    table: Table,
    name: FileName & { base: string },
  ): Promise<Buffer> {
    const bytes = encodeTable(table);
    const task: RenderTask = { format, table: bytes, name };
    const view = await this.#pool.run(task, { transferList: [bytes.buffer as ArrayBuffer] });
    return Buffer.from(view.buffer, view.byteOffset, view.byteLength);
  }

  close(): Promise<void> {
    return this.#pool.destroy();
  }
}
