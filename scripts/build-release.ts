/**
 * Builds the bundled salary data release from the published statistics in sources/.
 *
 *   npx tsx scripts/build-release.ts [--out releases/salary-2026.11.2.jsonl.gz] [--explain]
 *
 * Deterministic: the same sources give a byte-identical file (fixed version and created_at,
 * no clock, no randomness, fixed record order, gzip without timestamp). The model is in
 * scripts/release-model/, one step per file; docs/data.md documents it.
 */
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { FormatRegistry } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { COUNTRIES } from '../src/catalog/countries.js';
import { JOBS, LEVELS, iscoMajorGroup } from '../src/catalog/jobs.js';
import {
  RELEASE_FORMAT,
  ReleaseHeaderSchema,
  ReleaseRecordSchema,
  type ReleaseHeader,
  type ReleaseRecord,
} from '../src/releases/format.js';
import { recordConfidence } from './release-model/confidence.js';
import { buildCountryMeans, type CountryMeans } from './release-model/country-means.js';
import { buildDispersion, jobSpreadFactors, type Dispersion } from './release-model/dispersion.js';
import { fxFor } from './release-model/fx-rates.js';
import { loadGroupTables, type GroupTables } from './release-model/group-tables.js';
import { EU, loadInputs } from './release-model/inputs.js';
import {
  buildJobRatioModel,
  type JobRatioModel,
  type Sigmas,
} from './release-model/job-ratio-model.js';
import {
  loadOccupationEvidence,
  type OccupationEvidence,
} from './release-model/occupation-evidence.js';
import {
  buildLevelProfile,
  LEVEL_WEIGHTS,
  type LevelProfile,
} from './release-model/level-profile.js';
import { Z } from './release-model/math.js';
import { SIGMA_FLOOR } from './release-model/dispersion.js';
import {
  buildOccupationProfile,
  type OccupationProfile,
} from './release-model/occupation-profile.js';
import { SOURCE_FILES } from './release-model/source-files.js';

export const RELEASE_VERSION = '2026.11.3';
export const CREATED_AT = '2026-11-25T00:00:00Z';
export const FIRST_YEAR = 2014;
export const LAST_PUBLISHED_YEAR = 2024;
export const CURRENT_YEAR = 2026;
export const DEFAULT_SOURCES_DIR = fileURLToPath(new URL('../sources', import.meta.url));
export const DEFAULT_OUT = fileURLToPath(
  new URL(`../releases/salary-${RELEASE_VERSION}.jsonl.gz`, import.meta.url),
);

export const VALIDATION_DOC = fileURLToPath(new URL('../docs/validation.md', import.meta.url));

const METHODOLOGY =
  'Modelled figures, not survey microdata. Country mean full-time gross pay in EUR is Eurostat nama_10_fte for 2022-2024 ' +
  '(basis "published"); the Netherlands is modelled from CBS wages per job converted to a 38-hour week. Earlier years ' +
  'are back-cast with the Eurostat SES medians (2014, 2018, 2022); 2025-2026 are projected from 2022-2024 growth shrunk ' +
  'towards the EU27 rate. Job ratios: every country takes its occupation-group structure from its own major-group table ' +
  '(Eurostat SES 2022 for all 27; Statistik Austria, KSH and Quadros de Pessoal replace it for AT, HU, PT) and, where it ' +
  'has one, its own unit-group table (DE, PL, SE, CZ, DK, NL, ES); a job within its group is set by a model pooled over ' +
  'those tables. Each table is reproduced in the statistic it publishes: the served median ratios of a table of medians ' +
  '(NL), the served mean ratios of a table of means, with the spread of every cell fixed before the fit. Levels come ' +
  'from the CBS 2023 age profile; percentiles from a log-normal with a per-job spread, p10 held at or above the ' +
  'statutory minimum wage. confidence: high = own unit-group table and published country mean; medium = own table at ' +
  'group level, or a mean one year from a published one; low = borrowed group or a mean two or more years away. ' +
  'Every step, number and caveat: docs/data.md and docs/validation.md in the salary-api repository.';

