import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** One CSV data row keyed by the header's column names. */
export type CsvRow = Readonly<Record<string, string>>;

/**
 * RFC 4180 CSV: comma-separated, fields optionally in double quotes, a doubled quote inside a
 * quoted field is a literal quote. The source files quote notes that contain commas, except
 * for URLs in the last column, which is why surplus fields are joined into the last column.
 */
export function parseCsv(text: string): CsvRow[] {
  const lines: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      row.push(cell);
      cell = '';
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++;
      row.push(cell);
      lines.push(row);
      row = [];
      cell = '';
    } else cell += ch;
  }
  if (cell !== '' || row.length > 0) {
    row.push(cell);
    lines.push(row);
  }
  const [header, ...body] = lines.filter((l) => l.length > 1 || l[0] !== '');
  if (!header) throw new Error('CSV has no header line');
  return body.map((cells, n) => {
    // Some files cite URLs with unquoted commas in their last column (page_read); the extra
    // fields belong to that column.
    if (cells.length > header.length)
      cells = [...cells.slice(0, header.length - 1), cells.slice(header.length - 1).join(',')];
    if (cells.length !== header.length) {
      throw new Error(`CSV line ${n + 2}: ${cells.length} fields, header has ${header.length}`);
    }
    return Object.fromEntries(header.map((name, k) => [name, cells[k] ?? '']));
  });
}

export function readCsv(dir: string, file: string): CsvRow[] {
  try {
    return parseCsv(readFileSync(join(dir, file), 'utf8'));
  } catch (err) {
    throw new Error(`${file}: ${(err as Error).message}`, { cause: err });
  }
}

export function text(row: CsvRow, column: string): string {
  const value = row[column];
  if (value === undefined) throw new Error(`missing column ${column}`);
  return value;
}

/** A numeric cell; anything that is not a finite number is an error, never a silent NaN. */
export function num(row: CsvRow, column: string): number {
  const raw = text(row, column).trim();
  const value = Number(raw);
  if (raw === '' || !Number.isFinite(value))
    throw new Error(`column ${column}: not a number: "${raw}"`);
  return value;
}
