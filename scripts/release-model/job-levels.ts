import { COUNTRIES } from '../../src/catalog/countries.js';
import { JOBS } from '../../src/catalog/jobs.js';
import { linearFit, mean, weightedMean } from './math.js';

/**
 * Step 3: each job's pay level in each country, as the log of its all-level mean over the
 * country mean of the same time (docs/data.md §5).
 *
 * An observation is a published row of the job, converted to the served concept (annual, full
 * time, every payment of the year, the model's currency) and put at the job's mean with the
 * served distribution of its levels:
 *
 *   e = ln(converted row) − ln(statistic / mean of the job's served distribution)
 *       − ln M(c, t) − ln L(c, g)
 *
 * where L(c, g) is the country's level of the job's ISCO major group. e is the job's offset within
 * its group. Each job's offset is pooled over the countries that publish it,
 *
 *   e(c, j) = a_j + b_j x_c + u_c + ε,     x_c = ln(country pay / EU pay),
 *
 * with a country effect u_c (how the country's own tables sit against its group levels) shrunk
 * towards 0. A cell with its own rows combines them with this prior by precision (each row's
 * variance from its kind, below); a cell without keeps the prior. Rows of different years give a
 * level per year, joined linearly in time and held flat beyond the first and last.
 */

export interface JobObservation {
  readonly id: string;
  readonly country: string;
  readonly job: string;
  readonly time: number;
  /** ln of the row converted to the served concept, model currency. */
  readonly lnValue: number;
  /** Which statistic of the job's distribution the row is. */
  readonly statistic: 'mean' | 'median';
  /** Variance of the row as evidence of the job (kind of row, coverage, concept gap). */
  readonly variance: number;
  /** Evidence class of the row, for confidence: an exact unit row or a broader one. */
  readonly kind: 'unit' | 'broad';
}

export interface LevelInputs {
  readonly observations: readonly JobObservation[];
  /** ln M(c, t): the country mean at decimal time t. */
  readonly lnCountryMean: (country: string, time: number) => number;
  /** ln L(c, g): the group's mean over the country mean. */
  readonly lnGroupLevel: (country: string, group: number) => number;
  /** ln(statistic / mean) of the job's served distribution (levels and spread). */
  readonly lnStatisticRatio: (country: string, job: string, statistic: 'mean' | 'median') => number;
  /** x_c: ln of the country's pay level against the EU's. */
  readonly payLevel: ReadonlyMap<string, number>;
  readonly groupOf: (job: string) => number;
}

export interface PooledJob {
  readonly job: string;
  readonly a: number;
  readonly b: number;
  /** Residual variance of the pooled model across countries (the prior's variance, at least TAU2_MIN). */
  readonly tau2: number;
  readonly countries: number;
}

export interface CellLevel {
  /** Times (decimal years) with own evidence and the posterior offset e at each. */
  readonly epochs: readonly {
    readonly time: number;
    readonly e: number;
    readonly kind: 'unit' | 'broad';
  }[];
  readonly prior: number;
  readonly priorVariance: number;
}

export interface JobLevels {
  readonly pooled: ReadonlyMap<string, PooledJob>;
  readonly countryEffect: ReadonlyMap<string, number>;
  /** country → job → cell. */
  readonly cells: ReadonlyMap<string, ReadonlyMap<string, CellLevel>>;
  /** ln R(c, j, t): the job's mean over the country mean at time t. */
  readonly lnRatio: (country: string, job: string, time: number) => number;
  /** The offset e of one observation under the inputs (for checks). */
  readonly offsetOf: (o: JobObservation) => number;
}

/** Slope b_j is fitted only with this many countries, and shrunk towards 0 (k / (k + n)). */
export const SLOPE_MIN_COUNTRIES = 5;
export const SLOPE_SHRINK = 4;
/** Country effect u_c shrinkage: n / (n + U_SHRINK) of its mean residual. */
export const U_SHRINK = 3;
/** Smallest prior variance of a cell (0.25²): a country's own rows outweigh the pooled model. */
export const TAU2_MIN = 0.25 ** 2;
/** Prior variance of a job published by one country only, or by none (0.25²). */
export const TAU2_SPARSE = 0.25 ** 2;

