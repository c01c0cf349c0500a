import type { Principal } from '../auth/index.js';
import { COUNTRIES, COUNTRY_CODES, type Country } from '../catalog/countries.js';
import { JOBS, JOB_SLUGS, type Job } from '../catalog/jobs.js';
import { AppError } from '../errors/index.js';
import {
  assertFormatAllowed,
  assertPlanHas,
  assertYearAllowed,
  earliestYear,
  type Format,
  type Plan,
  type PlanId,
} from '../plans/index.js';
import type { ReleaseRecord } from '../releases/index.js';
import type { SalaryDataStore } from './data-store.js';
import { EXTRA_FIELDS, parseFields } from './fields.js';
import type { SalaryIndex } from './salary-index.js';
import type { PublicRecord, SalaryMeta } from './schemas.js';

const COUNTRY_BY_INPUT = new Map(
  COUNTRIES.flatMap((c) => [[c.code, c] as const, [c.eurostatCode, c] as const]),
);
const JOB_BY_SLUG = new Map(JOBS.map((j) => [j.slug, j]));
export const METHODOLOGY_PATH = '/methodology';

/** What to select: a country or all, a job or all, a level or all, a year, all years, or the current. */
export interface Selection {
  country?: string;
  job?: string;
  level?: string;
  year?: number | 'all';
  fields?: string;
}

export interface SalaryResult {
  data: PublicRecord[];
  meta: SalaryMeta;
  fields: readonly string[];
}

export interface SalaryService {
  /** Resolves and checks a selection against the plan, then reads it from memory. */
  select(
    selection: Selection,
    principal: Principal,
    format: Format,
    options?: { feature?: 'bulk' },
  ): SalaryResult;
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
  return {
    select(selection, principal, format, options = {}) {
      const index = requireIndex(data.index);
      const countries =
        selection.country === undefined ? COUNTRIES : [resolveCountry(selection.country)];
      const jobs = selection.job === undefined ? JOBS : [resolveJob(selection.job)];
      if (options.feature === 'bulk')
        assertPlanHas(plans, principal.plan, (p) => p.bulk, 'Bulk endpoints');
      assertFormatAllowed(plans, principal.plan, format);
      const fields = parseFields(selection.fields);
      if (fields.length > 0)
        assertPlanHas(plans, principal.plan, (p) => p.customFields, 'Custom fields');
      const years = resolveYears(index, principal.plan, selection.year, plans);

      const rows: PublicRecord[] = [];
      for (const country of [...countries].sort((a, b) => a.code.localeCompare(b.code))) {
        for (const job of jobs) {
          for (const year of years) {
            for (const record of index.cell(country.code, job.slug, year)) {
              if (selection.level !== undefined && record.level !== selection.level) continue;
              const previous = fields.includes('yoy_median_pct')
                ? index.cell(country.code, job.slug, year - 1).find((r) => r.level === record.level)
                : undefined;
              rows.push(toPublicRecord(record, fields, previous));
            }
          }
        }
      }
      if (rows.length === 0) throw new AppError('NO_DATA', 'No figures match this selection.');
      const country = countries.length === 1 ? countries[0] : undefined;
      const job = jobs.length === 1 ? jobs[0] : undefined;
      return {
        data: rows,
        fields,
        meta: {
          ...(country === undefined ? {} : { country: { code: country.code, name: country.name } }),
          ...(job === undefined
            ? {}
            : { job: { slug: job.slug, title: job.title, isco_code: job.iscoCode } }),
          ...(years.length === 1 ? { year: years[0]! } : { years }),
          count: rows.length,
          release: {
            version: index.release.version,
            created_at: index.release.createdAt,
            current_year: index.currentYear,
            last_published_year: index.release.lastPublishedYear,
          },
          source: sourceNote(index),
          methodology_url: METHODOLOGY_PATH,
          modelled: true,
        },
      };
    },
  };
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
    basis: r.basis,
    projected: r.basis === 'projected',
    confidence: r.confidence,
  };
  for (const name of fields)
    (record as Record<string, unknown>)[name] = EXTRA_FIELDS[name]?.value(r, previous) ?? null;
  return record;
}
