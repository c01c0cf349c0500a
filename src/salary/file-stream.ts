import { Readable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Row, RenderPool } from '../formats/index.js';
import { AppError } from '../errors/index.js';
import type { Format } from '../plans/index.js';
import { schemaShape, type CustomSchema } from './custom-schema.js';
import { fileName, type Labelling } from './render.js';
import type { PublicRecord, SalaryMeta } from './schemas.js';
import type { PreparedSelection } from './service.js';
import { salaryColumns, salaryRow } from './table.js';

/**
 * Records per chunk, and looked at between two turns of the event loop: reading, shaping and
 * encoding 500 records is 1–3 ms of the main thread, so lookups wait at most that long.
 */
const RECORDS_PER_TURN = 500;

/** A file being produced: its bytes, and how many records it has so far (all, once ended). */
export interface SalaryFileStream {
  readonly stream: Readable;
  rows(): number;
}

/**
 * The selection's records in chunks of RECORDS_PER_TURN, read from the release a chunk per turn of
 * the event loop (other requests are answered between chunks); `keep` drops records.
 */
async function* recordChunks(
  prepared: PreparedSelection,
  keep: (r: PublicRecord) => boolean,
): AsyncGenerator<PublicRecord[]> {
  let chunk: PublicRecord[] = [];
  let seen = 0;
  for (const record of prepared.records()) {
    if (keep(record)) chunk.push(record);
    if (chunk.length === RECORDS_PER_TURN) {
      yield chunk;
      chunk = [];
    }
    if (++seen % RECORDS_PER_TURN === 0) await nextTurn();
  }
  if (chunk.length > 0) yield chunk;
}

/**
 * A selection as the bytes of a file in `format` (JSON included), byte for byte what the bulk
 * endpoints answer, produced as it is read: the records are read a chunk at a time, turned into
 * the file (in a worker thread of `pool`, JSON here) and passed on, only as fast as the reader
 * of `stream` takes them. Neither the records nor the file are ever held whole. Throws NO_DATA
 * (before anything is produced) when no record is kept.
 */
export async function salaryFileStream(
  prepared: PreparedSelection,
  format: Format,
  schema: CustomSchema | null,
  labelling: Labelling | null,
  pool: RenderPool,
  keep: (r: PublicRecord) => boolean = () => true,
): Promise<SalaryFileStream> {
  const source = recordChunks(prepared, keep);
  const first = await source.next();
  if (first.done === true) throw new AppError('NO_DATA', 'No figures match this selection.');
  let count = 0;
  const records = (async function* () {
    count += first.value.length;
    yield first.value;
    for await (const chunk of source) {
      count += chunk.length;
      yield chunk;
    }
  })();
  const rows = () => count;
  const meta = (): SalaryMeta => {
    const m = prepared.meta(count);
    return labelling === null ? m : { ...m, attribution: labelling.attribution };
  };
  const fields = prepared.fields;
  const columns = salaryColumns(fields);
  const shape = schema === null ? null : schemaShape(columns, schema);
  const release = prepared.meta(0);
  const tableRows = async function* (): AsyncGenerator<Row[]> {
    for await (const chunk of records) {
      const full = chunk.map((r) => salaryRow(r, fields, release));
      yield shape === null ? full : full.map(shape.row);
    }
  };
  if (format === 'json') {
    const json = async function* (): AsyncGenerator<string> {
      yield '{"data":[';
      let separator = '';
      const chunks = shape === null ? records : tableRows();
      for await (const part of chunks) {
        yield separator + part.map((r) => JSON.stringify(r)).join(',');
        separator = ',';
      }
      yield `],"meta":${JSON.stringify(meta())}}`;
    };
    return { stream: Readable.from(json(), { objectMode: false, highWaterMark: 1 }), rows };
  }
  const table = {
    rowName: 'salary',
    columns: shape?.columns ?? columns,
    chunks: tableRows(),
  };
  return {
    stream: pool.stream(format, table, fileName({ meta: meta() }, 'export', labelling)),
    rows,
  };
}
