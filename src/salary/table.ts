import type { Column, Table } from '../formats/index.js';
import type { SalaryResponse } from './schemas.js';

/** The columns of salary figures in CSV, Excel, XML and Parquet, in this order. */
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
  { name: 'basis', type: 'string' },
  { name: 'projected', type: 'boolean' },
  { name: 'confidence', type: 'string' },
  { name: 'release', type: 'string' },
  { name: 'release_date', type: 'date' },
]);

export function salaryTable(response: SalaryResponse): Table {
  const { meta } = response;
  return {
    rowName: 'salary',
    columns: SALARY_COLUMNS,
    rows: response.data.map((r) => ({
      country: r.country,
      country_name: meta.country.name,
      job: r.job,
      job_title: meta.job.title,
      isco_code: meta.job.isco_code,
      level: r.level,
      year: r.year,
      currency: r.currency,
      period: r.period,
      p25: r.p25,
      median: r.median,
      p75: r.p75,
      basis: r.basis,
      projected: r.projected,
      confidence: r.confidence,
      release: meta.release.version,
      release_date: meta.release.created_at.slice(0, 10),
    })),
  };
}