export interface Model {
  readonly countryMeans: CountryMeans;
  /** Job ratios in `jobRatio` are the final ones; the §4.2–4.4 prior is in `prior`. */
  readonly occupations: OccupationProfile;
  readonly prior: OccupationProfile['jobRatio'];
  readonly evidence: OccupationEvidence;
  readonly jobModel: JobRatioModel;
  readonly groupTables: GroupTables;
  readonly spreadFactor: ReadonlyMap<string, number>;
  /** σ of each (country, job) cell before the minimum-wage floor: the fit's input. */
  readonly sigma: Sigmas;
  readonly levels: LevelProfile;
  readonly dispersion: Dispersion;
}

export interface Release {
  readonly header: ReleaseHeader;
  readonly records: readonly ReleaseRecord[];
  readonly model: Model;
}

/** Runs the model on the files in `sourcesDir` and returns the validated release. */
export function buildRelease(sourcesDir: string = DEFAULT_SOURCES_DIR): Release {
  const inputs = loadInputs(sourcesDir);
  const params = {
    firstYear: FIRST_YEAR,
    lastPublishedYear: LAST_PUBLISHED_YEAR,
    currentYear: CURRENT_YEAR,
  };
  const countryMeans = buildCountryMeans(inputs, params);
  const prior = buildOccupationProfile(inputs);
  const years = Array.from({ length: CURRENT_YEAR - FIRST_YEAR + 1 }, (_, i) => FIRST_YEAR + i);
  const meanOf = (c: string, y: number) => countryMeans.byCountry.get(c)?.get(y)?.mean ?? NaN;
  const evidence = loadOccupationEvidence(
    sourcesDir,
    meanOf('DE', 2023) / meanOf('DE', 2022),
    years,
  );
  const eu = inputs.nama.find((n) => n.geo === EU && n.year === LAST_PUBLISHED_YEAR)?.value ?? NaN;
  const payLevel = new Map(
    COUNTRIES.map((c) => [c.code, Math.log(meanOf(c.code, LAST_PUBLISHED_YEAR) / eu)]),
  );
  const groupTables = loadGroupTables(sourcesDir);
  const levels = buildLevelProfile(inputs);
  const spreadFactor = jobSpreadFactors(evidence.spreads, prior.jobWeights);
  // The spread of a cell depends on the between-job variance of the ratios, and the ratios are
  // fitted on served statistics that depend on the spread: iterate to the fixed point.
  let ratios = prior.jobRatio;
  let fitted: { jobModel: JobRatioModel; dispersion: Dispersion; sigma: Sigmas } | undefined;
  for (let round = 0; round < MAX_FIT_ROUNDS; round++) {
    const dispersion = buildDispersion(inputs, { ...prior, jobRatio: ratios }, levels);
    const sigma = cellSigmas(dispersion, spreadFactor);
    const jobModel = buildJobRatioModel({
      sectorFactor: prior.sectorFactor,
      weights: prior.jobWeights,
      evidence,
      groups: groupTables,
      payLevel,
      sigma,
    });
    const change = maxLogChange(ratios, jobModel.jobRatio);
    fitted = { jobModel, dispersion, sigma };
    ratios = jobModel.jobRatio;
    if (change < 1e-12) break;
    if (round === MAX_FIT_ROUNDS - 1) throw new Error(`job-ratio fit did not converge (${change})`);
  }
  if (!fitted) throw new Error('job-ratio fit did not run');
  const { jobModel, dispersion, sigma } = fitted;
  const occupations: OccupationProfile = { ...prior, jobRatio: jobModel.jobRatio };
  const confidenceContext = {
    countryMeans,
    jobModel,
    evidence,
    groupOf: (slug: string) => iscoMajorGroup(JOBS.find((j) => j.slug === slug) ?? JOBS[0]!),
  };

  const records: ReleaseRecord[] = [];
  const countries = [...COUNTRIES].sort((a, b) => a.code.localeCompare(b.code));
  for (const country of countries) {
    for (const job of JOBS) {
      const jobRatio = occupations.jobRatio.get(country.code)?.get(job.slug) ?? NaN;
      const sigmaJob = sigma.get(country.code)?.get(job.slug) ?? NaN;
      for (const level of LEVELS) {
        for (let year = FIRST_YEAR; year <= CURRENT_YEAR; year++) {
          const cm = countryMeans.byCountry.get(country.code)?.get(year);
          if (!cm) throw new Error(`no country mean for ${country.code} ${year}`);
          const floor = 12 * (evidence.minimumWage.get(country.code)?.get(year) ?? 0);
          const cell = floorCell(cm.mean * jobRatio * levels.ratio[level], sigmaJob, floor);
          const { mean, sigma } = cell;
          const median = mean / Math.exp((sigma * sigma) / 2);
          const at = (z: number) => Math.round(median * Math.exp(z * sigma));
          const fx = fxFor(inputs, country, year);
          records.push({
            type: 'salary',
            country: country.code,
            job: job.slug,
            level,
            year,
            basis: cm.basis,
            ...recordConfidence(confidenceContext, country.code, job.slug, year),
            p10: at(Z.p10),
            p25: at(Z.p25),
            median: Math.round(median),
            p75: at(Z.p75),
            p90: at(Z.p90),
            mean: Math.round(mean),
            local_currency: fx.currency,
            fx_rate: fx.rate,
          });
        }
      }
    }
  }

  const header: ReleaseHeader = {
    type: 'release',
    format: RELEASE_FORMAT,
    version: RELEASE_VERSION,
    created_at: CREATED_AT,
    first_year: FIRST_YEAR,
    current_year: CURRENT_YEAR,
    last_published_year: LAST_PUBLISHED_YEAR,
    methodology: METHODOLOGY,
    sources: SOURCE_FILES.map((s) => ({ ...s })),
    job_weights: { ...occupations.jobWeights },
    level_weights: { ...LEVEL_WEIGHTS },
    record_count: records.length,
  };
  validate(header, records);
  return {
    header,
    records,
    model: {
      countryMeans,
      occupations,
      prior: prior.jobRatio,
      evidence,
      jobModel,
      groupTables,
      spreadFactor,
      sigma,
      levels,
      dispersion,
    },
  };
}

