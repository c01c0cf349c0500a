import { COUNTRIES } from '../../src/catalog/countries.js';
import { JOBS, LEVELS } from '../../src/catalog/jobs.js';
import type { Inputs } from './inputs.js';
import type { LevelProfile } from './level-profile.js';
import { LEVEL_WEIGHTS } from './level-profile.js';
import { mean, sigmaFromMeanMedian, weightedVariance } from './math.js';
import type { JobSpread } from './occupation-evidence.js';
import type { OccupationProfile } from './occupation-profile.js';

/**
 * Step 4: log-normal dispersion within one (country, job, level) cell. docs/data.md §5 gives
 * the derivation: whole-economy σ from published mean/median ratios, corrected for the way a
 * single log-normal overstates a mixture's spread, minus the between-job and between-level
 * variance the model already carries.
 */

/** No cell is narrower than this (p90/p10 ≈ 1.67). */
export const SIGMA_FLOOR = 0.2;

export interface CountrySigma {
  readonly source: string;
  readonly meanMedianRatio: number;
  readonly sigma: number;
}

export interface Dispersion {
  readonly observed: ReadonlyMap<string, CountrySigma>;
  readonly defaultSigma: number;
  /** Mixture correction: true log variance / variance implied by the aggregate mean/median. */
  readonly kappa: number;
  readonly kappaByYear: ReadonlyMap<
    number,
    { readonly within: number; readonly between: number; readonly total: number }
  >;
  readonly levelVariance: number;
  readonly cells: ReadonlyMap<
    string,
    { readonly sigmaCountry: number; readonly jobVariance: number; readonly sigmaCell: number }
  >;
}

function observedSigmas(inputs: Inputs): Map<string, CountrySigma> {
  const out = new Map<string, CountrySigma>();
  const pl = inputs.pl.filter((r) => r.meanAboveMedianPct !== undefined).at(-1);
  if (pl?.meanAboveMedianPct === undefined) throw new Error('GUS: no mean-above-median figure');
  const plRatio = 1 + pl.meanAboveMedianPct / 100;
  out.set('PL', {
    source: `GUS ${pl.month}: mean ${pl.meanAboveMedianPct} % above median`,
    meanMedianRatio: plRatio,
    sigma: sigmaFromMeanMedian(plRatio),
  });
  const ee = (indicator: string) =>
    Number(inputs.context.find((r) => r.geo === 'EE' && r.indicator === indicator)?.value);
  const eeRatio =
    ee('avg monthly gross wages and salaries (whole year)') /
    ee('median monthly gross wages (whole year)');
  out.set('EE', {
    source: 'Statistics Estonia 2023: mean / median monthly gross wage',
    meanMedianRatio: eeRatio,
    sigma: sigmaFromMeanMedian(eeRatio),
  });
  const bg = inputs.bgActivity.find((r) => r.section === 'Total');
  if (!bg) throw new Error('NSI: no total hourly row');
  const bgRatio = bg.meanHourly / bg.medianHourly;
  out.set('BG', {
    source: 'NSI SES Oct 2022: mean / median gross hourly earnings',
    meanMedianRatio: bgRatio,
    sigma: sigmaFromMeanMedian(bgRatio),
  });
  return out;
}

/** BG SES by occupation: within-group + between-group log variance vs the aggregate's. */
function mixtureCorrection(inputs: Inputs) {
  const byYear = new Map<number, { within: number; between: number; total: number }>();
  for (const year of [2018, 2022]) {
    const rows = inputs.bgOccupation.filter((r) => r.year === year);
    const total = rows.find((r) => r.group === 0);
    const groups = rows.filter((r) => r.group > 0);
    if (!total) throw new Error(`NSI ${year}: no total row`);
    const w = groups.map((r) => r.employees);
    const within =
      groups.reduce(
        (s, r) => s + r.employees * sigmaFromMeanMedian(r.meanMonthly / r.medianMonthly) ** 2,
        0,
      ) / w.reduce((s, x) => s + x, 0);
    const between = weightedVariance(
      groups.map((r) => Math.log(r.medianMonthly)),
      w,
    );
    byYear.set(year, {
      within,
      between,
      total: sigmaFromMeanMedian(total.meanMonthly / total.medianMonthly) ** 2,
    });
  }
  const kappa = mean([...byYear.values()].map((v) => (v.within + v.between) / v.total));
  return { kappa, byYear };
}

export function buildDispersion(
  inputs: Inputs,
  jobs: OccupationProfile,
  levels: LevelProfile,
): Dispersion {
  const observed = observedSigmas(inputs);
  const defaultSigma = Math.sqrt(
    mean(['PL', 'EE'].map((c) => (observed.get(c)?.sigma ?? NaN) ** 2)),
  );
  const { kappa, byYear } = mixtureCorrection(inputs);
  const levelVariance = weightedVariance(
    LEVELS.map((l) => Math.log(levels.ratio[l])),
    LEVELS.map((l) => LEVEL_WEIGHTS[l]),
  );
  const cells = new Map<string, { sigmaCountry: number; jobVariance: number; sigmaCell: number }>();
  for (const country of COUNTRIES) {
    const sigmaCountry = observed.get(country.code)?.sigma ?? defaultSigma;
    const ratios = jobs.jobRatio.get(country.code) ?? new Map<string, number>();
    const jobVariance = weightedVariance(
      JOBS.map((j) => Math.log(ratios.get(j.slug) ?? NaN)),
      JOBS.map((j) => jobs.jobWeights[j.slug] ?? NaN),
    );
    const residual = kappa * sigmaCountry ** 2 - jobVariance - levelVariance;
    cells.set(country.code, {
      sigmaCountry,
      jobVariance,
      sigmaCell: Math.sqrt(Math.max(SIGMA_FLOOR ** 2, residual)),
    });
  }
  return { observed, defaultSigma, kappa, kappaByYear: byYear, levelVariance, cells };
}

/**
 * Per-job multiplier of the cell spread from published quantiles by occupation (NL quartiles,
 * PL deciles): within each table a job's σ relative to the root mean square σ of the table's
 * jobs, averaged in logs over the tables that cover the job (1 where none does), then scaled so
 * that Σ_j w_j m_j² = 1 and the country's within-cell variance is unchanged.
 */
export function jobSpreadFactors(
  spreads: readonly JobSpread[],
  weights: Readonly<Record<string, number>>,
): Map<string, number> {
  const tables = [...new Set(spreads.map((s) => s.country))];
  const relative = spreads.map((s) => {
    const same = spreads.filter((o) => o.country === s.country);
    return { job: s.job, m: s.sigma / Math.sqrt(mean(same.map((o) => o.sigma ** 2))) };
  });
  const raw = new Map(
    JOBS.map((j) => {
      const ms = relative.filter((r) => r.job === j.slug).map((r) => Math.log(r.m));
      return [j.slug, ms.length === 0 ? 1 : Math.exp(mean(ms))];
    }),
  );
  const scale = Math.sqrt(
    JOBS.reduce((s, j) => s + (weights[j.slug] ?? NaN) * (raw.get(j.slug) ?? NaN) ** 2, 0),
  );
  if (tables.length === 0) return raw;
  return new Map(JOBS.map((j) => [j.slug, (raw.get(j.slug) ?? NaN) / scale]));
}
