import type * as Arrow from 'apache-arrow';
import { createRequire } from 'node:module';
import { Readable } from 'node:stream';
import type { ReadableStream as NodeWebReadableStream } from 'node:stream/web';
import type * as ParquetWasm from 'parquet-wasm/node';
import type { RecordBatch } from 'parquet-wasm/node';
import { regrouped, type ChunkedTable, type Column, type Row } from './table.js';

// apache-arrow and parquet-wasm (about 30 MB of memory and half a second to load) are loaded
// with the first Parquet file written, not with this module: a render worker thread imports
// every writer, and a dynamic import() there is not resolved by the test loader.
const require = createRequire(import.meta.url);
const libraries = () => ({
  arrow: require('apache-arrow') as typeof Arrow,
  parquet: require('parquet-wasm/node') as typeof ParquetWasm,
});

/** Rows per Parquet row group: each is converted and written on its own. */
const ROW_GROUP_ROWS = 10_000;

function vector(column: Column, rows: readonly Row[]): Arrow.Vector {
  const { arrow } = libraries();
  const values = rows.map((r) => r[column.name] ?? null);
  switch (column.type) {
    case 'integer':
      return arrow.vectorFromArray(values as (number | null)[], new arrow.Int32());
    case 'number':
      return arrow.vectorFromArray(values as (number | null)[], new arrow.Float64());
    case 'boolean':
      return arrow.vectorFromArray(values as (boolean | null)[], new arrow.Bool());
    case 'date':
      return arrow.vectorFromArray(
        values.map((v) => (v === null ? null : new Date(String(v)))),
        new arrow.DateDay(),
      );
    default:
      return arrow.vectorFromArray(
        values.map((v) => (v === null ? null : String(v))),
        new arrow.Utf8(),
      );
  }
}

/** One row group's rows as a record batch in parquet-wasm's memory. */
function recordBatch(table: ChunkedTable, rows: readonly Row[]): RecordBatch {
  const { arrow, parquet } = libraries();
  const arrowTable = new arrow.Table(
    Object.fromEntries(table.columns.map((c) => [c.name, vector(c, rows)])),
  );
  const batch = parquet.Table.fromIPCStream(arrow.tableToIPC(arrowTable, 'stream')).recordBatch(0);
  if (batch === undefined) throw new Error('parquet: empty record batch');
  return batch;
}

/**
 * Parquet written by parquet-wasm (Rust's parquet crate) from typed Arrow record batches,
 * Snappy-compressed, one row group per 10,000 rows converted only when the writer asks for it (the rows may
 * arrive in chunks of any size: they are regrouped).
 */
export async function parquetStream(table: ChunkedTable): Promise<Readable> {
  const { parquet } = libraries();
  const groups = regrouped(table.chunks, ROW_GROUP_ROWS);
  const batches = new ReadableStream<RecordBatch>({
    async pull(controller) {
      const next = await groups.next();
      if (next.done === true) controller.close();
      else controller.enqueue(recordBatch(table, next.value));
    },
  });
  const properties = new parquet.WriterPropertiesBuilder()
    .setCompression(parquet.Compression.SNAPPY)
    .setMaxRowGroupSize(ROW_GROUP_ROWS)
    .build();
  const bytes = await parquet.transformParquetStream(batches, properties);
  return Readable.fromWeb(bytes as NodeWebReadableStream<Uint8Array>);
}
