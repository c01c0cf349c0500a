import { COUNTRIES } from '../../src/catalog/countries.js';
import { JOBS, LEVELS, type Level } from '../../src/catalog/jobs.js';
import { num, readCsv, text } from './csv.js';
import { median, mixtureQuantile, pow, Z, type LogNormal } from './math.js';
import type { PayRow } from './pay-rows.js';

/**
 * Step 5: the spread of pay within a job (docs/data.md §7).
 *
 * Each job's spread relative to its whole table comes from published quantiles by occupation
 * (σ = ln(p90/p10) / 2.563 or ln(p75/p25) / 1.349): m_j = σ(job) / σ(all employees of the same
 * table), the median over the tables that publish the job, 1 where none does. A job's spread is
 * σ_occ(j) = m_j × σ₀, and a cell (one level) keeps what the job's levels do not already spread:
 * σ_cell(j) = √(σ_occ² − V_level(j)), at least SIGMA_MIN. Where a country publishes quantiles of
 * a job itself (GUS deciles, CBS quartiles), σ_occ of that cell is its own published figure.
 *
 * Within a job, a country's spread is then scaled by one factor λ_c so that its served grid
 * (every job and level, with the country's employment weights, the minimum wage applied)
 * reproduces the decile ratio D9/D1 the country publishes: its statistical office's full-time
 * figure where the sources hold one, otherwise Eurostat SES 2014. The cells become
 * λ_c × σ_cell(j) (never below SIGMA_MIN), and the steps between levels s_j(l)^λ' with λ' = λ_c
 * held within LEVEL_SCALE (seniority is published evidence; a country may be somewhat flatter or
 * steeper than the scales and the Spanish service profile, not arbitrarily). A country with no
 * published ratio takes the median λ; where the bounds bind, the gap to the published ratio
 * stays and the validation shows it.
 */

export const SES_DISTRIBUTION_FILE = 'eurostat_ses_distribution_quotes_2014_2022';
/** Base σ of log pay within an occupation (κ and m scale it). */
export const SIGMA_BASE = 0.4;
/** Narrowest spread a cell keeps (p90/p10 ≈ 1.29). */
export const SIGMA_MIN = 0.1;
/** How far a country's steps between levels may be flattened or steepened (exponent λ'). */
export const LEVEL_SCALE = Object.freeze({ min: 0.75, max: 1.25 });
/** Search range of λ. */
const LAMBDA_RANGE: { readonly min: number; readonly max: number } = { min: 0.05, max: 3 };

export interface DecileTarget {
  readonly country: string;
  readonly ratio: number;
  readonly year: number;
  readonly from: string;
}

export interface JobSpreadEvidence {
  readonly job: string;
  readonly source: string;
  readonly refPeriod: string;
  readonly relative: number;
}

/** Published quantile spread σ of one group of rows (a job or a table's total). */
function sigmaOf(rows: readonly PayRow[]): number | undefined {
  const get = (s: string) => rows.find((r) => r.statistic === s)?.value;
  const p10 = get('p10');
  const p90 = get('p90');
  if (p10 && p90) return Math.log(p90 / p10) / (2 * Z.p90);
  const p25 = get('p25');
  const p75 = get('p75');
  if (p25 && p75) return Math.log(p75 / p25) / (2 * Z.p75);
  return undefined;
}

export function jobSpreadEvidence(
  rows: readonly PayRow[],
  accept: (r: PayRow, job: string) => boolean,
): JobSpreadEvidence[] {
  const out: JobSpreadEvidence[] = [];
  const tables = new Map<string, PayRow[]>();
  for (const r of rows) {
    if (!['p10', 'p25', 'p75', 'p90'].includes(r.statistic)) continue;
    if (!['all', 'sex total'].includes(r.breakdown)) continue;
    const key = `${r.source}|${r.refPeriod}`;
    tables.set(key, [...(tables.get(key) ?? []), r]);
  }
  for (const [key, group] of tables) {
    const totals = group.filter((r) => r.jobs.includes('total'));
    const sigmaTotal = sigmaOf(totals);
    if (!sigmaTotal) continue;
    const byRow = new Map<string, PayRow[]>();
    for (const r of group.filter((x) => !x.jobs.includes('total') && x.jobs.length > 0))
      byRow.set(`${r.rowCode}|${r.rowLabel}`, [
        ...(byRow.get(`${r.rowCode}|${r.rowLabel}`) ?? []),
        r,
      ]);
    for (const rs of byRow.values()) {
      const s = sigmaOf(rs);
      const first = rs[0];
      if (!s || !first || first.iscoLevel < 3) continue;
      for (const job of first.jobs.filter((j) => accept(first, j)))
        out.push({
          job,
          source: first.source,
          refPeriod: first.refPeriod,
          relative: s / sigmaTotal,
        });
    }
    void key;
  }
  return out;
}

