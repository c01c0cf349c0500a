import { COUNTRIES } from '../catalog/index.js';
import { JOBS } from '../catalog/index.js';
import type { Cell, Column, Row, Table } from '../formats/index.js';
import { EXTRA_FIELDS } from './fields.js';
import type { PublicRecord, SalaryMeta } from './schemas.js';
import type { SalaryResult } from './service.js';

/** The standard columns of salary figures in CSV, Excel, XML and Parquet, in this order. */
export const SALARY_COLUMNS: readonly Column[] = Object.freeze([
  { name: 'country', type: 'string' },
  { name: 'country_name', type: 'string' },
  { name: 'job', type: 'string' },
  { name: 'job_title', type: 'string' },
  { name: 'isco_code', type: 'string' },
  { name: 'level', type: 'string' },
  { name: 'year', type: 'integer' },
  { name: 'currency', type: 'string' },
  { name: 'period', type: 'string' },
  { name: 'p25', type: 'integer' },
  { name: 'median', type: 'integer' },
  { name: 'p75', type: 'integer' },
  { name: 'local_currency', type: 'string' },
  { name: 'local_median', type: 'integer' },
  { name: 'basis', type: 'string' },
  { name: 'projected', type: 'boolean' },
  { name: 'confidence', type: 'string' },
  { name: 'confidence_note', type: 'string' },
  { name: 'release', type: 'string' },
  { name: 'release_date', type: 'date' },
]);

const COUNTRY_NAMES = new Map(COUNTRIES.map((c) => [c.code, c.name]));
const JOB_BY_SLUG = new Map(JOBS.map((j) => [j.slug, j]));

/** The last column of every file answered to a test-mode key, valued `test` (docs/test-mode.md). */
export const MODE_COLUMN: Column = Object.freeze({ name: 'mode', type: 'string' });

/**
 * The standard columns, then the requested custom fields in their canonical order; for a
 * test-mode answer (`meta.mode`) the mode column last.
 */
export function salaryColumns(
  fields: readonly string[],
  meta?: Pick<SalaryMeta, 'mode'>,
): Column[] {
  const columns = [...SALARY_COLUMNS, ...fields.map((f) => EXTRA_FIELDS[f]!.column)];
  if (meta?.mode === 'test') columns.push(MODE_COLUMN);
  return columns;
}

/** One record as a row of the salary table. */
export function salaryRow(r: PublicRecord, fields: readonly string[], meta: SalaryMeta): Row {
  const job = JOB_BY_SLUG.get(r.job);
  const row: Record<string, Cell> = {
    country: r.country,
    country_name: COUNTRY_NAMES.get(r.country) ?? null,
    job: r.job,
    job_title: job?.title ?? null,
    isco_code: job?.iscoCode ?? null,
    level: r.level,
    year: r.year,
    currency: r.currency,
    period: r.period,
    p25: r.p25,
    median: r.median,
    p75: r.p75,
    local_currency: r.local_currency,
    local_median: r.local_median,
    basis: r.basis,
    projected: r.projected,
    confidence: r.confidence,
    confidence_note: r.confidence_note,
    release: meta.release.version,
    release_date: meta.release.created_at.slice(0, 10),
  };
  for (const f of fields) row[f] = (r[f] as string | number | null | undefined) ?? null;
  if (meta.mode === 'test') row.mode = 'test';
  return row;
}

export function salaryTable(result: SalaryResult): Table {
  return {
    rowName: 'salary',
    columns: salaryColumns(result.fields, result.meta),
    rows: result.data.map((r) => salaryRow(r, result.fields, result.meta)),
  };
}
