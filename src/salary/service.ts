import type { Principal } from '../auth/index.js';
import { COUNTRIES, COUNTRY_CODES, type Country } from '../catalog/index.js';
import { JOBS, JOB_SLUGS, LEVELS, type Job } from '../catalog/index.js';
import { AppError } from '../errors/index.js';
import { STREAM_ABOVE_ROWS } from '../formats/index.js';
import {
  assertFormatAllowed,
  assertPlanHas,
  assertReleaseAllowed,
  assertYearAllowed,
  earliestYear,
  type Format,
  type Plan,
  type PlanId,
} from '../plans/index.js';
import type { ReleaseRecord } from '../releases/index.js';
import { pickRelease } from './vintage.js';
import type { SalaryDataStore } from './data-store.js';
import { EXTRA_FIELDS, local, parseFields } from './fields.js';
import type { SalaryIndex } from './salary-index.js';
import type { PublicRecord, SalaryMeta } from './schemas.js';

const COUNTRY_BY_INPUT = new Map(
  COUNTRIES.flatMap((c) => [[c.code, c] as const, [c.eurostatCode, c] as const]),
);
const JOB_BY_SLUG = new Map(JOBS.map((j) => [j.slug, j]));
const SORTED_COUNTRIES = [...COUNTRIES].sort((a, b) => a.code.localeCompare(b.code));
const JSON_CACHE_MAX = 50_000;
export const METHODOLOGY_PATH = '/methodology';

/** What to select: a country or all, a job or all, a level or all, a year, all years, or the current. */
export interface Selection {
  country?: string;
  job?: string;
  level?: string;
  year?: number | 'all';
  fields?: string;
  /** Several countries, jobs, levels or years (custom endpoints); each replaces its single form. */
  countries?: readonly string[];
  jobs?: readonly string[];
  levels?: readonly string[];
  years?: readonly number[];
  /** A kept release by version (`release=`), or the one in effect on a date (`as_of=`). */
  release?: string;
  as_of?: string;
  /** The release `release`/`as_of` resolved to (SalaryService.pin); the active one when absent. */
  vintage?: SalaryIndex;
}

export interface SalaryResult {
  data: PublicRecord[];
  meta: SalaryMeta;
  fields: readonly string[];
}

/** A selection checked against the catalogue and the plan, not yet read. */
export interface PreparedSelection {
  /** The release it reads; a new release makes every earlier key stale. */
  readonly release: SalaryIndex;
  /** Within the release, equal keys build equal results. */
  readonly key: string;
  /** The rows it will have at most (every level of every cell). */
  readonly expectedRows: number;
  build(): SalaryResult;
  /** The extra fields each record has. */
  readonly fields: readonly string[];
  /** The records one at a time (never all in memory): streamed exports. */
  records(): Generator<PublicRecord>;
  /** The meta of a result of `count` of these records (what build() gives it). */
  meta(count: number): SalaryMeta;
}

export interface SalaryService {
  /**
   * Resolves `release=` or `as_of=` to a kept release the plan reaches (400/403/404 problems)
   * and reads it (from the database on first use): the selection with its `vintage` set. A
   * selection naming neither is returned as it is. Synchronous (thrown problems, no promise)
   * when the release is in memory; a promise only while it is read.
   */
  pin(selection: Selection, principal: Principal): Selection | Promise<Selection>;
  /** Resolves and checks a selection against the plan (400/403/404/503 problems). */
  prepare(
    selection: Selection,
    principal: Principal,
    format: Format,
    options?: { feature?: 'bulk' },
  ): PreparedSelection;
  /** Resolves and checks a selection against the plan, then reads it from memory. */
  select(
    selection: Selection,
    principal: Principal,
    format: Format,
    options?: { feature?: 'bulk' },
  ): SalaryResult;
  /**
   * The standard JSON body, encoded once and cached per release (sent as is: no per-response
   * UTF-8 encoding or length count); undefined when custom fields were asked for.
   */
  standardJson(
    selection: Selection,
    principal: Principal,
    options?: { feature?: 'bulk' },
  ): Buffer | undefined;
}

