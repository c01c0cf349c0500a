import type { Principal } from '../auth/index.js';
import { COUNTRIES, COUNTRY_CODES } from '../catalog/countries.js';
import { JOBS, JOB_SLUGS } from '../catalog/jobs.js';
import { AppError } from '../errors/index.js';
import {
  assertFormatAllowed,
  assertYearAllowed,
  type Format,
  type Plan,
  type PlanId,
} from '../plans/index.js';
import type { ReleaseRecord } from '../releases/index.js';
import type { SalaryDataStore } from './data-store.js';
import type { SalaryIndex } from './salary-index.js';
import type { SalaryQuery, SalaryResponse } from './schemas.js';

const COUNTRY_BY_INPUT = new Map(
  COUNTRIES.flatMap(
    (c) =>
      [
        [c.code, c],
        [c.eurostatCode, c],
      ] as const,
  ),
);
const JOB_BY_SLUG = new Map(JOBS.map((j) => [j.slug, j]));

export interface SalaryService {
  lookup(query: SalaryQuery, principal: Principal, format: Format): SalaryResponse;
}

/** Salary lookups against the in-memory index: validation, plan rules, response shaping. */
export function createSalaryService(deps: {
  data: SalaryDataStore;
  plans: Readonly<Record<PlanId, Plan>>;
}): SalaryService {
  const { data, plans } = deps;
  return {
    lookup(query, principal, format) {
      const index = requireIndex(data.index);
      const country = COUNTRY_BY_INPUT.get(query.country.toUpperCase());
      if (country === undefined) {
        throw AppError.invalidParams([
          {
            name: 'country',
            reason: `${query.country} is not an EU member state covered by the API`,
            allowed: COUNTRY_CODES,
          },
        ]);
      }
      const job = JOB_BY_SLUG.get(query.job);
      if (job === undefined) {
        throw AppError.invalidParams([
          { name: 'job', reason: `unknown job category ${query.job}`, allowed: JOB_SLUGS },
        ]);
      }
      assertFormatAllowed(plans, principal.plan, format);
      const year = query.year ?? index.currentYear;
      if (!index.years.includes(year)) {
        throw new AppError(
          'NO_DATA',
          `There is no data for ${year}; the release covers ${index.years[0]}–${index.years.at(-1)}.`,
          {
            extensions: { available_years: index.years },
          },
        );
      }
      assertYearAllowed(plans, principal.plan, year, index.currentYear);
      const cell = index.cell(country.code, job.slug, year);
      const records =
        query.level === undefined ? cell : cell.filter((r) => r.level === query.level);
      if (records.length === 0) {
        throw new AppError('NO_DATA', `No figures for ${job.slug} in ${country.code} in ${year}.`);
      }
      return {
        data: records.map(toPublicRecord),
        meta: {
          country: { code: country.code, name: country.name },
          job: { slug: job.slug, title: job.title, isco_code: job.iscoCode },
          year,
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

export const METHODOLOGY_PATH = '/methodology';

const notes = new WeakMap<SalaryIndex, string>();

/** "Modelled from published statistics: Eurostat; …" — publishers named once, per release. */
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

function toPublicRecord(r: ReleaseRecord): SalaryResponse['data'][number] {
  return {
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
}
