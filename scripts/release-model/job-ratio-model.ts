import { COUNTRIES } from '../../src/catalog/countries.js';
import { JOBS, iscoMajorGroup } from '../../src/catalog/jobs.js';
import type { GroupTable, GroupTables } from './group-tables.js';
import { linearFit, mean } from './math.js';
import type { CountryEvidence, OccupationEvidence } from './occupation-evidence.js';
import { GROUPS } from './occupation-profile.js';

/**
 * Step 2b: job ratios (job mean / country mean) that reproduce, in the statistic each table
 * publishes, the tables the release uses. The cell spread σ(c, j) is an input: it is computed
 * before the fit, so a table of medians is matched on served medians (mean = median × e^{σ²/2})
 * and a table of means on served means. docs/data.md §4.7–4.8 documents every step:
 *
 *   group level  L(c, g)  from the country's own major-group table (national, else SES 2022;
 *                         a group no table of the country has is borrowed from EU27)
 *   shape        s(c, j) = sector factor × exp(α_j + β_j x_c), pooled over the unit-group tables
 *   free job     r(c, j) = L(c, g) × s(c, j) / mean of s over the group's free jobs
 *   own job      r(c, j) from the country's unit-group table (in mean terms)
 *
 * then Σ_j w_j r(c, j) = 1. Ratios between the rows of every table are kept exactly.
 */

export const MIN_POINTS_FOR_SLOPE = 3;

type Ratios = ReadonlyMap<string, number>;
/** ISO → job → σ of the job's cells (before the minimum-wage floor). */
export type Sigmas = ReadonlyMap<string, ReadonlyMap<string, number>>;

export interface PooledFit {
  readonly intercept: number;
  readonly slope: number;
  readonly countries: readonly string[];
}

export interface GroupLevel {
  /** Mean pay of the group relative to the country mean (share-weighted mean of levels = 1). */
  readonly level: number;
  /** The country's table the level comes from; undefined when borrowed from EU27. */
  readonly table: GroupTable | undefined;
}

export interface LooRow {
  readonly country: string;
  readonly job: string;
  /** Served median relative to the geometric mean of the table's jobs: published, model, prior. */
  readonly published: number;
  readonly predicted: number;
  readonly prior: number;
}

export interface JobRatioModel {
  /** ISO → job → ratio (Σ_job weight × ratio = 1). */
  readonly jobRatio: ReadonlyMap<string, ReadonlyMap<string, number>>;
  /** ISO → jobs whose ratio comes from the country's own unit-group table. */
  readonly own: ReadonlyMap<string, ReadonlySet<string>>;
  readonly groupLevels: ReadonlyMap<string, ReadonlyMap<number, GroupLevel>>;
  readonly pooled: ReadonlyMap<string, PooledFit>;
  readonly payLevel: ReadonlyMap<string, number>;
  readonly loo: readonly LooRow[];
}

export interface JobRatioInputs {
  readonly sectorFactor: ReadonlyMap<string, Ratios>;
  readonly weights: Readonly<Record<string, number>>;
  readonly evidence: OccupationEvidence;
  readonly groups: GroupTables;
  readonly payLevel: ReadonlyMap<string, number>;
  readonly sigma: Sigmas;
}

const groupOf = new Map(JOBS.map((j) => [j.slug, iscoMajorGroup(j)]));
const jobsOf = (g: number) => JOBS.filter((j) => iscoMajorGroup(j) === g).map((j) => j.slug);
const at = <K, V>(m: ReadonlyMap<K, V> | undefined, k: K): V => {
  const v = m?.get(k);
  if (v === undefined) throw new Error(`job-ratio model: no value for ${String(k)}`);
  return v;
};

/** Group share (Σ of its jobs' weights). */
function shareOf(g: number, weights: Readonly<Record<string, number>>): number {
  return jobsOf(g).reduce((s, j) => s + (weights[j] ?? NaN), 0);
}

/**
 * Group levels of one country in mean terms: the first table's groups, then each further table
 * (and EU27 last) for the groups still missing, scaled to the groups it shares with those already
 * set. A table of medians is converted with the mean σ² of the group's jobs.
 */
export function groupLevels(
  country: string,
  inputs: Pick<JobRatioInputs, 'groups' | 'sigma' | 'weights'>,
): Map<number, GroupLevel> {
  const sigma = inputs.sigma.get(country);
  const meanTerm = (t: GroupTable, g: number) => {
    const v = at(t.groups, g);
    if (t.statistic === 'mean') return v;
    const s2 = mean(jobsOf(g).map((j) => at(sigma, j) ** 2));
    return v * Math.exp(s2 / 2);
  };
  const out = new Map<number, { level: number; table: GroupTable | undefined }>();
  const tables = [...(inputs.groups.byCountry.get(country) ?? []), inputs.groups.eu];
  for (const t of tables) {
    const common = GROUPS.filter((g) => out.has(g) && t.groups.has(g));
    const bridge =
      common.length === 0
        ? 1
        : Math.exp(mean(common.map((g) => Math.log(at(out, g).level) - Math.log(meanTerm(t, g)))));
    for (const g of GROUPS) {
      if (out.has(g) || !t.groups.has(g)) continue;
      out.set(g, { level: meanTerm(t, g) * bridge, table: t === inputs.groups.eu ? undefined : t });
    }
  }
  const total = GROUPS.reduce((s, g) => s + shareOf(g, inputs.weights) * at(out, g).level, 0);
  return new Map(GROUPS.map((g) => [g, { ...at(out, g), level: at(out, g).level / total }]));
}