/** Each country's published decile ratio: national full-time figures first, then SES 2014. */
export function decileTargets(dir: string, rows: readonly PayRow[]): Map<string, DecileTarget> {
  const out = new Map<string, DecileTarget>();
  const totals = rows.filter(
    (r) => r.jobs.includes('total') && r.breakdown === 'all' && r.payBasis !== 'all',
  );
  for (const p90 of totals.filter((r) => r.statistic === 'p90')) {
    const p10 = totals.find(
      (r) =>
        r.statistic === 'p10' &&
        r.source === p90.source &&
        r.refPeriod === p90.refPeriod &&
        r.coverage === p90.coverage &&
        r.bonuses === p90.bonuses,
    );
    if (!p10) continue;
    const cur = out.get(p90.country);
    if (cur && cur.year >= p90.year) continue;
    out.set(p90.country, {
      country: p90.country,
      ratio: p90.value / p10.value,
      year: p90.year,
      from: `${p90.source} ${p90.refPeriod}`,
    });
  }
  const quotes = readCsv(dir, `${SES_DISTRIBUTION_FILE}.csv`);
  // Full-time monthly deciles of SES 2022 where quoted, then the SES 2014 hourly ratios.
  for (const p90 of quotes.filter((r) => text(r, 'statistic') === 'p90')) {
    const country = text(p90, 'country');
    const p10 = quotes.find(
      (r) =>
        text(r, 'statistic') === 'p10' &&
        text(r, 'country') === country &&
        text(r, 'ses_year') === text(p90, 'ses_year'),
    );
    if (!p10 || out.has(country)) continue;
    out.set(country, {
      country,
      ratio: num(p90, 'value') / num(p10, 'value'),
      year: num(p90, 'ses_year'),
      from: `Eurostat SES ${text(p90, 'ses_year')} (monthly, full-time)`,
    });
  }
  for (const r of quotes) {
    if (text(r, 'statistic') !== 'D9/D1') continue;
    const country = text(r, 'country');
    if (out.has(country)) continue;
    out.set(country, {
      country,
      ratio: num(r, 'value'),
      year: num(r, 'ses_year'),
      from: `Eurostat SES ${text(r, 'ses_year')} (hourly, all employees)`,
    });
  }
  return out;
}

/** σ_occ of each (country, job) that its own table publishes quantiles for: the latest. */
export function ownJobSigma(
  rows: readonly PayRow[],
  accept: (r: PayRow, job: string) => boolean,
): Map<string, { sigma: number; source: string; refPeriod: string }> {
  const groups = new Map<string, PayRow[]>();
  for (const r of rows) {
    if (!['p10', 'p25', 'p75', 'p90'].includes(r.statistic)) continue;
    if (r.iscoLevel < 3 || !['all', 'sex total'].includes(r.breakdown)) continue;
    if (/context only/.test(r.conceptGap)) continue;
    for (const job of r.jobs.filter((j) => j !== 'total' && accept(r, j))) {
      const k = `${r.country}|${job}|${r.source}|${r.refPeriod}|${r.rowCode}|${r.rowLabel}`;
      groups.set(k, [...(groups.get(k) ?? []), r]);
    }
  }
  const out = new Map<string, { sigma: number; source: string; refPeriod: string; time: number }>();
  for (const [k, rs] of groups) {
    const s = sigmaOf(rs);
    const first = rs[0];
    if (!s || !first) continue;
    const [country, job] = k.split('|');
    const key = `${country}|${job}`;
    const cur = out.get(key);
    if (!cur || first.time > cur.time)
      out.set(key, {
        sigma: s,
        source: first.source,
        refPeriod: first.refPeriod,
        time: first.time,
      });
  }
  return out;
}