export function resolveCountry(input: string): Country {
  const country = COUNTRY_BY_INPUT.get(input.toUpperCase());
  if (country === undefined) {
    throw AppError.invalidParams([
      {
        name: 'country',
        reason: `${input} is not an EU member state covered by the API`,
        allowed: COUNTRY_CODES,
      },
    ]);
  }
  return country;
}

export function resolveJob(input: string): Job {
  const job = JOB_BY_SLUG.get(input);
  if (job === undefined) {
    throw AppError.invalidParams([
      { name: 'job', reason: `unknown job category ${input}`, allowed: JOB_SLUGS },
    ]);
  }
  return job;
}

/** Salary figures from the in-memory index: validation, plan rules, response shaping. */
export function createSalaryService(deps: {
  data: SalaryDataStore;
  plans: Readonly<Record<PlanId, Plan>>;
}): SalaryService {
  const { data, plans } = deps;
  /** Checks a selection against the catalogue and the plan; throws 400/403/404 problems. */
  function resolve(
    selection: Selection,
    principal: Principal,
    format: Format,
    feature: 'bulk' | undefined,
  ) {
    const index = selection.vintage ?? requireIndex(data.index);
    const countries =
      selection.countries !== undefined
        ? SORTED_COUNTRIES.filter((c) =>
            selection.countries!.some((input) => resolveCountry(input) === c),
          )
        : selection.country === undefined
          ? SORTED_COUNTRIES
          : [resolveCountry(selection.country)];
    const jobs =
      selection.jobs !== undefined
        ? JOBS.filter((j) => selection.jobs!.some((input) => resolveJob(input) === j))
        : selection.job === undefined
          ? JOBS
          : [resolveJob(selection.job)];
    if (feature === 'bulk') assertPlanHas(plans, principal.plan, (p) => p.bulk, 'Bulk endpoints');
    assertFormatAllowed(plans, principal.plan, format);
    const fields = parseFields(selection.fields);
    if (fields.length > 0)
      assertPlanHas(plans, principal.plan, (p) => p.customFields, 'Custom fields');
    const years =
      selection.years !== undefined
        ? selection.years.map((y) => resolveYears(index, principal.plan, y, plans)[0]!)
        : resolveYears(index, principal.plan, selection.year, plans);
    const levels =
      selection.levels ?? (selection.level === undefined ? undefined : [selection.level]);
    return { index, countries, jobs, fields, years, levels };
  }

  /** The selection's records in their order (country, job, year, level), one at a time. */
  function* records(r: ReturnType<typeof resolve>): Generator<PublicRecord> {
    const { index, countries, jobs, fields, years, levels } = r;
    for (const country of countries) {
      for (const job of jobs) {
        for (const year of years) {
          for (const record of index.cell(country.code, job.slug, year)) {
            if (levels !== undefined && !levels.includes(record.level)) continue;
            const previous = fields.includes('yoy_median_pct')
              ? index.cell(country.code, job.slug, year - 1).find((p) => p.level === record.level)
              : undefined;
            yield toPublicRecord(record, fields, previous);
          }
        }
      }
    }
  }

  function metaOf(r: ReturnType<typeof resolve>, count: number): SalaryMeta {
    const { index, countries, jobs, years } = r;
    const meta: SalaryMeta = {
      count,
      release: {
        version: index.release.version,
        created_at: index.release.createdAt,
        current_year: index.currentYear,
        last_published_year: index.release.lastPublishedYear,
      },
      source: sourceNote(index),
      methodology_url: METHODOLOGY_PATH,
      modelled: true,
    };
    const country = countries.length === 1 ? countries[0] : undefined;
    const job = jobs.length === 1 ? jobs[0] : undefined;
    if (country !== undefined) meta.country = { code: country.code, name: country.name };
    if (job !== undefined) meta.job = { slug: job.slug, title: job.title, isco_code: job.iscoCode };
    if (years.length === 1) meta.year = years[0];
    else meta.years = years;
    return meta;
  }

  function build(r: ReturnType<typeof resolve>): SalaryResult {
    const rows = [...records(r)];
    if (rows.length === 0) throw new AppError('NO_DATA', 'No figures match this selection.');
    return { data: rows, fields: r.fields, meta: metaOf(r, rows.length) };
  }

  // Serialised standard JSON responses per release: the same query answers with the same bytes.
  const jsonCache = new WeakMap<SalaryIndex, Map<string, Buffer>>();
  // The same bodies by the query as sent, per release and plan (plans are frozen; a contract's
  // is an object of its own): a repeated lookup skips resolving and the plan checks, which
  // passed for that plan and release when the body was first answered.
  const sentCache = new WeakMap<SalaryIndex, WeakMap<Plan, Map<string, Buffer>>>();

  function sentBodies(index: SalaryIndex, plan: Plan): Map<string, Buffer> {
    let byPlan = sentCache.get(index);
    if (byPlan === undefined)
      sentCache.set(index, (byPlan = new WeakMap<Plan, Map<string, Buffer>>()));
    let bodies = byPlan.get(plan);
    if (bodies === undefined) byPlan.set(plan, (bodies = new Map<string, Buffer>()));
    return bodies;
  }

  return {
    pin(selection, principal) {
      if (
        selection.vintage !== undefined ||
        (selection.release === undefined && selection.as_of === undefined)
      )
        return selection;
      requireIndex(data.index);
      const kept = data.kept;
      const release = pickRelease(kept, selection.release, selection.as_of);
      const back = kept.indexOf(release);
      assertReleaseAllowed(plans, principal.plan, release.version, back);
      const held = data.held(release);
      if (held !== undefined) return withVintage(selection, held);
      return data.vintage(release).then((vintage) => withVintage(selection, vintage));
    },

    prepare(selection, principal, format, options = {}) {
      const r = resolve(selection, principal, format, options.feature);
      return {
        release: r.index,
        key: `${selectionKey(r)}|${r.fields.join(',')}`,
        expectedRows: expectedRows(r),
        build: () => build(r),
        fields: r.fields,
        records: () => records(r),
        meta: (count) => metaOf(r, count),
      };
    },

    select(selection, principal, format, options = {}) {
      return build(resolve(selection, principal, format, options.feature));
    },

    standardJson(selection, principal, options = {}) {
      const sent = sentKey(selection, options.feature);
      const index = selection.vintage ?? data.index;
      const bodies =
        sent === undefined || index === undefined ? undefined : sentBodies(index, principal.plan);
      const known = bodies?.get(sent!);
      if (known !== undefined) return known;
      const r = resolve(selection, principal, 'json', options.feature);
      // Custom fields, and results large enough to be streamed, take the general path.
      if (r.fields.length > 0 || expectedRows(r) > STREAM_ABOVE_ROWS) return undefined;
      const key = selectionKey(r);
      let cache = jsonCache.get(r.index);
      if (cache === undefined) jsonCache.set(r.index, (cache = new Map<string, Buffer>()));
      let body = cache.get(key);
      if (body === undefined) {
        const result = build(r);
        body = Buffer.from(JSON.stringify({ data: result.data, meta: result.meta }));
        if (cache.size >= JSON_CACHE_MAX) cache.clear();
        cache.set(key, body);
      }
      if (bodies !== undefined) {
        if (bodies.size >= JSON_CACHE_MAX) bodies.clear();
        bodies.set(sent!, body);
      }
      return body;
    },
  };
}

