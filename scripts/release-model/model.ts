import { COUNTRIES } from '../../src/catalog/countries.js';
import { JOBS, LEVELS, iscoMajorGroup } from '../../src/catalog/jobs.js';
import { buildCountrySeries, NAMA_FILE, type CountrySeries } from './country-series.js';
import { num, readCsv, text } from './csv.js';
import { eurPerModelUnit, modelCurrency, toModelCurrency, type FxRate } from './currency.js';
import { buildEvidence, describesJob, type Evidence, type JobRow } from './evidence.js';
import { loadFx, type FxTable } from './fx-rates.js';
import { countryJobWeights, jobWeights, loadGroupLevels, type GroupLevels } from './groups.js';
import { HELD_OUT } from './holdout.js';
import { fitJobLevels, type JobLevels, type JobObservation } from './job-levels.js';
import { floorCell } from './floor.js';
import { mixtureQuantile, type LogNormal } from './math.js';
import { loadMinimumWages, type MinimumWages } from './minimum-wage.js';
import { NATIONAL_SERIES } from './national-series.js';
import { loadPayRows, type PayRow } from './pay-rows.js';
import { buildSeniority, LEVEL_WEIGHTS, type SeniorityProfile } from './seniority.js';
import { buildSpread, type Spread } from './spread.js';

/**
 * The whole model of one release: every step's tables, and the served cell of any country, job,
 * level and year. docs/data.md walks through the steps in this order.
 */

export const FIXED_RATES_FILE = 'eu_council_euro_conversion_rates';
const EU = 'EU27_2020';

export interface ModelParams {
  readonly firstYear: number;
  readonly currentYear: number;
}

export interface Model {
  readonly params: ModelParams;
  readonly rows: readonly PayRow[];
  readonly fx: FxTable;
  readonly fxRate: FxRate;
  readonly fixedRates: ReadonlyMap<string, number>;
  readonly series: CountrySeries;
  readonly minimumWages: MinimumWages;
  readonly evidence: Evidence;
  /** The evidence rows the fit learns from (the held-out tables left out). */
  readonly fitRows: readonly JobRow[];
  readonly heldOutRows: readonly JobRow[];
  readonly groups: GroupLevels;
  readonly jobWeights: Readonly<Record<string, number>>;
  /** Each country's own job weights (its employees by ISCO major group). */
  readonly countryJobWeights: ReadonlyMap<string, Readonly<Record<string, number>>>;
  readonly payLevel: ReadonlyMap<string, number>;
  readonly seniority: SeniorityProfile;
  readonly spread: Spread;
  readonly levels: JobLevels;
  /** ln(statistic / mean) of a job's served distribution over its levels. */
  readonly lnStatisticRatio: (country: string, job: string, s: 'mean' | 'median') => number;
  /** Mean pay of a job (all levels) at decimal time t, model currency. */
  readonly jobMeanAt: (country: string, job: string, time: number) => number;
  readonly observation: (r: JobRow) => JobObservation;
  /** Refit the job levels on other observations (leave-out checks); the rest stays. */
  readonly refit: (rows: readonly JobRow[]) => JobLevels;
}

/** Rounds of the spread ↔ level fixed point. */
const ROUNDS = 6;

