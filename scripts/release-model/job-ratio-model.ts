import { COUNTRIES } from '../../src/catalog/countries.js';
import { JOBS } from '../../src/catalog/jobs.js';
import { linearFit, mean } from './math.js';
import type { CountryEvidence, OccupationEvidence } from './occupation-evidence.js';

/**
 * Step 2b: job ratios from national occupation tables. A country's own table sets the ratios of
 * the jobs it covers; every other (country, job) gets the prior ratio (EU group profile with
 * sector factors, §4.2–4.4) times a pooled correction fitted over the evidence countries:
 *
 *   e(c, j) = ln published(c, j) − ln prior(c, j)            for evidence countries
 *   e(c, j) ≈ α_j + β_j × x_c,  x_c = ln(mean_c,2024 / mean_EU27,2024)
 *
 * (β_j only with evidence from MIN_POINTS_FOR_SLOPE countries or more, else the mean). docs/data.md
 * §4.7 documents it and the leave-one-out validation.
 */

export const MIN_POINTS_FOR_SLOPE = 3;

export interface PooledFit {
  readonly intercept: number;
  readonly slope: number;
  readonly countries: readonly string[];
}

export interface LooRow {
  readonly country: string;
  readonly job: string;
  /** Relative ratio (job / geometric mean of the table's jobs) published, predicted, prior. */
  readonly published: number;
  readonly predicted: number;
  readonly prior: number;
}

export interface JobRatioModel {
  /** ISO → job → ratio (Σ_job weight × ratio = 1). */
  readonly jobRatio: ReadonlyMap<string, ReadonlyMap<string, number>>;
  /** ISO → jobs whose ratio comes from the country's own table (the others are borrowed). */
  readonly own: ReadonlyMap<string, ReadonlySet<string>>;
  readonly pooled: ReadonlyMap<string, PooledFit>;
  readonly payLevel: ReadonlyMap<string, number>;
  readonly loo: readonly LooRow[];
}

type Ratios = ReadonlyMap<string, number>;

function normalise(raw: Ratios, weights: Readonly<Record<string, number>>): Map<string, number> {
  const total = JOBS.reduce((s, j) => s + (weights[j.slug] ?? NaN) * (raw.get(j.slug) ?? NaN), 0);
  return new Map(JOBS.map((j) => [j.slug, (raw.get(j.slug) ?? NaN) / total]));
}

/** ln of the published ratios, shifted for `covered` tables so their jobs' mean log equals the prior's. */
function anchoredLog(ev: CountryEvidence, prior: Ratios): Map<string, number> {
  const jobs = [...ev.jobs.keys()];
  const logs = new Map(jobs.map((j) => [j, Math.log(ev.jobs.get(j)?.ratio ?? NaN)]));
  const shift =
    ev.anchor === 'covered'
      ? mean(jobs.map((j) => Math.log(prior.get(j) ?? NaN))) -
        mean(jobs.map((j) => logs.get(j) ?? NaN))
      : 0;
  return new Map(jobs.map((j) => [j, (logs.get(j) ?? NaN) + shift]));
}

function fit(points: readonly { country: string; x: number; e: number }[]): PooledFit {
  const countries = points.map((p) => p.country);
  if (points.length === 0) return { intercept: 0, slope: 0, countries };
  const xs = points.map((p) => p.x);
  if (points.length < MIN_POINTS_FOR_SLOPE || Math.max(...xs) - Math.min(...xs) < 1e-9) {
    return { intercept: mean(points.map((p) => p.e)), slope: 0, countries };
  }
  return {
    ...linearFit(
      xs,
      points.map((p) => p.e),
    ),
    countries,
  };
}

/** Relative ratios: each job over the geometric mean of `jobs`. */
function relative(ratios: Ratios, jobs: readonly string[]): Map<string, number> {
  const g = mean(jobs.map((j) => Math.log(ratios.get(j) ?? NaN)));
  return new Map(jobs.map((j) => [j, Math.exp(Math.log(ratios.get(j) ?? NaN) - g)]));
}

export function buildJobRatioModel(
  prior: ReadonlyMap<string, Ratios>,
  weights: Readonly<Record<string, number>>,
  evidence: OccupationEvidence,
  payLevel: ReadonlyMap<string, number>,
): JobRatioModel {
  const priorOf = (c: string) => prior.get(c) ?? new Map<string, number>();
  const published = new Map(
    evidence.countries.map((ev) => [ev.country, anchoredLog(ev, priorOf(ev.country))]),
  );
  const residuals = (excluded?: string) =>
    new Map(
      JOBS.map((j) => [
        j.slug,
        fit(
          evidence.countries
            .filter((ev) => ev.country !== excluded && ev.jobs.has(j.slug))
            .map((ev) => ({
              country: ev.country,
              x: payLevel.get(ev.country) ?? NaN,
              e:
                (published.get(ev.country)?.get(j.slug) ?? NaN) -
                Math.log(priorOf(ev.country).get(j.slug) ?? NaN),
            })),
        ),
      ]),
    );
  const pooled = residuals();
  const predict = (c: string, fits: ReadonlyMap<string, PooledFit>) =>
    new Map(
      JOBS.map((j) => {
        const f = fits.get(j.slug);
        const adj = f ? f.intercept + f.slope * (payLevel.get(c) ?? NaN) : 0;
        return [j.slug, (priorOf(c).get(j.slug) ?? NaN) * Math.exp(adj)];
      }),
    );

  const jobRatio = new Map<string, Map<string, number>>();
  const own = new Map<string, Set<string>>();
  for (const country of COUNTRIES) {
    const c = country.code;
    const mine = published.get(c) ?? new Map<string, number>();
    const predicted = predict(c, pooled);
    const raw = new Map(
      JOBS.map((j) => {
        const p = mine.get(j.slug);
        return [j.slug, p === undefined ? (predicted.get(j.slug) ?? NaN) : Math.exp(p)];
      }),
    );
    jobRatio.set(c, normalise(raw, weights));
    own.set(c, new Set(mine.keys()));
  }

  const loo: LooRow[] = [];
  for (const ev of evidence.countries) {
    const jobs = [...ev.jobs.keys()];
    if (jobs.length < 2) continue;
    const pub = relative(new Map(jobs.map((j) => [j, ev.jobs.get(j)?.ratio ?? NaN])), jobs);
    const pred = relative(predict(ev.country, residuals(ev.country)), jobs);
    const pri = relative(priorOf(ev.country), jobs);
    for (const j of jobs) {
      loo.push({
        country: ev.country,
        job: j,
        published: pub.get(j) ?? NaN,
        predicted: pred.get(j) ?? NaN,
        prior: pri.get(j) ?? NaN,
      });
    }
  }
  return { jobRatio, own, pooled, payLevel, loo };
}
