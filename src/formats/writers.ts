// The writers of the formats whose libraries are large (exceljs, parquet-wasm: about 0.7 s to
// load), imported only when a file in one of them is first written.
export { parquetStream } from './parquet.js';
export { xlsxStream } from './xlsx.js';