export function buildModel(dir: string, params: ModelParams): Model {
  const rows = loadPayRows(dir);
  const fixedRates = new Map(
    readCsv(dir, `${FIXED_RATES_FILE}.csv`).map((r) => [
      text(r, 'currency'),
      num(r, 'units_per_eur'),
    ]),
  );
  const fx = loadFx(dir, params.currentYear);
  const fxRate: FxRate = (cur, year) => fx.rate(cur, year);
  const toModel = (c: string, cur: string, y: number) =>
    toModelCurrency(c, cur, y, fxRate, fixedRates);
  const perEur = (c: string, y: number) => 1 / eurPerModelUnit(c, y, fxRate, fixedRates);

  const series = buildCountrySeries(dir, {
    firstYear: params.firstYear,
    currentYear: params.currentYear,
    perEur,
    national: NATIONAL_SERIES,
  });
  const years = range(params.firstYear, params.currentYear);
  const minimumWages = loadMinimumWages(dir, years, toModel);

  const converted = rows.map((r) => ({
    ...r,
    // Rows in another currency than the model's (EUR republications of a PLN table, kuna
    // amounts of Croatia) are put in the model currency of their year.
    value: r.value * toModel(r.country, r.currency, r.year),
    currency: modelCurrency(r.country),
  }));
  const evidence = buildEvidence(converted, series.lnMeanAt);
  const fitRows = evidence.rows.filter((r) => !HELD_OUT.has(r.row.source));
  const heldOutRows = evidence.rows.filter((r) => HELD_OUT.has(r.row.source));

  const nama = readCsv(dir, `${NAMA_FILE}.csv`).filter(
    (r) => text(r, 'year') === '2022' && !text(r, 'dataset_vintage').includes('first release'),
  );
  const namaEur = (geo: string) => {
    const row = nama.find((r) => text(r, 'country') === geo);
    if (!row) throw new Error(`nama_10_fte 2022: no ${geo}`);
    return num(row, 'value');
  };
  const eu2022 = namaEur(EU);
  // The Netherlands is not in nama_10_fte: its modelled mean of 2022 in EUR stands in.
  const namaEur2022 = (c: string) =>
    c === 'NL'
      ? (series.byCountry.get('NL')?.get(2022)?.mean ?? NaN)
      : namaEur(COUNTRIES.find((x) => x.code === c)?.eurostatCode ?? c);
  const groups = loadGroupLevels(dir, namaEur2022, eu2022);
  const weights = jobWeights(dir);
  const byCountry = countryJobWeights(dir, weights);
  const payLevel = new Map(COUNTRIES.map((c) => [c.code, Math.log(namaEur2022(c.code) / eu2022)]));
  const seniority = buildSeniority(converted);
  const groupOf = (job: string) => iscoMajorGroup(JOBS.find((j) => j.slug === job) ?? JOBS[0]!);

  const observation = (r: JobRow): JobObservation => ({
    id: r.id,
    country: r.row.country,
    job: r.job,
    time: r.row.time,
    lnValue: Math.log(r.row.value) + r.lnFactor,
    statistic: r.statistic,
    variance: r.variance,
    kind: r.kind,
  });

  let spread: Spread | undefined;
  let levels: JobLevels | undefined;
  let statCache = new Map<string, number>();
  const statRatio = (c: string, j: string, s: 'mean' | 'median') => {
    if (s === 'mean') return 0;
    const key = `${c}|${j}`;
    const hit = statCache.get(key);
    if (hit !== undefined) return hit;
    const parts: LogNormal[] = LEVELS.map((l) => ({
      weight: LEVEL_WEIGHTS[l],
      mean: spread ? spread.levelRatio(c, j, l) : (seniority.ratio.get(j)?.[l] ?? NaN),
      sigma: spread ? spread.sigma(c, j, l) : 0.4,
    }));
    const v = Math.log(mixtureQuantile(parts, 0.5));
    statCache.set(key, v);
    return v;
  };
  const fit = (rs: readonly JobRow[]) =>
    fitJobLevels({
      observations: rs.map(observation),
      lnCountryMean: series.lnMeanAt,
      lnGroupLevel: (c, g) => groups.ln.get(c)?.get(g) ?? NaN,
      lnStatisticRatio: statRatio,
      payLevel,
      groupOf,
    });
  for (let round = 0; round < ROUNDS; round++) {
    levels = fit(fitRows);
    const current = levels;
    spread = buildSpread({
      rows: converted,
      dir,
      levelRatio: seniority.ratio,
      levelWeights: LEVEL_WEIGHTS,
      jobWeight: (c, j) => byCountry.get(c)?.[j] ?? weights[j] ?? 0,
      jobMean: (c, j, y) => Math.exp(series.lnMeanAt(c, y + 0.5) + current.lnRatio(c, j, y + 0.5)),
      floor: (c, y) => minimumWages.annual.get(c)?.get(y) ?? 0,
      accept: (r, j) => !HELD_OUT.has(r.source) && describesJob(r, j),
      floorCell,
    });
    statCache = new Map();
  }
  if (!levels || !spread) throw new Error('model fit did not run');
  const finalLevels = levels;
  return {
    params,
    rows: converted,
    fx,
    fxRate,
    fixedRates,
    series,
    minimumWages,
    evidence,
    fitRows,
    heldOutRows,
    groups,
    jobWeights: weights,
    countryJobWeights: byCountry,
    payLevel,
    seniority,
    spread,
    levels: finalLevels,
    lnStatisticRatio: statRatio,
    jobMeanAt: (c, j, t) => Math.exp(series.lnMeanAt(c, t) + finalLevels.lnRatio(c, j, t)),
    observation,
    refit: fit,
  };
}

export function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}
