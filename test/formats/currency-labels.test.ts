import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { XMLParser } from 'fast-xml-parser';
import { parquetReadObjects } from 'hyparquet';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { accountOnPlan } from '../helpers/accounts.js';

type Row = Record<string, unknown>;

/** One file's rows, read back with a reader independent of the writers. */
async function rowsOf(format: string, body: string, raw: Buffer): Promise<Row[]> {
  switch (format) {
    case 'csv':
      return parse<Row>(body, { columns: true });
    case 'xlsx': {
      const workbook = new ExcelJS.Workbook();
      await workbook.xlsx.load(raw as unknown as ArrayBuffer);
      const sheet = workbook.worksheets[0]!;
      const header = (sheet.getRow(1).values as unknown[]).slice(1) as string[];
      const rows: Row[] = [];
      sheet.eachRow((row, n) => {
        if (n === 1) return;
        const values = (row.values as unknown[]).slice(1);
        rows.push(Object.fromEntries(header.map((h, i) => [h, values[i]])));
      });
      return rows;
    }
    case 'xml': {
      const doc = new XMLParser({ parseTagValue: false }).parse(body) as Record<string, Row>;
      const root = Object.values(doc).find((v) => typeof v === 'object')!;
      const rows = Object.values(root).find((v) => typeof v === 'object') as Row | Row[];
      return Array.isArray(rows) ? rows : [rows];
    }
    default:
      return (await parquetReadObjects({
        file: raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength) as ArrayBuffer,
      })) as Row[];
  }
}

const FILE_FORMATS = ['csv', 'xlsx', 'xml', 'parquet'] as const;

describe('every figure names its currency, in every format', () => {
  let t: TestApp;
  let key: string;
  const get = async (url: string) => {
    const res = await t.app.inject({ url, headers: { authorization: `Bearer ${key}` } });
    assert.equal(res.statusCode, 200, res.body.slice(0, 300));
    return res;
  };
  before(async () => {
    t = await buildTestApp();
    key = (await accountOnPlan(t, 'enterprise')).apiKey as string;
  });
  after(() => t.close());

  for (const [country, local] of [
    ['PL', 'PLN'],
    ['DE', 'EUR'],
  ] as const) {
    const cell = `country=${country}&job=software-engineer&level=senior`;

    it(`pay position in ${local} (${country}): JSON labels the salary ${local} and the distribution EUR`, async () => {
      const eur = (await get(`/api/v1/salary/position?${cell}&salary=50000`)).json().data;
      const salary = Math.round(50000 * eur.fx_rate);
      const { data } = (
        await get(`/api/v1/salary/position?${cell}&salary=${salary}&currency=${local}`)
      ).json();
      assert.equal(data.currency, local);
      assert.equal(data.local_currency, local);
      assert.equal(data.distribution.currency, 'EUR');
      assert.ok(Math.abs(data.salary_eur * data.fx_rate - salary) <= data.fx_rate);
      assert.equal(data.distribution.median, eur.distribution.median);
    });

    for (const format of FILE_FORMATS) {
      it(`pay position in ${local} (${country}) as ${format}: each amount beside its own currency`, async () => {
        const query = `/api/v1/salary/position?${cell}&salary=200000&currency=${local}`;
        const { data } = (await get(query)).json();
        const res = await get(`${query}&format=${format}`);
        const [row] = await rowsOf(format, res.body, res.rawPayload);
        assert.ok(row !== undefined);
        assert.equal(row.currency, undefined, 'no column claims one currency for the whole row');
        assert.equal(row.salary_currency, local);
        assert.equal(Number(row.salary), 200000);
        assert.equal(row.distribution_currency, 'EUR');
        assert.equal(row.local_currency, local);
        const fx = Number(row.fx_rate);
        assert.equal(fx, data.fx_rate);
        for (const p of ['p10', 'p25', 'median', 'p75', 'p90'])
          assert.equal(Number(row[p]), data.distribution[p], p);
        // The salary in its currency is the EUR salary times the rate the file states.
        assert.ok(
          Math.abs(Number(row.salary_eur) * fx - 200000) <= fx,
          `${String(row.salary_eur)} × ${fx}`,
        );
      });
    }

    it(`lookup (${country}) in every format: EUR figures under currency, local ones under local_currency`, async () => {
      const query = `/api/v1/salary?${cell}&fields=fx_rate,local_p25,local_p75`;
      const [json] = (await get(query)).json().data;
      assert.equal(json.currency, 'EUR');
      assert.equal(json.local_currency, local);
      assert.equal(json.local_median, Math.round(json.median * json.fx_rate));
      for (const format of FILE_FORMATS) {
        const res = await get(`${query}&format=${format}`);
        const [row] = await rowsOf(format, res.body, res.rawPayload);
        assert.ok(row !== undefined);
        assert.equal(row.currency, 'EUR', format);
        assert.equal(row.local_currency, local, format);
        assert.equal(Number(row.median), json.median, format);
        const fx = Number(row.fx_rate);
        assert.equal(Number(row.local_median), Math.round(Number(row.median) * fx), format);
        assert.equal(Number(row.local_p25), Math.round(Number(row.p25) * fx), format);
      }
    });
  }
});
