import { COUNTRIES } from '../../src/catalog/countries.js';
import { JOBS, iscoMajorGroup } from '../../src/catalog/jobs.js';
import { EU, type Inputs } from './inputs.js';
import { linearFit, roundTo } from './math.js';

/**
 * Step 2: pay of each job relative to its country's mean (the job ratio), and the employment
 * weight of each job. docs/data.md §3 explains the method and lists the numbers.
 */

export const GROUPS = Object.freeze([1, 2, 3, 4, 5, 6, 7, 8, 9] as const);
/** Year of the Bulgarian SES table whose employee counts give the weights and BG's profile. */
export const WEIGHT_YEAR = 2022;
/** Share of a sector's log pay premium over the job's major group that is credited to the job. */
export const SECTOR_SHARE = 0.5;
/**
 * Estonia, Q4 2023 average monthly gross wage, all sectors: the comparison base for the ICT
 * figure (also Q4). It is the headline of the page cited in eurostat_context_figures.csv
 * (estonianworld.com/business/estonias-average-salary-in-q4-2023-e1904/); the file's own
 * all-sector row (1,832) is a whole-year average and would overstate the ICT premium.
 */
export const EE_ALL_SECTORS_Q4_2023 = 1904;

export interface SectorEvidence {
  readonly job: string;
  readonly country: string;
  readonly sector: string;
  /** Sector mean pay / all-sector mean pay (same source, same period). */
  readonly sectorRatio: number;
  /** The job's major-group ratio in that country (group mean / all-employee mean). */
  readonly groupRatio: number;
}

export interface OccupationProfile {
  readonly groupShare: ReadonlyMap<number, number>;
  readonly jobWeights: Readonly<Record<string, number>>;
  /** Fill-in fit for the EU groups missing from the SES 2018 text: ln m_EU = a + b ln r_BG2018. */
  readonly euFill: {
    readonly intercept: number;
    readonly slope: number;
    readonly filled: ReadonlyMap<number, number>;
  };
  readonly euProfile: ReadonlyMap<number, number>;
  /** Dispersion exponent d_c (ratio_c = ratio_EU ^ d_c) fitted where a country has group data. */
  readonly dispersion: ReadonlyMap<
    string,
    { readonly d: number; readonly groups: readonly number[] }
  >;
  readonly bgProfile: ReadonlyMap<number, ReadonlyMap<number, number>>;
  readonly evidence: readonly SectorEvidence[];
  /** Pooled within-group factor per job (geometric mean over the evidence, shrunk). */
  readonly jobFactor: ReadonlyMap<string, number>;
  /** ISO country → job slug → within-group sector factor (own evidence, else pooled). */
  readonly sectorFactor: ReadonlyMap<string, ReadonlyMap<string, number>>;
  /** ISO country → job slug → job ratio (Σ_job weight × ratio = 1). */
  readonly jobRatio: ReadonlyMap<string, ReadonlyMap<string, number>>;
}

/** Sector evidence per job: [country, sector label in the source, how to read its ratio]. */
const EVIDENCE: readonly { job: string; country: string; sector: string }[] = [
  { job: 'software-engineer', country: 'EE', sector: 'ICT sector' },
  { job: 'software-engineer', country: 'BG', sector: 'J Information and communication' },
  { job: 'secondary-teacher', country: 'NL', sector: 'P Education; total' },
  { job: 'secondary-teacher', country: 'BG', sector: 'P Education' },
  { job: 'nurse', country: 'NL', sector: 'O-Q Government and care; total' },
  { job: 'nurse', country: 'BG', sector: 'Q Human health and social work activities' },
  { job: 'chef', country: 'BG', sector: 'I Accommodation and food service activities' },
  { job: 'waiter', country: 'BG', sector: 'I Accommodation and food service activities' },
  { job: 'electrician', country: 'BG', sector: 'F Construction' },
  { job: 'cleaner', country: 'NL', sector: 'N Renting and other business support; total' },
];