export interface Spread {
  /** job → relative spread m_j and the tables behind it. */
  readonly relative: ReadonlyMap<string, { readonly m: number; readonly tables: number }>;
  readonly evidence: readonly JobSpreadEvidence[];
  readonly targets: ReadonlyMap<string, DecileTarget>;
  /** ISO → λ_c and whether it was fitted to the country's own decile ratio. */
  readonly scale: ReadonlyMap<string, { readonly lambda: number; readonly fitted: boolean }>;
  /** σ of a cell (one level of one job in one country). */
  readonly sigma: (country: string, job: string, level: Level) => number;
  /** Pay of a level over its job's mean in a country. */
  readonly levelRatio: (country: string, job: string, level: Level) => number;
  /** (country|job) → the job's own published spread, where its country publishes one. */
  readonly own: ReadonlyMap<string, { sigma: number; source: string; refPeriod: string }>;
}

export interface SpreadInputs {
  readonly rows: readonly PayRow[];
  readonly dir: string;
  /** Level ratios of each job before a country's scaling. */
  readonly levelRatio: ReadonlyMap<string, Readonly<Record<Level, number>>>;
  readonly levelWeights: Readonly<Record<Level, number>>;
  /** Employment weight of a job in a country's grid. */
  readonly jobWeight: (country: string, job: string) => number;
  /** Mean pay of a job (all levels) in a country and year. */
  readonly jobMean: (country: string, job: string, year: number) => number;
  /** Annual full-time minimum wage of a country and year, 0 where there is none. */
  readonly floor: (country: string, year: number) => number;
  /** Whether a row may set a job's own spread (a fitted table's row that describes the job). */
  readonly accept: (r: PayRow, job: string) => boolean;
  /** A cell's mean and σ once the minimum wage is applied. */
  readonly floorCell: (
    mean: number,
    sigma: number,
    floor: number,
  ) => { mean: number; sigma: number };
}

function levelVariance(ratio: Readonly<Record<Level, number>>, w: Readonly<Record<Level, number>>) {
  const logs = LEVELS.map((l) => Math.log(ratio[l]));
  const m = LEVELS.reduce((s, l, i) => s + w[l] * (logs[i] ?? 0), 0);
  return LEVELS.reduce((s, l, i) => s + w[l] * ((logs[i] ?? 0) - m) ** 2, 0);
}

export function levelScale(lambda: number): number {
  return Math.min(LEVEL_SCALE.max, Math.max(LEVEL_SCALE.min, lambda));
}

/** Level ratios scaled by λ in logs and normalised to a weighted mean of 1. */
export function scaledLevels(
  ratio: Readonly<Record<Level, number>>,
  lambda: number,
  w: Readonly<Record<Level, number>>,
): Record<Level, number> {
  const raw = LEVELS.map((l) => pow(ratio[l], lambda));
  const mean = LEVELS.reduce((s, l, i) => s + w[l] * (raw[i] ?? NaN), 0);
  return Object.fromEntries(LEVELS.map((l, i) => [l, (raw[i] ?? NaN) / mean])) as Record<
    Level,
    number
  >;
}

