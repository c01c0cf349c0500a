import type ExcelJS from 'exceljs';
import { createRequire } from 'node:module';
import { PassThrough, type Readable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { ChunkedTable, Column, Row } from './table.js';

// exceljs (about 30 MB of memory and half a second to load) is loaded with the first workbook
// written, not with this module: a render worker thread imports every writer, and a dynamic
// import() there is not resolved by the test loader.
const require = createRequire(import.meta.url);
const exceljs = () => require('exceljs') as typeof ExcelJS;

const WIDTH_SAMPLE_ROWS = 500;
/** Rows written between two turns of the event loop (exceljs: ~0.1 ms a row). */
const ROWS_PER_TURN = 50;

function numFmt(column: Column): Partial<ExcelJS.Style> {
  switch (column.type) {
    case 'integer':
      return { numFmt: '#,##0' };
    case 'number':
      return { numFmt: '0.0000' };
    case 'date':
      return { numFmt: 'yyyy-mm-dd' };
    default:
      return {};
  }
}

/** The first `count` rows (fewer when the table is shorter), and an iterator of all its rows. */
async function sampled(
  table: ChunkedTable,
  count: number,
): Promise<{ sample: readonly Row[]; rows: AsyncGenerator<Row> }> {
  const source = (async function* () {
    for await (const chunk of table.chunks) yield* chunk;
  })();
  const sample: Row[] = [];
  while (sample.length < count) {
    const next = await source.next();
    if (next.done === true) break;
    sample.push(next.value);
  }
  const rows = (async function* () {
    yield* sample;
    yield* source;
  })();
  return { sample, rows };
}

/**
 * A real .xlsx: typed cells, a bold frozen header row, column widths fitted to the content
 * (of the first rows). Written by exceljs' streaming writer: each row is committed to the zip
 * stream as it is added, so a large table never sits in memory as a workbook (its rows may
 * arrive in chunks); every ROWS_PER_TURN rows it lets the event loop run, so a large workbook
 * never stalls other requests (a full archive is seconds of work).
 */
export function xlsxStream(
  table: ChunkedTable,
  sheetName: string,
  creator = 'European Salary Data API',
): Readable {
  const out = new PassThrough();
  const write = async (): Promise<void> => {
    const workbook = new (exceljs().stream.xlsx.WorkbookWriter)({ stream: out, useStyles: true });
    workbook.creator = creator;
    // Fixed dates: the same table gives the same workbook (but for the zip entries' times).
    workbook.created = new Date(0);
    workbook.modified = new Date(0);
    const sheet = workbook.addWorksheet(sheetName.slice(0, 31), {
      views: [{ state: 'frozen', ySplit: 1 }],
    });
    const { sample, rows } = await sampled(table, WIDTH_SAMPLE_ROWS);
    sheet.columns = table.columns.map((c) => ({
      header: c.name,
      key: c.name,
      width: Math.min(
        60,
        Math.max(c.name.length, ...sample.map((r) => String(r[c.name] ?? '').length)) + 2,
      ),
      style: numFmt(c),
    }));
    const header = sheet.getRow(1);
    header.font = { bold: true };
    header.commit();
    let written = 0;
    for await (const row of rows) {
      if (++written % ROWS_PER_TURN === 0) await nextTurn();
      const values: ExcelJS.CellValue[] = table.columns.map((c) => {
        const v = row[c.name] ?? null;
        return c.type === 'date' && typeof v === 'string' ? new Date(v) : v;
      });
      sheet.addRow(values).commit();
    }
    sheet.commit();
    await workbook.commit();
  };
  write().catch((error: unknown) => out.destroy(error as Error));
  return out;
}
