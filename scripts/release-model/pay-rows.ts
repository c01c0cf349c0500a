import { readdirSync } from 'node:fs';
import { COUNTRIES } from '../../src/catalog/countries.js';
import { JOBS } from '../../src/catalog/jobs.js';
import { num, readCsv, text, type CsvRow } from './csv.js';

/**
 * Published pay figures by occupation, one per row, in the common layout of the national source
 * files (docs/data.md §3 describes every column):
 *
 *   country,ref_period,table,row_code,row_label,classification,isco08,isco_level,jobs,
 *   concept_gap,breakdown,statistic,period,pay_basis,bonuses,coverage,currency,value
 *
 * A row states what it measures (statistic, period, pay basis, bonuses, coverage) exactly as its
 * publisher does; conversions to the served concept are the model's (concepts.ts).
 */

export const PAY_ROW_COLUMNS = [
  'country',
  'ref_period',
  'table',
  'row_code',
  'row_label',
  'classification',
  'isco08',
  'isco_level',
  'jobs',
  'concept_gap',
  'breakdown',
  'statistic',
  'period',
  'pay_basis',
  'bonuses',
  'coverage',
  'currency',
  'value',
] as const;

export const STATISTICS = [
  'mean',
  'median',
  'p10',
  'p25',
  'p75',
  'p90',
  'scale',
  'minimum',
] as const;
export type RowStatistic = (typeof STATISTICS)[number];
export type Period = 'hour' | 'month' | 'year';
export type PayBasis = 'full-time' | 'fte' | 'all';

export interface PayRow {
  /** Source file id (the CSV's name without `.csv`). */
  readonly source: string;
  /** Line of the row in its file (2 = first data line), for messages. */
  readonly line: number;
  readonly country: string;
  /**
   * As published: `2022`, `2022-10`, a quarter `2022-Q4`, a half-year `2022-H1` or a school year
   * `2023/24`.
   */
  readonly refPeriod: string;
  /** Mid-point of the reference period as a decimal year (2022 → 2022.5, 2022-10 → 2022.79). */
  readonly time: number;
  /** Calendar year the reference period falls in (a school year: the year of its larger part). */
  readonly year: number;
  readonly table: string;
  readonly rowCode: string;
  readonly rowLabel: string;
  readonly classification: string;
  readonly isco: readonly string[];
  readonly iscoLevel: number;
  /** Catalogue jobs the row is evidence for; `total` marks the table's all-employee row. */
  readonly jobs: readonly string[];
  readonly conceptGap: string;
  readonly breakdown: string;
  readonly statistic: RowStatistic;
  readonly period: Period;
  readonly payBasis: PayBasis;
  readonly bonuses: string;
  readonly coverage: string;
  readonly currency: string;
  readonly value: number;
}

const COUNTRY_CODES = new Set(COUNTRIES.map((c) => c.code));
const JOB_SLUGS = new Set([...JOBS.map((j) => j.slug), 'total']);

/** Decimal-year mid-point and calendar year of a published reference period. */
export function referenceTime(period: string): { time: number; year: number } {
  let m = /^(\d{4})$/.exec(period);
  if (m) return { time: Number(m[1]) + 0.5, year: Number(m[1]) };
  m = /^(\d{4})-(\d{2})$/.exec(period);
  if (m) {
    const month = Number(m[2]);
    if (month < 1 || month > 12) throw new Error(`bad month in "${period}"`);
    return { time: Number(m[1]) + (month - 0.5) / 12, year: Number(m[1]) };
  }
  m = /^(\d{4})-Q([1-4])$/.exec(period);
  if (m) return { time: Number(m[1]) + (Number(m[2]) - 0.5) / 4, year: Number(m[1]) };
  m = /^(\d{4})-H([12])$/.exec(period);
  if (m) return { time: Number(m[1]) + (Number(m[2]) - 0.5) / 2, year: Number(m[1]) };
  // A school year runs September to August: its mid-point is 1 March of the second year.
  m = /^(\d{4})\/(\d{2})$/.exec(period);
  if (m) {
    const start = Number(m[1]);
    if ((start + 1) % 100 !== Number(m[2])) throw new Error(`bad school year "${period}"`);
    return { time: start + 1 + 2 / 12, year: start + 1 };
  }
  throw new Error(`reference period "${period}" is not YYYY, YYYY-MM, YYYY-Qn, YYYY-Hn or YYYY/YY`);
}