export function buildSpread(input: SpreadInputs): Spread {
  const evidence = jobSpreadEvidence(input.rows, input.accept);
  const relative = new Map<string, { m: number; tables: number }>();
  for (const j of JOBS) {
    const own = evidence.filter((e) => e.job === j.slug);
    relative.set(j.slug, {
      m: own.length > 0 ? Math.exp(median(own.map((e) => Math.log(e.relative)))) : 1,
      tables: own.length,
    });
  }
  const baseSigma = new Map(
    JOBS.map((j) => {
      const occ = (relative.get(j.slug)?.m ?? 1) * SIGMA_BASE;
      const v = levelVariance(
        input.levelRatio.get(j.slug) ?? ({} as Record<Level, number>),
        input.levelWeights,
      );
      return [j.slug, Math.sqrt(Math.max(SIGMA_MIN ** 2, occ * occ - v))];
    }),
  );
  const own = ownJobSigma(input.rows, input.accept);
  // Where a country publishes a job's own quantiles, its steps between levels are steepened no
  // further than that spread leaves room for beside the narrowest cell (never below the bound).
  const levelExponent = (lambda: number, job: string, country: string) => {
    const mine = own.get(`${country}|${job}`);
    const scale = levelScale(lambda);
    if (!mine) return scale;
    const v1 = levelVariance(
      input.levelRatio.get(job) ?? ({} as Record<Level, number>),
      input.levelWeights,
    );
    const room = mine.sigma ** 2 - SIGMA_MIN ** 2;
    if (v1 <= 0 || room <= 0) return LEVEL_SCALE.min;
    return Math.min(scale, Math.max(LEVEL_SCALE.min, Math.sqrt(room / v1)));
  };
  const cellSigma = (lambda: number, job: string, country: string) => {
    const mine = own.get(`${country}|${job}`);
    if (!mine) return Math.max(SIGMA_MIN, lambda * (baseSigma.get(job) ?? NaN));
    const levels = scaledLevels(
      input.levelRatio.get(job) ?? ({} as Record<Level, number>),
      levelExponent(lambda, job, country),
      input.levelWeights,
    );
    return Math.sqrt(
      Math.max(SIGMA_MIN ** 2, mine.sigma ** 2 - levelVariance(levels, input.levelWeights)),
    );
  };
  const targets = decileTargets(input.dir, input.rows);
  const grid = (country: string, year: number, lambda: number) => {
    const parts: LogNormal[] = [];
    const floor = input.floor(country, year);
    for (const j of JOBS) {
      const mean = input.jobMean(country, j.slug, year);
      const levels = scaledLevels(
        input.levelRatio.get(j.slug) ?? ({} as Record<Level, number>),
        levelExponent(lambda, j.slug, country),
        input.levelWeights,
      );
      for (const l of LEVELS) {
        const cell = input.floorCell(mean * levels[l], cellSigma(lambda, j.slug, country), floor);
        parts.push({
          weight: input.jobWeight(country, j.slug) * input.levelWeights[l],
          mean: cell.mean,
          sigma: cell.sigma,
        });
      }
    }
    return mixtureQuantile(parts, 0.9) / mixtureQuantile(parts, 0.1);
  };
  const scale = new Map<string, { lambda: number; fitted: boolean }>();
  for (const c of COUNTRIES) {
    const t = targets.get(c.code);
    if (!t) continue;
    const year = Math.min(Math.max(t.year, 2014), 2026);
    let lo = LAMBDA_RANGE.min;
    let hi = LAMBDA_RANGE.max;
    for (let i = 0; i < 50; i++) {
      const mid = (lo + hi) / 2;
      if (grid(c.code, year, mid) < t.ratio) lo = mid;
      else hi = mid;
    }
    scale.set(c.code, { lambda: (lo + hi) / 2, fitted: true });
  }
  const typical = median([...scale.values()].map((k) => k.lambda));
  for (const c of COUNTRIES)
    if (!scale.has(c.code)) scale.set(c.code, { lambda: typical, fitted: false });
  const lambdaOf = (c: string) => scale.get(c)?.lambda ?? typical;
  const levelCache = new Map<string, Record<Level, number>>();
  const levelRatio = (c: string, j: string, l: Level) => {
    const k = `${c}|${j}`;
    let v = levelCache.get(k);
    if (!v) {
      v = scaledLevels(
        input.levelRatio.get(j) ?? ({} as Record<Level, number>),
        levelExponent(lambdaOf(c), j, c),
        input.levelWeights,
      );
      levelCache.set(k, v);
    }
    return v[l];
  };
  const sigma = (c: string, j: string, _level: Level) => cellSigma(lambdaOf(c), j, c);
  return { relative, evidence, targets, scale, sigma, levelRatio, own };
}