/** Rounds of the spread/ratio fixed point; it converges in well under this many. */
const MAX_FIT_ROUNDS = 100;

/** σ(c, j) = max(floor, σ_cell(c) × m_j): the country's within-cell spread scaled per job. */
function cellSigmas(dispersion: Dispersion, spreadFactor: ReadonlyMap<string, number>): Sigmas {
  return new Map(
    COUNTRIES.map((c) => {
      const sigmaCell = dispersion.cells.get(c.code)?.sigmaCell ?? NaN;
      return [
        c.code,
        new Map(
          JOBS.map((j) => [
            j.slug,
            Math.max(SIGMA_FLOOR, sigmaCell * (spreadFactor.get(j.slug) ?? 1)),
          ]),
        ),
      ];
    }),
  );
}

function maxLogChange(
  a: ReadonlyMap<string, ReadonlyMap<string, number>>,
  b: ReadonlyMap<string, ReadonlyMap<string, number>>,
): number {
  let max = 0;
  for (const [c, jobs] of b)
    for (const [j, v] of jobs)
      max = Math.max(max, Math.abs(Math.log(v / (a.get(c)?.get(j) ?? NaN))));
  return Number.isNaN(max) ? Infinity : max;
}

/**
 * Spread and mean of a cell whose p10 would fall below the annual full-time minimum wage
 * `floor`: the largest σ ≤ `sigma` with mean × exp(−σ²/2 + z₁₀ σ) ≥ floor, keeping the mean (and
 * so the country mean). Where even SIGMA_MIN_AT_FLOOR cannot keep p10 at the floor, the mean is
 * raised to the lowest value that does (a full-time job cannot average below the minimum wage).
 */
export function floorCell(
  mean: number,
  sigma: number,
  floor: number,
): { mean: number; sigma: number } {
  const p10 = (m: number, s: number) => m * Math.exp(-(s * s) / 2 + Z.p10 * s);
  if (floor <= 0 || p10(mean, sigma) >= floor) return { mean, sigma };
  const room = Math.log(mean / floor);
  const solved = room > 0 ? Z.p10 + Math.sqrt(Z.p10 * Z.p10 + 2 * room) : 0;
  if (solved >= SIGMA_MIN_AT_FLOOR) return { mean, sigma: solved };
  return { mean: Math.ceil(floor / p10(1, SIGMA_MIN_AT_FLOOR)), sigma: SIGMA_MIN_AT_FLOOR };
}

