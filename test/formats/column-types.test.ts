import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { XMLParser } from 'fast-xml-parser';
import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import { EXTRA_FIELD_NAMES } from '../../src/salary/fields.js';
import { SALARY_COLUMNS } from '../../src/salary/table.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { accountOnPlan } from '../helpers/accounts.js';

type Kind = 'string' | 'integer' | 'number' | 'boolean' | 'date';

/**
 * The published schema (docs/formats.md), written out here rather than read from the code, so
 * that a column whose type changes in the code fails these tests. Its names must be the code's
 * columns and custom fields, in order: a new column needs a line here.
 */
const SCHEMA: readonly (readonly [string, Kind])[] = [
  ['country', 'string'],
  ['country_name', 'string'],
  ['job', 'string'],
  ['job_title', 'string'],
  ['isco_code', 'string'],
  ['level', 'string'],
  ['year', 'integer'],
  ['currency', 'string'],
  ['period', 'string'],
  ['p25', 'integer'],
  ['median', 'integer'],
  ['p75', 'integer'],
  ['local_currency', 'string'],
  ['local_median', 'integer'],
  ['basis', 'string'],
  ['projected', 'boolean'],
  ['confidence', 'string'],
  ['confidence_note', 'string'],
  ['release', 'string'],
  ['release_date', 'date'],
  ['p10', 'integer'],
  ['p90', 'integer'],
  ['mean', 'integer'],
  ['fx_rate', 'number'],
  ['local_p25', 'integer'],
  ['local_p75', 'integer'],
  ['monthly_median', 'integer'],
  ['hourly_median', 'number'],
  ['yoy_median_pct', 'number'],
];
const KIND = new Map(SCHEMA);

/** Physical and logical type in the Parquet file's own schema (what any reader sees). */
const PARQUET: Record<Kind, { type: string; logical: string | undefined }> = {
  string: { type: 'BYTE_ARRAY', logical: 'STRING' },
  integer: { type: 'INT32', logical: undefined },
  number: { type: 'DOUBLE', logical: undefined },
  boolean: { type: 'BOOLEAN', logical: undefined },
  date: { type: 'INT32', logical: 'DATE' },
};
/** The value a Parquet reader returns. */
const PARQUET_VALUE: Record<Kind, (v: unknown) => boolean> = {
  string: (v) => typeof v === 'string',
  integer: (v) => Number.isInteger(v),
  number: (v) => typeof v === 'number' && Number.isFinite(v),
  boolean: (v) => typeof v === 'boolean',
  date: (v) => v instanceof Date && v.toISOString().endsWith('T00:00:00.000Z'),
};
/** Excel cell type and number format. */
const EXCEL: Record<Kind, { type: ExcelJS.ValueType; numFmt: string | undefined }> = {
  string: { type: ExcelJS.ValueType.String, numFmt: undefined },
  integer: { type: ExcelJS.ValueType.Number, numFmt: '#,##0' },
  number: { type: ExcelJS.ValueType.Number, numFmt: '0.0000' },
  boolean: { type: ExcelJS.ValueType.Boolean, numFmt: undefined },
  date: { type: ExcelJS.ValueType.Date, numFmt: 'yyyy-mm-dd' },
};
/** The text of a value in XML and CSV. */
const TEXT: Record<Kind, RegExp> = {
  string: /^\S(.*\S)?$/,
  integer: /^-?\d+$/,
  number: /^-?\d+(\.\d+)?$/,
  boolean: /^(true|false)$/,
  date: /^\d{4}-\d{2}-\d{2}$/,
};

const NAMES = SCHEMA.map(([name]) => name);
const ALL_FIELDS = `fields=${EXTRA_FIELD_NAMES.join(',')}`;
// Four levels of one year with a previous year: no column is empty.
const LOOKUP = `/api/v1/salary?country=AT&job=software-engineer&year=2026&${ALL_FIELDS}`;

const arrayBufferOf = (bytes: Buffer): ArrayBuffer =>
  bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;

/** Every column of a Parquet file: name, physical and logical type. */
function parquetColumns(file: ArrayBuffer) {
  return parquetMetadata(file)
    .schema.slice(1)
    .map((s) => ({ name: s.name, type: s.type, logical: s.logical_type?.type }));
}

/** Every data row of the first sheet as [cell type, number format, value] per column. */
async function excelCells(bytes: Buffer) {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(arrayBufferOf(bytes));
  const sheet = workbook.worksheets[0]!;
  const header = (sheet.getRow(1).values as unknown[]).slice(1);
  const rows: { type: ExcelJS.ValueType; numFmt: string | undefined; value: unknown }[][] = [];
  sheet.eachRow((row, n) => {
    if (n === 1) return;
    rows.push(
      header.map((_, i) => {
        const cell = row.getCell(i + 1);
        return { type: cell.type, numFmt: cell.numFmt, value: cell.value };
      }),
    );
  });
  return { header, rows };
}

