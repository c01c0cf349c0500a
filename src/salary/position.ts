import type { Principal } from '../auth/index.js';
import { COUNTRIES } from '../catalog/index.js';
import { JOBS } from '../catalog/index.js';
import { AppError } from '../errors/index.js';
import type { Column, Row, Table } from '../formats/index.js';
import { assertPlanHas, type Format, type Plan, type PlanId } from '../plans/index.js';
import { bandOf, percentileOf, tailFit, type Band, type Percentiles } from './position-model.js';
import type { SalaryMeta } from './schemas.js';
import type { SalaryService } from './service.js';
import { MODE_COLUMN } from './table.js';

/** What to place: a gross annual salary in a country, job, level and year. */
export interface PayPositionQuery {
  country: string;
  job: string;
  level: string;
  year?: number;
  salary: number;
  /** EUR (default) or the country's local currency of that year. */
  currency?: string;
}

/** The distribution a salary was placed in (EUR a year), and how it is extended. */
export interface PositionDistribution extends Percentiles {
  currency: 'EUR';
  interpolation: 'log-normal between published percentiles';
  tails: 'log-normal fitted to p10 and p90';
  /** Mean and standard deviation of ln(salary) of the tails' log-normal. */
  log_mean: number;
  log_sd: number;
}

export interface PayPosition {
  country: string;
  job: string;
  level: string;
  year: number;
  salary: number;
  currency: string;
  salary_eur: number;
  percentile: number;
  band: Band;
  distribution: PositionDistribution;
  local_currency: string;
  fx_rate: number;
  basis: string;
  projected: boolean;
  confidence: string;
}

export interface PayPositionResult {
  data: PayPosition;
  meta: SalaryMeta;
}

export interface PayPositionService {
  /** Checks the query against the catalogue and the plan (400/403/404/503), then places the salary. */
  position(query: PayPositionQuery, principal: Principal, format: Format): PayPositionResult;
}

const round = (value: number, digits: number): number => {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
};

/**
 * Pay position (Developer and higher): the salary service resolves the selection and applies
 * the plan's format and history rules; the position reads the record's five percentiles.
 */
export function createPayPositionService(deps: {
  salary: SalaryService;
  plans: Readonly<Record<PlanId, Plan>>;
}): PayPositionService {
  const { salary, plans } = deps;
  const minimumRank = plans.developer.rank;
  return {
    position(query, principal, format) {
      assertPlanHas(plans, principal.plan, (p) => p.rank >= minimumRank, 'Pay position');
      const { country, job, level, year } = query;
      const prepared = salary.prepare({ country, job, level, year }, principal, format);
      const first = prepared.records().next();
      if (first.done === true) throw new AppError('NO_DATA', 'No figures match this selection.');
      const publicRecord = first.value;
      const record = prepared.release
        .cell(publicRecord.country, publicRecord.job, publicRecord.year)
        .find((r) => r.level === publicRecord.level);
      if (record === undefined) throw new AppError('NO_DATA', 'No figures match this selection.');
      const currency = (query.currency ?? 'EUR').toUpperCase();
      if (currency !== 'EUR' && currency !== record.local_currency) {
        const allowed = [...new Set(['EUR', record.local_currency])];
        throw AppError.invalidParams([
          {
            name: 'currency',
            reason: `${query.currency} is neither EUR nor the currency of ${record.country} in ${record.year}`,
            allowed,
          },
        ]);
      }
      const salaryEur = currency === 'EUR' ? query.salary : query.salary / record.fx_rate;
      const { logMean, logSd } = tailFit(record);
      return {
        data: {
          country: record.country,
          job: record.job,
          level: record.level,
          year: record.year,
          salary: query.salary,
          currency,
          salary_eur: Math.round(salaryEur),
          percentile: percentileOf(salaryEur, record),
          band: bandOf(salaryEur, record),
          distribution: {
            currency: 'EUR',
            p10: record.p10,
            p25: record.p25,
            median: record.median,
            p75: record.p75,
            p90: record.p90,
            interpolation: 'log-normal between published percentiles',
            tails: 'log-normal fitted to p10 and p90',
            log_mean: round(logMean, 6),
            log_sd: round(logSd, 6),
          },
          local_currency: record.local_currency,
          fx_rate: record.fx_rate,
          basis: record.basis,
          projected: record.basis === 'projected',
          confidence: record.confidence,
        },
        meta: prepared.meta(1),
      };
    },
  };
}

/**
 * The columns of a pay position in CSV, Excel, XML and Parquet, in this order. Every amount sits
 * beside the column naming its currency: `salary` in `salary_currency` (as asked), `salary_eur`
 * in EUR, the distribution (p10–p90, and log_mean, log_sd of ln EUR) in `distribution_currency`,
 * and `fx_rate` converts EUR to `local_currency`.
 */
export const POSITION_COLUMNS: readonly Column[] = Object.freeze([
  { name: 'country', type: 'string' },
  { name: 'country_name', type: 'string' },
  { name: 'job', type: 'string' },
  { name: 'job_title', type: 'string' },
  { name: 'level', type: 'string' },
  { name: 'year', type: 'integer' },
  { name: 'salary', type: 'number' },
  { name: 'salary_currency', type: 'string' },
  { name: 'salary_eur', type: 'integer' },
  { name: 'percentile', type: 'number' },
  { name: 'band', type: 'string' },
  { name: 'distribution_currency', type: 'string' },
  { name: 'p10', type: 'integer' },
  { name: 'p25', type: 'integer' },
  { name: 'median', type: 'integer' },
  { name: 'p75', type: 'integer' },
  { name: 'p90', type: 'integer' },
  { name: 'log_mean', type: 'number' },
  { name: 'log_sd', type: 'number' },
  { name: 'local_currency', type: 'string' },
  { name: 'fx_rate', type: 'number' },
  { name: 'basis', type: 'string' },
  { name: 'projected', type: 'boolean' },
  { name: 'confidence', type: 'string' },
  { name: 'release', type: 'string' },
  { name: 'release_date', type: 'date' },
]);

const COUNTRY_NAMES = new Map(COUNTRIES.map((c) => [c.code, c.name]));
const JOB_TITLES = new Map(JOBS.map((j) => [j.slug, j.title]));

/** A pay position as a one-row table (the file formats). */
export function positionTable(result: PayPositionResult): Table {
  const d = result.data;
  const row: Row = {
    country: d.country,
    country_name: COUNTRY_NAMES.get(d.country) ?? null,
    job: d.job,
    job_title: JOB_TITLES.get(d.job) ?? null,
    level: d.level,
    year: d.year,
    salary: d.salary,
    salary_currency: d.currency,
    salary_eur: d.salary_eur,
    percentile: d.percentile,
    band: d.band,
    distribution_currency: d.distribution.currency,
    p10: d.distribution.p10,
    p25: d.distribution.p25,
    median: d.distribution.median,
    p75: d.distribution.p75,
    p90: d.distribution.p90,
    log_mean: d.distribution.log_mean,
    log_sd: d.distribution.log_sd,
    local_currency: d.local_currency,
    fx_rate: d.fx_rate,
    basis: d.basis,
    projected: d.projected,
    confidence: d.confidence,
    release: result.meta.release.version,
    release_date: result.meta.release.created_at.slice(0, 10),
  };
  // An answer to a test-mode key: the mode column last, as in the salary files.
  if (result.meta.mode === 'test') {
    const columns = [...POSITION_COLUMNS, MODE_COLUMN];
    return { rowName: 'position', columns, rows: [{ ...row, mode: 'test' }] };
  }
  return { rowName: 'position', columns: POSITION_COLUMNS, rows: [row] };
}