/** Narrowest spread the minimum-wage floor may impose (p90/p10 ≈ 1.14). */
export const SIGMA_MIN_AT_FLOOR = 0.05;

const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;

/** TypeBox checks `format` only for registered formats; the header's created_at needs date-time. */
export function registerFormats(): void {
  if (!FormatRegistry.Has('date-time')) {
    FormatRegistry.Set('date-time', (v) => DATE_TIME.test(v) && !Number.isNaN(Date.parse(v)));
  }
}

function validate(header: ReleaseHeader, records: readonly ReleaseRecord[]): void {
  registerFormats();
  const problems: string[] = [];
  for (const e of Value.Errors(ReleaseHeaderSchema, header))
    problems.push(`header ${e.path}: ${e.message}`);
  records.forEach((r, i) => {
    if (!Value.Check(ReleaseRecordSchema, r)) {
      for (const e of Value.Errors(ReleaseRecordSchema, r))
        problems.push(`record ${i + 1} ${e.path}: ${e.message}`);
    }
    if (!(
      r.p10 < r.p25 &&
      r.p25 < r.median &&
      r.median < r.p75 &&
      r.p75 < r.p90 &&
      r.median < r.mean
    )) {
      problems.push(
        `record ${i + 1} (${r.country} ${r.job} ${r.level} ${r.year}): percentiles out of order`,
      );
    }
  });
  const sum = (o: Record<string, number>) => Object.values(o).reduce((s, w) => s + w, 0);
  if (Math.abs(sum(header.job_weights) - 1) > 1e-9)
    problems.push('header: job_weights do not sum to 1');
  if (Math.abs(sum(header.level_weights) - 1) > 1e-9)
    problems.push('header: level_weights do not sum to 1');
  if (problems.length > 0) {
    throw new Error(
      `release is invalid (${problems.length} problems):\n${problems.slice(0, 20).join('\n')}`,
    );
  }
}

/** JSON Lines (header first), gzip-compressed; the gzip header carries no time and a fixed OS byte. */
export function serializeRelease(release: Pick<Release, 'header' | 'records'>): Buffer {
  const lines =
    [release.header, ...release.records].map((line) => JSON.stringify(line)).join('\n') + '\n';
  const gz = gzipSync(Buffer.from(lines, 'utf8'), { level: 9 });
  gz[9] = 3; // OS = Unix on every platform, so the bytes do not depend on where it was built.
  return gz;
}

/** Builds from `sourcesDir` and writes the compressed release to `outPath`. */
export function writeRelease(sourcesDir: string, outPath: string): Release {
  const release = buildRelease(sourcesDir);
  mkdirSync(dirname(outPath), { recursive: true });
  writeFileSync(outPath, serializeRelease(release));
  return release;
}

async function main(argv: readonly string[]): Promise<void> {
  const outIndex = argv.indexOf('--out');
  const outArg = outIndex >= 0 ? argv[outIndex + 1] : DEFAULT_OUT;
  if (!outArg || outArg.startsWith('--'))
    throw new Error('usage: build-release.ts [--out FILE] [--explain]');
  const out = resolve(outArg);
  const release = writeRelease(DEFAULT_SOURCES_DIR, out);
  const { sanityLines, explain } = await import('./release-model/explain.js');
  const { validateRelease, validationLines, validationMarkdown } =
    await import('./release-model/validation.js');
  if (argv.includes('--explain')) console.log(explain(release.model));
  console.log(`wrote ${out}: ${release.header.record_count} records`);
  for (const line of sanityLines(release.records)) console.log(line);
  const report = validateRelease(release.header, release.records, release.model);
  for (const line of validationLines(report)) console.log(line);
  // The bundled release's validation is the public one; a build elsewhere leaves it alone.
  if (out === DEFAULT_OUT) {
    writeFileSync(VALIDATION_DOC, validationMarkdown(release.header, report));
    console.log(`wrote ${VALIDATION_DOC}`);
  }
}

const entry = process.argv[1];
if (entry && realpathSync(entry) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exitCode = 1;
  });
}