/**
 * The selection pinned to `vintage`. Copied with Object.assign, then the property set: under
 * lookups pinned to a release at 50 connections, an object spread (`{ ...selection, vintage }`)
 * of the parsed query made objects that outlived the young generation on node 20, and the heap
 * grew by about 3 MiB a second until a full collection (bench/README.md); these die young.
 */
function withVintage(selection: Selection, vintage: SalaryIndex): Selection {
  const pinned: Selection = Object.assign({}, selection);
  pinned.vintage = vintage;
  return pinned;
}

/**
 * A single-cell selection's query as sent (one country, one job, at most one level and year, no
 * extra fields), with the route's feature; undefined for any other selection. Two selections
 * have equal keys only when they are equal (no part holds the separator; an absent level or
 * year is written as no text, a present one never is), so in one release and plan they resolve
 * to the same cells. A selection pinned to a release counts once pinned (its `vintage` set, the
 * plan's reach to that release checked by `pin`): its bodies are that release's.
 */
function sentKey(selection: Selection, feature: 'bulk' | undefined): string | undefined {
  const { country, job, level, year } = selection;
  if (
    (selection.vintage === undefined &&
      (selection.release !== undefined || selection.as_of !== undefined)) ||
    country === undefined ||
    job === undefined ||
    selection.fields !== undefined ||
    selection.countries !== undefined ||
    selection.jobs !== undefined ||
    selection.levels !== undefined ||
    selection.years !== undefined ||
    country.includes('|') ||
    job.includes('|') ||
    level?.includes('|') === true
  ) {
    return undefined;
  }
  return `${country}|${job}|${level === undefined ? '' : `=${level}`}|${year ?? ''}|${feature ?? ''}`;
}

