import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { XMLParser } from 'fast-xml-parser';
import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { accountOnPlan } from '../helpers/accounts.js';

const URL_BASE = '/api/v1/salary?country=AT&job=software-engineer&year=2026';

describe('salary lookup in every format, read back with independent readers', () => {
  let t: TestApp;
  let key: string;
  let json: {
    data: Record<string, unknown>[];
    meta: { country: { name: string }; release: { version: string } };
  };
  before(async () => {
    t = await buildTestApp();
    key = (await accountOnPlan(t, 'enterprise')).apiKey as string;
    json = (
      await t.app.inject({ url: URL_BASE, headers: { authorization: `Bearer ${key}` } })
    ).json();
    assert.equal(json.data.length, 4);
  });
  after(() => t.close());

  const fetchAs = async (format: string, accept?: string) => {
    const res = await t.app.inject({
      url: format === '' ? URL_BASE : `${URL_BASE}&format=${format}`,
      headers: { authorization: `Bearer ${key}`, ...(accept ? { accept } : {}) },
    });
    assert.equal(res.statusCode, 200, res.body.slice(0, 300));
    return res;
  };

  const expectSameFigures = (rows: Record<string, unknown>[]) => {
    assert.equal(rows.length, json.data.length);
    rows.forEach((row, i) => {
      const expected = json.data[i]!;
      for (const field of [
        'country',
        'job',
        'level',
        'currency',
        'period',
        'basis',
        'confidence',
        'confidence_note',
      ]) {
        assert.equal(String(row[field]), expected[field], field);
      }
      for (const field of ['year', 'p25', 'median', 'p75'])
        assert.equal(Number(row[field]), expected[field], field);
      assert.equal(row.country_name, 'Austria');
      assert.equal(row.release, json.meta.release.version);
    });
  };

  it('CSV: RFC 4180 with a header row and CRLF, named file', async () => {
    const res = await fetchAs('csv');
    assert.match(String(res.headers['content-type']), /^text\/csv; charset=utf-8/);
    assert.equal(
      res.headers['content-disposition'],
      'attachment; filename="salary-AT-software-engineer-2026.csv"',
    );
    assert.ok(res.body.includes('\r\n'));
    assert.ok(res.body.startsWith('country,country_name,job,job_title,isco_code,level,year,'));
    expectSameFigures(parse(res.body, { columns: true }));
  });

  it('Excel: a real workbook with typed numbers and a frozen header', async () => {
    const res = await fetchAs('xlsx');
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(res.rawPayload as unknown as ArrayBuffer);
    const sheet = workbook.worksheets[0]!;
    assert.equal(sheet.views[0]?.state, 'frozen');
    const header = (sheet.getRow(1).values as unknown[]).slice(1) as string[];
    const rows: Record<string, unknown>[] = [];
    sheet.eachRow((row, n) => {
      if (n === 1) return;
      const values = (row.values as unknown[]).slice(1);
      rows.push(Object.fromEntries(header.map((h, i) => [h, values[i]])));
    });
    assert.equal(typeof rows[0]!.median, 'number', 'numbers are numbers, not text');
    assert.ok(rows[0]!.release_date instanceof Date, 'dates are dates');
    expectSameFigures(rows);
  });

  it('XML: well-formed, namespaced, one element per record', async () => {
    const res = await fetchAs('', 'application/xml');
    assert.match(String(res.headers['content-type']), /^application\/xml/);
    const doc = new XMLParser({ ignoreAttributes: false }).parse(res.body);
    assert.equal(doc.salaries['@_xmlns'], 'https://salary-api.eu/schema/v1');
    expectSameFigures(doc.salaries.salary);
  });

  it('Parquet: typed columns a Parquet reader understands', async () => {
    const res = await fetchAs('parquet');
    assert.equal(res.headers['content-type'], 'application/vnd.apache.parquet');
    const bytes = res.rawPayload;
    const rows = await parquetReadObjects({
      file: bytes.buffer.slice(
        bytes.byteOffset,
        bytes.byteOffset + bytes.byteLength,
      ) as ArrayBuffer,
    });
    assert.equal(typeof rows[0]!.median, 'number');
    assert.equal(typeof rows[0]!.projected, 'boolean');
    expectSameFigures(rows);
  });

  it('keeps UTF-8 names intact', async () => {
    const res = await t.app.inject({
      url: '/api/v1/salary?country=RO&job=nurse&level=mid&format=csv',
      headers: { authorization: `Bearer ${key}` },
    });
    assert.ok(res.body.includes('Romania'));
    const countries = (
      await t.app.inject({ url: '/api/v1/countries', headers: { authorization: `Bearer ${key}` } })
    ).json();
    assert.ok(countries.data.some((c: { native_name: string }) => c.native_name === 'Österreich'));
  });
});

