import * as arrow from 'apache-arrow';
import {
  Compression,
  Table as WasmTable,
  WriterPropertiesBuilder,
  writeParquet,
} from 'parquet-wasm/node';
import type { Column, Table } from './table.js';

function vector(column: Column, table: Table): arrow.Vector {
  const values = table.rows.map((r) => r[column.name] ?? null);
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
        new arrow.DateMillisecond(),
      );
    default:
      return arrow.vectorFromArray(
        values.map((v) => (v === null ? null : String(v))),
        new arrow.Utf8(),
      );
  }
}

/** Parquet written by parquet-wasm (Rust's parquet crate) from a typed Arrow table; Snappy. */
export function toParquet(table: Table): Buffer {
  const arrowTable = new arrow.Table(
    Object.fromEntries(table.columns.map((c) => [c.name, vector(c, table)])),
  );
  const wasmTable = WasmTable.fromIPCStream(arrow.tableToIPC(arrowTable, 'stream'));
  const properties = new WriterPropertiesBuilder().setCompression(Compression.SNAPPY).build();
  return Buffer.from(writeParquet(wasmTable, properties));
}