function sectorRatio(inputs: Inputs, country: string, sector: string): number {
  if (country === 'BG') {
    const total = inputs.bgActivity.find((r) => r.section === 'Total');
    const row = inputs.bgActivity.find((r) => r.section === sector);
    if (!total || !row) throw new Error(`BG activity "${sector}" not found`);
    return row.meanHourly / total.meanHourly;
  }
  if (country === 'NL') {
    const rows = inputs.nl.filter((r) => r.table === '81431ENG');
    const total = rows.find((r) => r.breakdown === 'A-U all activities; total');
    const row = rows.find((r) => r.breakdown === sector);
    if (!total || !row) throw new Error(`NL sector "${sector}" not found`);
    return row.hourly / total.hourly;
  }
  if (country !== 'EE' || sector !== 'ICT sector') {
    throw new Error(`no sector evidence source for ${country} "${sector}"`);
  }
  const ict = inputs.context.find(
    (r) => r.indicator === 'avg monthly gross wages ICT sector Q4' && r.geo === 'EE',
  );
  if (!ict?.value) throw new Error('EE ICT figure not found');
  return Number(ict.value) / EE_ALL_SECTORS_Q4_2023;
}

/** Scale a group profile so that Σ_g share_g × ratio_g = 1. */
function normalise(
  profile: ReadonlyMap<number, number>,
  share: ReadonlyMap<number, number>,
): Map<number, number> {
  const total = GROUPS.reduce((s, g) => s + (share.get(g) ?? NaN) * (profile.get(g) ?? NaN), 0);
  return new Map(GROUPS.map((g) => [g, (profile.get(g) ?? NaN) / total]));
}

function jobWeightsFrom(share: ReadonlyMap<number, number>): Record<string, number> {
  const perGroup = (g: number) => JOBS.filter((j) => iscoMajorGroup(j) === g).length;
  const weights = JOBS.map((j) =>
    roundTo((share.get(iscoMajorGroup(j)) ?? NaN) / perGroup(iscoMajorGroup(j)), 6),
  );
  // Rounding residual (a few millionths) goes to the largest weight so the decimals sum to 1.
  const largest = weights.indexOf(Math.max(...weights));
  weights[largest] = roundTo((weights[largest] ?? NaN) + 1 - weights.reduce((s, w) => s + w, 0), 6);
  return Object.fromEntries(JOBS.map((j, i) => [j.slug, weights[i] ?? NaN]));
}