/** ln of a table's values in mean terms (medians converted with the job's σ). */
function meanTermLogs(ev: CountryEvidence, sigma: Ratios | undefined): Map<string, number> {
  return new Map(
    [...ev.jobs].map(([j, e]) => [
      j,
      Math.log(e.ratio) + (ev.statistic === 'median' ? at(sigma, j) ** 2 / 2 : 0),
    ]),
  );
}

/** The table's jobs in mean terms relative to the country mean; `covered` tables anchored to `prior`. */
function ownRatios(
  ev: CountryEvidence,
  sigma: Ratios | undefined,
  prior: Ratios,
): Map<string, number> {
  const logs = meanTermLogs(ev, sigma);
  const jobs = [...logs.keys()];
  const shift =
    ev.anchor === 'covered'
      ? mean(jobs.map((j) => Math.log(at(prior, j)))) - mean(jobs.map((j) => at(logs, j)))
      : 0;
  return new Map(jobs.map((j) => [j, Math.exp(at(logs, j) + shift)]));
}

function fit(points: readonly { country: string; x: number; e: number }[]): PooledFit {
  const countries = points.map((p) => p.country);
  if (points.length === 0) return { intercept: 0, slope: 0, countries };
  const xs = points.map((p) => p.x);
  if (points.length < MIN_POINTS_FOR_SLOPE || Math.max(...xs) - Math.min(...xs) < 1e-9) {
    return { intercept: mean(points.map((p) => p.e)), slope: 0, countries };
  }
  const ys = points.map((p) => p.e);
  return { ...linearFit(xs, ys), countries };
}

function normalise(raw: Ratios, weights: Readonly<Record<string, number>>): Map<string, number> {
  const total = JOBS.reduce((s, j) => s + (weights[j.slug] ?? NaN) * at(raw, j.slug), 0);
  return new Map(JOBS.map((j) => [j.slug, at(raw, j.slug) / total]));
}

export function buildJobRatioModel(inputs: JobRatioInputs): JobRatioModel {
  const { evidence, payLevel, weights } = inputs;
  const levels = new Map(COUNTRIES.map((c) => [c.code, groupLevels(c.code, inputs)]));
  /** Group level × sector factor: the within-group prior the pooled model corrects. */
  const base = (c: string, j: string) =>
    at(levels.get(c), at(groupOf, j)).level * at(inputs.sectorFactor.get(c), j);
  const baseOf = (c: string) => new Map(JOBS.map((j) => [j.slug, base(c, j.slug)]));

  const fits = (excluded?: string, pooledOn = true) =>
    new Map(
      JOBS.map((j) => [
        j.slug,
        fit(
          pooledOn
            ? evidence.countries
                .filter((ev) => ev.country !== excluded && ev.jobs.has(j.slug))
                .map((ev) => ({
                  country: ev.country,
                  x: at(payLevel, ev.country),
                  e:
                    Math.log(
                      at(ownRatios(ev, inputs.sigma.get(ev.country), baseOf(ev.country)), j.slug),
                    ) - Math.log(base(ev.country, j.slug)),
                }))
            : [],
        ),
      ]),
    );

  /** Ratios of country c with the given pooled fits and the jobs of `own` taken from its table. */
  const ratios = (c: string, pooled: ReadonlyMap<string, PooledFit>, own?: CountryEvidence) => {
    const shape = (j: string) => {
      const f = at(pooled, j);
      return at(inputs.sectorFactor.get(c), j) * Math.exp(f.intercept + f.slope * at(payLevel, c));
    };
    const covered = new Set(own?.jobs.keys() ?? []);
    const raw = new Map<string, number>();
    const full = new Map<string, number>();
    for (const g of GROUPS) {
      const level = at(levels.get(c), g).level;
      const all = jobsOf(g);
      const free = all.filter((j) => !covered.has(j));
      const avgAll = mean(all.map(shape));
      for (const j of all) full.set(j, (level * shape(j)) / avgAll);
      if (free.length === 0) continue;
      const avg = mean(free.map(shape));
      for (const j of free) raw.set(j, (level * shape(j)) / avg);
    }
    if (own) for (const [j, r] of ownRatios(own, inputs.sigma.get(c), full)) raw.set(j, r);
    return normalise(raw, weights);
  };

  const pooled = fits();
  const ownOf = new Map(evidence.countries.map((ev) => [ev.country, ev]));
  const jobRatio = new Map(
    COUNTRIES.map((c) => [c.code, ratios(c.code, pooled, ownOf.get(c.code))]),
  );
  const own = new Map(
    COUNTRIES.map((c) => [c.code, new Set(ownOf.get(c.code)?.jobs.keys() ?? [])] as const),
  );

  const loo: LooRow[] = [];
  const servedLog = (ev: CountryEvidence, r: Ratios, j: string) =>
    Math.log(at(r, j)) - at(inputs.sigma.get(ev.country), j) ** 2 / 2;
  const relative = (ev: CountryEvidence, r: Ratios) => {
    const jobs = [...ev.jobs.keys()];
    const g = mean(jobs.map((j) => servedLog(ev, r, j)));
    return new Map(jobs.map((j) => [j, Math.exp(servedLog(ev, r, j) - g)]));
  };
  for (const ev of evidence.countries) {
    if (ev.jobs.size < 2) continue;
    const pub = relative(ev, ownRatios(ev, inputs.sigma.get(ev.country), baseOf(ev.country)));
    const pred = relative(ev, ratios(ev.country, fits(ev.country)));
    const pri = relative(ev, ratios(ev.country, fits(ev.country, false)));
    for (const j of ev.jobs.keys()) {
      loo.push({
        country: ev.country,
        job: j,
        published: at(pub, j),
        predicted: at(pred, j),
        prior: at(pri, j),
      });
    }
  }
  return { jobRatio, own, groupLevels: levels, pooled, payLevel, loo };
}