export function fitJobLevels(input: LevelInputs, rounds = 8): JobLevels {
  const offsetOf = (o: JobObservation) =>
    o.lnValue -
    input.lnStatisticRatio(o.country, o.job, o.statistic) -
    input.lnCountryMean(o.country, o.time) -
    input.lnGroupLevel(o.country, input.groupOf(o.job));

  // One precision-weighted offset per (country, job) for pooling across countries.
  const perCell = new Map<string, { country: string; job: string; e: number; w: number }>();
  for (const o of input.observations) {
    const key = `${o.country}|${o.job}`;
    const cur = perCell.get(key);
    const w = 1 / o.variance;
    const e = offsetOf(o);
    perCell.set(
      key,
      cur
        ? { ...cur, e: (cur.e * cur.w + e * w) / (cur.w + w), w: cur.w + w }
        : { country: o.country, job: o.job, e, w },
    );
  }
  const cells = [...perCell.values()];
  const x = (c: string) => input.payLevel.get(c) ?? 0;

  let u = new Map<string, number>(COUNTRIES.map((c) => [c.code, 0]));
  let pooled = new Map<string, PooledJob>();
  for (let round = 0; round < rounds; round++) {
    pooled = new Map(
      JOBS.map((j) => {
        const own = cells.filter((c) => c.job === j.slug);
        return [j.slug, poolJob(j.slug, own, x, u)];
      }),
    );
    const next = new Map<string, number>();
    for (const c of COUNTRIES) {
      const residuals = cells
        .filter((cell) => cell.country === c.code)
        .map((cell) => {
          const p = pooled.get(cell.job);
          return cell.e - (p ? p.a + p.b * x(c.code) : 0);
        });
      const n = residuals.length;
      next.set(c.code, n === 0 ? 0 : (mean(residuals) * n) / (n + U_SHRINK));
    }
    u = next;
  }

  const cellLevels = new Map<string, Map<string, CellLevel>>();
  for (const c of COUNTRIES) {
    const byJob = new Map<string, CellLevel>();
    for (const j of JOBS) {
      const p = pooled.get(j.slug);
      const prior = (p ? p.a + p.b * x(c.code) : 0) + (u.get(c.code) ?? 0);
      const priorVariance = Math.max(TAU2_MIN, p?.tau2 ?? TAU2_SPARSE);
      const obs = input.observations.filter((o) => o.country === c.code && o.job === j.slug);
      const years = [...new Set(obs.map((o) => Math.floor(o.time)))].sort((a, b) => a - b);
      const epochs = years.map((year) => {
        const ofYear = obs.filter((o) => Math.floor(o.time) === year);
        const precision = 1 / priorVariance + ofYear.reduce((s, o) => s + 1 / o.variance, 0);
        const e =
          (prior / priorVariance + ofYear.reduce((s, o) => s + offsetOf(o) / o.variance, 0)) /
          precision;
        const time = weightedMean(
          ofYear.map((o) => o.time),
          ofYear.map((o) => 1 / o.variance),
        );
        const kind: 'unit' | 'broad' = ofYear.some((o) => o.kind === 'unit') ? 'unit' : 'broad';
        return { time, e, kind };
      });
      byJob.set(j.slug, { epochs, prior, priorVariance });
    }
    cellLevels.set(c.code, byJob);
  }

  const lnRatio = (country: string, job: string, time: number) => {
    const cell = cellLevels.get(country)?.get(job);
    if (!cell) throw new Error(`no level for ${country} ${job}`);
    return input.lnGroupLevel(country, input.groupOf(job)) + offsetAt(cell, time);
  };
  return { pooled, countryEffect: u, cells: cellLevels, lnRatio, offsetOf };
}

/** The cell's offset at time t: its epochs joined linearly, flat beyond them; else the prior. */
export function offsetAt(cell: CellLevel, time: number): number {
  const ep = cell.epochs;
  const first = ep[0];
  const last = ep.at(-1);
  if (!first || !last) return cell.prior;
  if (time <= first.time) return first.e;
  if (time >= last.time) return last.e;
  for (let i = 0; i + 1 < ep.length; i++) {
    const a = ep[i];
    const b = ep[i + 1];
    if (a && b && time >= a.time && time <= b.time)
      return a.e + ((b.e - a.e) * (time - a.time)) / (b.time - a.time);
  }
  return last.e;
}

function poolJob(
  job: string,
  cells: readonly { country: string; e: number; w: number }[],
  x: (c: string) => number,
  u: ReadonlyMap<string, number>,
): PooledJob {
  const n = cells.length;
  if (n === 0) return { job, a: 0, b: 0, tau2: TAU2_SPARSE, countries: 0 };
  const ys = cells.map((c) => c.e - (u.get(c.country) ?? 0));
  const xs = cells.map((c) => x(c.country));
  // Each country counts once in the pooled model, whatever the number of its rows.
  const ws = cells.map(() => 1);
  let a = weightedMean(ys, ws);
  let b = 0;
  if (n >= SLOPE_MIN_COUNTRIES) {
    const fit = linearFit(xs, ys, ws);
    b = (fit.slope * n) / (n + SLOPE_SHRINK);
    a = weightedMean(
      ys.map((y, i) => y - b * (xs[i] ?? 0)),
      ws,
    );
  }
  if (n === 1) return { job, a, b, tau2: TAU2_SPARSE, countries: n };
  const resid = ys.map((y, i) => y - a - b * (xs[i] ?? 0));
  const tau2 = resid.reduce((s, r) => s + r * r, 0) / (n - 1);
  return { job, a, b, tau2, countries: n };
}