describe('the full archive in every file format: complete, read back, written once', () => {
  let t: TestApp;
  let key: string;
  let expected: Record<string, unknown>[];
  before(async () => {
    t = await buildTestApp();
    key = (await accountOnPlan(t, 'enterprise')).apiKey as string;
    expected = (await archive('json')).json().data;
    assert.equal(expected.length, 29_484);
  });
  after(() => t.close());

  async function archive(format: string) {
    const res = await t.app.inject({
      url: `/api/v1/bulk/archive?year=all&format=${format}`,
      headers: { authorization: `Bearer ${key}` },
    });
    assert.equal(res.statusCode, 200, res.body.slice(0, 300));
    assert.equal(Number(res.headers['content-length']), res.rawPayload.length);
    return res;
  }

  /** Every row in order; the figures of every 97th row compared field by field. */
  const expectArchive = (rows: Record<string, unknown>[]) => {
    assert.equal(rows.length, expected.length);
    for (let i = 0; i < rows.length; i += 97) {
      const row = rows[i]!;
      const want = expected[i]!;
      for (const field of ['country', 'job', 'level', 'basis'])
        assert.equal(String(row[field]), want[field], `row ${i} ${field}`);
      for (const field of ['year', 'p25', 'median', 'p75'])
        assert.equal(Number(row[field]), want[field], `row ${i} ${field}`);
    }
  };

  it("the second request gets the first one's file, byte for byte", async () => {
    // Two writes of one workbook differ (its zip entries carry the time they were written), so
    // equal bytes mean the file was written once.
    const [first, second] = await Promise.all([archive('xlsx'), archive('xlsx')]);
    const third = await archive('xlsx');
    assert.ok(first.rawPayload.equals(second.rawPayload));
    assert.ok(first.rawPayload.equals(third.rawPayload));
  });

  it('CSV', async () => {
    const res = await archive('csv');
    const rows = parse<Record<string, unknown>>(res.body, { columns: true });
    expectArchive(rows);
  });

  it('XML', async () => {
    const res = await archive('xml');
    const doc = new XMLParser({ ignoreAttributes: false }).parse(res.body);
    assert.equal(doc.salaries['@_release'], '2026.11.8');
    expectArchive(doc.salaries.salary);
  });

  it('Excel, header bold and frozen', async () => {
    const res = await archive('xlsx');
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(res.rawPayload as unknown as ArrayBuffer);
    const sheet = workbook.worksheets[0]!;
    assert.equal(sheet.views[0]?.state, 'frozen');
    assert.equal(sheet.getRow(1).font?.bold, true);
    const header = (sheet.getRow(1).values as unknown[]).slice(1) as string[];
    const rows: Record<string, unknown>[] = [];
    sheet.eachRow((row, n) => {
      if (n > 1) {
        const values = (row.values as unknown[]).slice(1);
        rows.push(Object.fromEntries(header.map((h, i) => [h, values[i]])));
      }
    });
    assert.equal(typeof rows[0]!.median, 'number');
    expectArchive(rows);
  });

  it('Parquet, in several row groups', async () => {
    const res = await archive('parquet');
    const bytes = res.rawPayload;
    const file = bytes.buffer.slice(
      bytes.byteOffset,
      bytes.byteOffset + bytes.byteLength,
    ) as ArrayBuffer;
    const metadata = parquetMetadata(file);
    assert.ok(metadata.row_groups.length >= 3, `${metadata.row_groups.length} row groups`);
    expectArchive(await parquetReadObjects({ file }));
  });
});
