import ExcelJS from 'exceljs';
import type { Table } from './table.js';

/** A real .xlsx: typed cells, a bold frozen header row, column widths fitted to the content. */
export async function toXlsx(table: Table, sheetName: string): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  workbook.creator = 'European Salary Data API';
  workbook.created = new Date(0);
  const sheet = workbook.addWorksheet(sheetName.slice(0, 31), {
    views: [{ state: 'frozen', ySplit: 1 }],
  });
  sheet.columns = table.columns.map((c) => ({
    header: c.name,
    key: c.name,
    width: Math.min(
      60,
      Math.max(
        c.name.length,
        ...table.rows.slice(0, 500).map((r) => String(r[c.name] ?? '').length),
      ) + 2,
    ),
    style:
      c.type === 'integer'
        ? { numFmt: '#,##0' }
        : c.type === 'number'
          ? { numFmt: '0.0000' }
          : c.type === 'date'
            ? { numFmt: 'yyyy-mm-dd' }
            : {},
  }));
  for (const row of table.rows) {
    sheet.addRow(
      Object.fromEntries(
        table.columns.map((c) => {
          const v = row[c.name] ?? null;
          return [c.name, c.type === 'date' && typeof v === 'string' ? new Date(v) : v];
        }),
      ),
    );
  }
  sheet.getRow(1).font = { bold: true };
  return Buffer.from(await workbook.xlsx.writeBuffer());
}
