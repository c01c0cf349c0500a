import { availableParallelism } from 'node:os';
import { Readable } from 'node:stream';
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { Piscina } from 'piscina';
import type { Format } from '../plans/index.js';
import type { Cell, ChunkedTable, Column, Row } from './table.js';

export type FileFormat = Exclude<Format, 'json'>;

export interface FileName {
  readonly root: string;
  readonly attributes?: Record<string, string>;
  /** Who the file names as its author (an Excel workbook's creator); this service when omitted. */
  readonly creator?: string;
}

/** A streamed render: the rows come, and the file's bytes go, on `port`, a chunk at a time. */
export interface StreamTask {
  readonly format: FileFormat;
  readonly rowName: string;
  readonly columns: readonly Column[];
  readonly name: FileName;
  readonly port: MessagePort;
}

/** Main thread → worker, each an answer to `need`: the next rows (encodeRows), or the end. */
export type ToWorker = { rows: Uint8Array } | { end: true } | { abort: string };
/** Worker → main thread: wants the next rows; a piece of the file; the file is complete. */
export type FromWorker = { need: true } | { bytes: Uint8Array } | { done: true };

// TextEncoder gives an ArrayBuffer of its own: a small Buffer may be a slice of Node's shared
// pool, which must never be transferred.
const encodeJson = (value: unknown): Uint8Array => new TextEncoder().encode(JSON.stringify(value));
const decodeJson = <T>(bytes: Uint8Array): T =>
  JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8')) as T;

function columnar(columns: readonly Column[], rows: readonly Row[]): (readonly Cell[])[] {
  return columns.map((c) => rows.map((r) => r[c.name] ?? null));
}

function rowsOf(columns: readonly Column[], values: readonly (readonly Cell[])[]): Row[] {
  const count = values[0]?.length ?? 0;
  const rows: Record<string, Cell>[] = [];
  for (let i = 0; i < count; i++) {
    const row: Record<string, Cell> = {};
    columns.forEach((c, j) => (row[c.name] = values[j]?.[i] ?? null));
    rows.push(row);
  }
  return rows;
}

/** One chunk of rows, columnar, as JSON bytes. */
export const encodeRows = (columns: readonly Column[], rows: readonly Row[]): Uint8Array =>
  encodeJson(columnar(columns, rows));

export const decodeRows = (columns: readonly Column[], bytes: Uint8Array): Row[] =>
  rowsOf(columns, decodeJson<(readonly Cell[])[]>(bytes));

/** Worker threads stay up this long without work, then exit (their memory with them). */
const IDLE_MS = 30_000;

/**
 * A worker's JavaScript heap, in MB. A render holds one chunk of rows at a time, so it needs
 * about 24 MB of old generation whatever the table's length (four times the full archive as
 * Excel completes in 32); left unbounded, V8 lets the heap grow well past that before
 * collecting, and a worker writing the full archive as Excel held some 200 MB.
 */
const WORKER_HEAP = { maxOldGenerationSizeMb: 48, maxYoungGenerationSizeMb: 4 };

/** A stream's bytes as one buffer. */
export async function collect(stream: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of stream) parts.push(Buffer.from(part as Uint8Array | string));
  return Buffer.concat(parts);
}

/**
 * Large files (a bulk result as Excel, Parquet, CSV or XML: up to seconds of CPU) are written
 * in worker threads, so the main thread keeps serving lookups and /health meanwhile. The rows
 * travel a chunk at a time as columnar JSON bytes, transferred without a copy: a structured
 * clone of tens of thousands of row objects alone blocked the main thread for a tenth of a
 * second or more, and a whole table decoded in the worker cost tens of megabytes.
 */
export class RenderPool {
  readonly #pool: Piscina<StreamTask, undefined>;

  /** `threads`: at most this many files rendered at once (default: cores − 1, at least 1). */
  constructor(threads = Math.max(1, availableParallelism() - 1)) {
    this.#pool = new Piscina({
      // The worker is a sibling module: .ts under the test loader, .js once built.
      filename: new URL(
        `./render-worker${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`,
        import.meta.url,
      ).href,
      minThreads: 0,
      maxThreads: threads,
      idleTimeout: IDLE_MS,
      resourceLimits: WORKER_HEAP,
    });
  }

  /**
   * The whole file as one buffer: the rows go to the worker a chunk at a time (stream), so a
   * worker never holds more than one chunk of the table, however large.
   */
  render(format: FileFormat, table: ChunkedTable, name: FileName): Promise<Buffer> {
    return collect(this.stream(format, table, name));
  }

  /**
   * The file as a stream, written by a worker as the rows come: the rows are read from
   * `table.chunks` one chunk at a time when the worker asks for them, and only while the
   * returned stream's reader keeps up (backpressure), so neither the rows nor the file are ever
   * held whole. Destroying the stream stops the worker's task.
   */
  stream(format: FileFormat, table: ChunkedTable, name: FileName): Readable {
    const { port1: port, port2 } = new MessageChannel();
    const chunks = (async function* () {
      yield* table.chunks;
    })();
    let wanted = false;
    let finished = false;
    const post = (message: ToWorker, transfer: ArrayBuffer[] = []) => {
      if (!finished) port.postMessage(message, transfer);
    };
    const finish = () => {
      finished = true;
      port.close();
    };
    const sendNext = async (): Promise<void> => {
      wanted = false;
      try {
        const next = await chunks.next();
        if (next.done === true) return post({ end: true });
        const rows = encodeRows(table.columns, next.value);
        post({ rows }, [rows.buffer as ArrayBuffer]);
      } catch (error) {
        out.destroy(error as Error);
      }
    };
    const out = new Readable({
      read() {
        if (wanted) void sendNext();
      },
      destroy(error, callback) {
        post({ abort: error?.message ?? 'stopped' });
        finish();
        void chunks.return(undefined);
        callback(error);
      },
    });
    port.on('message', (message: FromWorker) => {
      if ('need' in message) {
        wanted = true;
        if (out.readableLength < out.readableHighWaterMark) void sendNext();
      } else if ('bytes' in message) {
        const { bytes } = message;
        out.push(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
      } else {
        finish();
        out.push(null);
      }
    });
    const task: StreamTask = {
      format,
      rowName: table.rowName,
      columns: table.columns,
      name,
      port: port2,
    };
    this.#pool
      .run(task, { transferList: [port2] })
      .catch((error: unknown) => out.destroy(error as Error));
    return out;
  }

  close(): Promise<void> {
    return this.#pool.destroy();
  }
}