/** Every `<salary>` element as its children's [name, text] in document order. */
function xmlRows(body: string, root: string): [string, string][][] {
  type Element = Record<string, { '#text'?: string }[]>;
  const doc = new XMLParser({ preserveOrder: true, parseTagValue: false }).parse(body) as Record<
    string,
    { salary: Element[] }[]
  >[];
  const rootNode = doc.find((n) => root in n)!;
  return rootNode[root]!.map((element) =>
    element.salary.map((child) => {
      const [name, content] = Object.entries(child)[0]!;
      return [name, String(content[0]?.['#text'] ?? '')];
    }),
  );
}

describe('column types of every column in every typed format, from one table of the schema', () => {
  let t: TestApp;
  let key: string;
  let session: string;
  before(async () => {
    t = await buildTestApp();
    const account = await accountOnPlan(t, 'enterprise');
    key = account.apiKey!;
    session = account.session;
  });
  after(() => t.close());

  const fetchAs = async (format: string, url = LOOKUP) => {
    const res = await t.app.inject({
      url: `${url}&format=${format}`,
      headers: { authorization: `Bearer ${key}` },
    });
    assert.equal(res.statusCode, 200, res.body.slice(0, 300));
    return res;
  };

  it("the table names the code's columns and custom fields, in order", () => {
    assert.deepEqual(NAMES, [...SALARY_COLUMNS.map((c) => c.name), ...EXTRA_FIELD_NAMES]);
  });

  it('Parquet: the physical and logical type of every column, and the values read back', async () => {
    const file = arrayBufferOf((await fetchAs('parquet')).rawPayload);
    assert.deepEqual(
      parquetColumns(file),
      SCHEMA.map(([name, kind]) => ({ name, ...PARQUET[kind] })),
    );
    const rows = await parquetReadObjects({ file });
    assert.equal(rows.length, 4);
    for (const row of rows)
      for (const [name, kind] of SCHEMA)
        assert.ok(PARQUET_VALUE[kind](row[name]), `${name} (${kind}): ${String(row[name])}`);
    assert.equal((rows[0]!.release_date as Date).toISOString().slice(0, 10), '2026-11-29');
  });

  it('Excel: the cell type and number format of every cell', async () => {
    const { header, rows } = await excelCells((await fetchAs('xlsx')).rawPayload);
    assert.deepEqual(header, NAMES);
    assert.equal(rows.length, 4);
    for (const row of rows)
      row.forEach((cell, i) => {
        const [name, kind] = SCHEMA[i]!;
        assert.deepEqual(
          { type: cell.type, numFmt: cell.numFmt },
          EXCEL[kind],
          `${name} (${kind}): ${String(cell.value)}`,
        );
      });
  });

  it('XML: one child per column in order, each value written as its type', async () => {
    const rows = xmlRows((await fetchAs('xml')).body, 'salaries');
    assert.equal(rows.length, 4);
    for (const row of rows) {
      assert.deepEqual(
        row.map(([name]) => name),
        NAMES,
      );
      for (const [name, text] of row)
        assert.match(text, TEXT[KIND.get(name)!], `${name} (${KIND.get(name)})`);
    }
  });

  it('CSV: the header, and each value written as its type', async () => {
    const [header, ...rows]: string[][] = parse((await fetchAs('csv')).body);
    assert.deepEqual(header, NAMES);
    assert.equal(rows.length, 4);
    for (const row of rows)
      row.forEach((text, i) => {
        const [name, kind] = SCHEMA[i]!;
        assert.match(text, TEXT[kind], `${name} (${kind})`);
      });
  });

  it('a custom schema keeps each chosen column’s type under its new name', async () => {
    const chosen: [string, string][] = [
      ['release_date', 'Built'],
      ['median', 'Median_EUR'],
      ['projected', 'is_projected'],
      ['hourly_median', 'hourly'],
      ['country', 'land'],
    ];
    const put = await t.app.inject({
      method: 'PUT',
      url: '/api/v1/account/schema',
      headers: { authorization: `Bearer ${session}` },
      payload: { fields: chosen.map(([field, name]) => ({ field, name })) },
    });
    assert.equal(put.statusCode, 200, put.body);
    try {
      const url = '/api/v1/salary?country=AT&job=software-engineer&year=2026';
      const file = arrayBufferOf((await fetchAs('parquet', url)).rawPayload);
      assert.deepEqual(
        parquetColumns(file),
        chosen.map(([field, name]) => ({ name, ...PARQUET[KIND.get(field)!] })),
      );
      const { header, rows } = await excelCells((await fetchAs('xlsx', url)).rawPayload);
      assert.deepEqual(
        header,
        chosen.map(([, name]) => name),
      );
      rows[0]!.forEach((cell, i) =>
        assert.deepEqual(
          { type: cell.type, numFmt: cell.numFmt },
          EXCEL[KIND.get(chosen[i]![0])!],
          chosen[i]![1],
        ),
      );
    } finally {
      await t.app.inject({
        method: 'DELETE',
        url: '/api/v1/account/schema',
        headers: { authorization: `Bearer ${session}` },
      });
    }
  });
});