export function buildOccupationProfile(inputs: Inputs): OccupationProfile {
  const bg = (year: number) => inputs.bgOccupation.filter((r) => r.year === year);
  const groupRows = bg(WEIGHT_YEAR).filter((r) => r.group > 0);
  const employees = groupRows.reduce((s, r) => s + r.employees, 0);
  const groupShare = new Map(groupRows.map((r) => [r.group, r.employees / employees]));
  const jobWeights = jobWeightsFrom(groupShare);
  // The model's own group shares are the rounded job weights summed per group, so that the
  // normalisation below holds exactly with the weights published in the header.
  const share = new Map(
    GROUPS.map((g) => [
      g,
      JOBS.filter((j) => iscoMajorGroup(j) === g).reduce(
        (s, j) => s + (jobWeights[j.slug] ?? NaN),
        0,
      ),
    ]),
  );

  const bgProfile = new Map(
    [2018, 2022].map((year) => {
      const total = bg(year).find((r) => r.group === 0)?.meanMonthlyFte ?? NaN;
      return [
        year,
        new Map(
          bg(year)
            .filter((r) => r.group > 0)
            .map((r) => [r.group, r.meanMonthlyFte / total]),
        ),
      ];
    }),
  );
  const bg2018 = bgProfile.get(2018) ?? new Map<number, number>();

  const euObserved = inputs.sesOccupation.get(EU);
  if (!euObserved) throw new Error('SES 2018 occupation: no EU27 rows');
  const observed = GROUPS.filter((g) => euObserved.has(g));
  const fit = linearFit(
    observed.map((g) => Math.log(bg2018.get(g) ?? NaN)),
    observed.map((g) => Math.log(euObserved.get(g) ?? NaN)),
  );
  const filled = new Map(
    GROUPS.filter((g) => !euObserved.has(g)).map((g) => [
      g,
      Math.exp(fit.intercept + fit.slope * Math.log(bg2018.get(g) ?? NaN)),
    ]),
  );
  const euProfile = normalise(
    new Map(GROUPS.map((g) => [g, euObserved.get(g) ?? filled.get(g) ?? NaN])),
    share,
  );

  const dispersion = new Map<string, { d: number; groups: number[] }>();
  for (const [geo, values] of inputs.sesOccupation) {
    if (geo === EU) continue;
    const groups = GROUPS.filter((g) => values.has(g));
    const { slope } = linearFit(
      groups.map((g) => Math.log(euProfile.get(g) ?? NaN)),
      groups.map((g) => Math.log(values.get(g) ?? NaN)),
    );
    dispersion.set(geo, { d: slope, groups });
  }

  const groupProfile = new Map<string, Map<number, number>>();
  for (const country of COUNTRIES) {
    const published = country.code === 'BG' ? bgProfile.get(WEIGHT_YEAR) : undefined;
    const d = dispersion.get(country.eurostatCode)?.d ?? 1;
    const raw = published ?? new Map(GROUPS.map((g) => [g, Math.pow(euProfile.get(g) ?? NaN, d)]));
    groupProfile.set(country.code, normalise(raw, share));
  }

  const evidence = EVIDENCE.map((e) => {
    const job = JOBS.find((j) => j.slug === e.job);
    if (!job) throw new Error(`unknown job ${e.job}`);
    const groupRatio = groupProfile.get(e.country)?.get(iscoMajorGroup(job)) ?? NaN;
    return { ...e, sectorRatio: sectorRatio(inputs, e.country, e.sector), groupRatio };
  });
  const factorOf = (items: readonly SectorEvidence[]) =>
    items.length === 0
      ? 1
      : Math.exp(
          (SECTOR_SHARE * items.reduce((s, e) => s + Math.log(e.sectorRatio / e.groupRatio), 0)) /
            items.length,
        );
  const jobFactor = new Map(
    JOBS.map((j) => [j.slug, factorOf(evidence.filter((e) => e.job === j.slug))]),
  );
  // A country with its own evidence for a job uses it; the others use the pooled factor.
  const factorIn = (country: string, job: string) => {
    const own = evidence.filter((e) => e.job === job && e.country === country);
    return own.length > 0 ? factorOf(own) : (jobFactor.get(job) ?? NaN);
  };

  const jobRatio = new Map<string, Map<string, number>>();
  for (const country of COUNTRIES) {
    const profile = groupProfile.get(country.code) ?? new Map<number, number>();
    const raw = JOBS.map(
      (j) => (profile.get(iscoMajorGroup(j)) ?? NaN) * factorIn(country.code, j.slug),
    );
    const total = JOBS.reduce((s, j, i) => s + (jobWeights[j.slug] ?? NaN) * (raw[i] ?? NaN), 0);
    jobRatio.set(country.code, new Map(JOBS.map((j, i) => [j.slug, (raw[i] ?? NaN) / total])));
  }
  const sectorFactor = new Map(
    COUNTRIES.map((c) => [c.code, new Map(JOBS.map((j) => [j.slug, factorIn(c.code, j.slug)]))]),
  );
  return {
    groupShare,
    jobWeights,
    sectorFactor,
    euFill: { ...fit, filled },
    euProfile,
    dispersion,
    bgProfile,
    evidence,
    jobFactor,
    jobRatio,
  };
}