interface Resolved {
  readonly countries: readonly Country[];
  readonly jobs: readonly Job[];
  readonly years: readonly number[];
  readonly levels: readonly string[] | undefined;
}

/** Which cells a resolved selection reads (without its extra fields). */
function selectionKey(r: Resolved): string {
  const list = <T>(all: readonly T[], total: number, name: (t: T) => string): string =>
    all.length === total ? '*' : all.map(name).join(',');
  return `${list(r.countries, COUNTRIES.length, (c) => c.code)}|${list(r.jobs, JOBS.length, (j) => j.slug)}|${r.levels?.join(',') ?? '*'}|${r.years.join(',')}`;
}

function expectedRows(r: Resolved): number {
  return (
    r.countries.length *
    r.jobs.length *
    r.years.length *
    (r.levels === undefined ? LEVELS.length : r.levels.length)
  );
}

function resolveYears(
  index: SalaryIndex,
  plan: Plan,
  year: number | 'all' | undefined,
  plans: Readonly<Record<PlanId, Plan>>,
): number[] {
  if (year === 'all') {
    const from = earliestYear(plan, index.currentYear, index.years[0] ?? index.currentYear);
    return index.years.filter((y) => y >= from);
  }
  const chosen = year ?? index.currentYear;
  if (!index.years.includes(chosen)) {
    throw new AppError(
      'NO_DATA',
      `There is no data for ${chosen}; the release covers ${index.years[0]}–${index.years.at(-1)}.`,
      {
        extensions: { available_years: index.years },
      },
    );
  }
  assertYearAllowed(plans, plan, chosen, index.currentYear);
  return [chosen];
}

const notes = new WeakMap<SalaryIndex, string>();

/** "Modelled from published statistics (Eurostat; …)" — publishers named once, per release. */
function sourceNote(index: SalaryIndex): string {
  let note = notes.get(index);
  if (note === undefined) {
    const publishers = new Set(
      index.release.header.sources.flatMap((s) => s.publisher.split(/[;(]/)[0]?.trim() ?? []),
    );
    publishers.delete('');
    note = `Modelled from published statistics (${[...publishers].join('; ')}); not survey microdata. Release ${index.release.version}.`;
    notes.set(index, note);
  }
  return note;
}

function requireIndex(index: SalaryIndex | undefined): SalaryIndex {
  if (index === undefined) {
    throw new AppError('DEPENDENCY_UNAVAILABLE', 'No salary data release is loaded yet.', {
      headers: { 'retry-after': 30 },
      extensions: { retry_after: 30 },
    });
  }
  return index;
}

function toPublicRecord(
  r: ReleaseRecord,
  fields: readonly string[],
  previous: ReleaseRecord | undefined,
): PublicRecord {
  const record: PublicRecord = {
    country: r.country,
    job: r.job,
    level: r.level,
    year: r.year,
    currency: 'EUR',
    period: 'annual',
    p25: r.p25,
    median: r.median,
    p75: r.p75,
    local_currency: r.local_currency,
    local_median: local(r, r.median),
    basis: r.basis,
    projected: r.basis === 'projected',
    confidence: r.confidence,
    confidence_note: r.confidence_note,
  };
  for (const name of fields)
    (record as Record<string, unknown>)[name] = EXTRA_FIELDS[name]?.value(r, previous) ?? null;
  return record;
}