function oneOf<T extends string>(value: string, allowed: readonly T[], what: string): T {
  if (!(allowed as readonly string[]).includes(value))
    throw new Error(`${what} "${value}" is not one of ${allowed.join(', ')}`);
  return value as T;
}

function list(value: string): string[] {
  return value
    .split(';')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

export function parsePayRow(source: string, row: CsvRow, line: number): PayRow {
  try {
    const country = text(row, 'country');
    if (!COUNTRY_CODES.has(country)) throw new Error(`unknown country "${country}"`);
    const refPeriod = text(row, 'ref_period');
    const jobs = list(text(row, 'jobs'));
    for (const j of jobs) if (!JOB_SLUGS.has(j)) throw new Error(`unknown job "${j}"`);
    const value = num(row, 'value');
    if (!(value > 0)) throw new Error(`value ${value} is not positive`);
    return {
      source,
      line,
      country,
      refPeriod,
      ...referenceTime(refPeriod),
      table: text(row, 'table'),
      rowCode: text(row, 'row_code'),
      rowLabel: text(row, 'row_label'),
      classification: text(row, 'classification'),
      isco: list(text(row, 'isco08')),
      iscoLevel: Number(text(row, 'isco_level') || '0'),
      jobs,
      conceptGap: text(row, 'concept_gap'),
      breakdown: text(row, 'breakdown') || 'all',
      statistic: oneOf(text(row, 'statistic'), STATISTICS, 'statistic'),
      period: oneOf(text(row, 'period'), ['hour', 'month', 'year'] as const, 'period'),
      payBasis: oneOf(text(row, 'pay_basis'), ['full-time', 'fte', 'all'] as const, 'pay_basis'),
      bonuses: text(row, 'bonuses'),
      coverage: text(row, 'coverage'),
      currency: text(row, 'currency'),
      value,
    };
  } catch (err) {
    throw new Error(`${source}.csv line ${line}: ${(err as Error).message}`, { cause: err });
  }
}

/** Columns of the national average-earnings series files (`<cc>_<publisher>_average_earnings_…`). */
export const SERIES_COLUMNS = [
  'country',
  'year',
  'statistic',
  'period',
  'pay_basis',
  'bonuses',
  'coverage',
  'currency',
  'value',
  'status',
] as const;

/**
 * A row of an average-earnings series file as an all-employee pay row, so that an occupation
 * table without a total of its own can be converted through the national average of the same
 * concept. Rows of other periods (weeks, half-years, month ranges) are not pay rows.
 */
function seriesRow(source: string, row: CsvRow, line: number): PayRow | undefined {
  const period = text(row, 'year');
  if (!/^\d{4}(-Q[1-4]|-\d{2})?$/.test(period)) return undefined;
  if (!(STATISTICS as readonly string[]).includes(text(row, 'statistic'))) return undefined;
  if (!['hour', 'month', 'year'].includes(text(row, 'period'))) return undefined;
  if (text(row, 'value').trim() === '') return undefined;
  return parsePayRow(
    source,
    {
      ...row,
      ref_period: period,
      table: text(row, 'status'),
      row_code: '',
      row_label: 'all employees',
      classification: '',
      isco08: '',
      isco_level: '0',
      jobs: 'total',
      concept_gap: '',
      breakdown: 'all',
    },
    line,
  );
}

/**
 * Every row of every pay-row file in `dir`, and the average-earnings series as total rows;
 * callers select.
 */
export function loadPayRows(dir: string): PayRow[] {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.csv'))
    .sort();
  const rows: PayRow[] = [];
  for (const file of files) {
    const csv = readCsv(dir, file);
    const first = csv[0];
    if (first === undefined) continue;
    const source = file.slice(0, -4);
    if (PAY_ROW_COLUMNS.every((c) => c in first))
      csv.forEach((r, i) => rows.push(parsePayRow(source, r, i + 2)));
    else if (SERIES_COLUMNS.every((c) => c in first))
      csv.forEach((r, i) => {
        const row = seriesRow(source, r, i + 2);
        if (row) rows.push(row);
      });
  }
  return rows;
}
