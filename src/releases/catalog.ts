import type { Principal } from '../auth/index.js';
import { AppError } from '../errors/index.js';
import { assertReleaseAllowed, type Plan, type PlanId } from '../plans/index.js';
import { diffReleases, summarise, type ChangeSummary, type ReleaseDiff } from './diff.js';
import type { ReleaseRow } from './repo.js';
import type { ReleaseService } from './service.js';

/** A kept release as GET /api/v1/releases describes it. */
export interface ReleaseView {
  version: string;
  active: boolean;
  published_at: string;
  loaded_at: string;
  first_year: number;
  current_year: number;
  last_published_year: number;
  methodology: string;
  sources: { id: string; title: string; publisher: string; years: number[] }[];
  counts: { records: number; countries: number; jobs: number; levels: number; years: number };
  /** The changes from the release before it; null for the oldest kept release. */
  previous_release: string | null;
  changes_url: string | null;
}

export interface ChangesQuery {
  from?: string;
  country?: string;
  job?: string;
  level?: string;
  year?: number;
  min_change?: number;
  limit?: number;
  offset?: number;
}

export interface ChangesView {
  release: string;
  from: string;
  summary: ChangeSummary;
  reasons: ReleaseDiff['reasons'];
  data: ReleaseDiff['changes'];
  /** Changed cells matching the filters (before limit and offset). */
  total: number;
  limit: number;
  offset: number;
}

export interface ReleaseCatalog {
  list(): Promise<ReleaseView[]>;
  get(version: string): Promise<ReleaseView>;
  /** The cells that differ from `from` (the previous kept release by default) to `version`. */
  changes(version: string, query: ChangesQuery, principal: Principal): Promise<ChangesView>;
  /** The whole diff of two kept releases, computed once and kept (a few at most). */
  diff(from: ReleaseRow, to: ReleaseRow): Promise<ReleaseDiff>;
  /** Each kept release, newest first, with the summary of its changes from the one before. */
  history(): Promise<
    { release: ReleaseView; changes: Pick<ReleaseDiff, 'summary' | 'reasons'> | null }[]
  >;
}

const DIFF_CACHE = 4;
export const CHANGES_LIMIT = 1000;

/** The years a source names in its id (`…_2014_2026` or `…_2022`): what it covers. */
function sourceYears(id: string): number[] {
  const years = [...id.matchAll(/(?:^|_)((?:19|20)\d{2})(?=_|$)/g)].map((m) => Number(m[1]));
  return [...new Set(years)].sort((a, b) => a - b);
}

function view(release: ReleaseRow, kept: readonly ReleaseRow[]): ReleaseView {
  const at = kept.findIndex((r) => r.id === release.id);
  const previous = kept[at + 1];
  const h = release.header;
  return {
    version: release.version,
    active: at === 0,
    published_at: release.createdAt,
    loaded_at: release.loadedAt,
    first_year: release.firstYear,
    current_year: release.currentYear,
    last_published_year: release.lastPublishedYear,
    methodology: h.methodology,
    sources: h.sources.map((s) => ({
      id: s.id,
      title: s.title,
      publisher: s.publisher,
      years: sourceYears(s.id),
    })),
    counts: {
      records: release.recordCount,
      countries: 27,
      jobs: Object.keys(h.job_weights).length,
      levels: Object.keys(h.level_weights).length,
      years: release.currentYear - release.firstYear + 1,
    },
    previous_release: previous?.version ?? null,
    changes_url:
      previous === undefined
        ? null
        : `/api/v1/releases/${release.version}/changes?from=${previous.version}`,
  };
}

function notKept(version: string, kept: readonly ReleaseRow[], name?: string): AppError {
  if (name !== undefined)
    return AppError.invalidParams([
      {
        name,
        reason: `${version} is not a kept data release`,
        allowed: kept.map((r) => r.version),
      },
    ]);
  return new AppError('NOT_FOUND', `No kept data release ${version}.`, {
    extensions: { releases: kept.map((r) => r.version) },
  });
}

/** The releases resource: what each kept release is, and what changed between two. */
export function createReleaseCatalog(deps: {
  releases: ReleaseService;
  plans: Readonly<Record<PlanId, Plan>>;
}): ReleaseCatalog {
  const { releases, plans } = deps;
  const diffs = new Map<string, Promise<ReleaseDiff>>();

  function diff(from: ReleaseRow, to: ReleaseRow): Promise<ReleaseDiff> {
    const key = `${from.id}|${to.id}`;
    let known = diffs.get(key);
    if (known === undefined) {
      known = Promise.all([releases.records(from), releases.records(to)]).then(([a, b]) =>
        diffReleases({ release: from, records: a }, { release: to, records: b }),
      );
      known.catch(() => diffs.delete(key));
      diffs.set(key, known);
      if (diffs.size > DIFF_CACHE) diffs.delete(diffs.keys().next().value!);
    }
    return known;
  }

  return {
    async list() {
      const kept = await releases.list();
      return kept.map((r) => view(r, kept));
    },
    async get(version) {
      const kept = await releases.list();
      const release = kept.find((r) => r.version === version);
      if (release === undefined) throw notKept(version, kept);
      return view(release, kept);
    },
    diff,
    async history() {
      const kept = await releases.list();
      return Promise.all(
        kept.map(async (release, i) => {
          const previous = kept[i + 1];
          const whole = previous === undefined ? undefined : await diff(previous, release);
          return {
            release: view(release, kept),
            changes: whole === undefined ? null : { summary: whole.summary, reasons: whole.reasons },
          };
        }),
      );
    },
    async changes(version, query, principal) {
      const kept = await releases.list();
      const to = kept.find((r) => r.version === version);
      if (to === undefined) throw notKept(version, kept);
      const fromVersion = query.from ?? kept[kept.indexOf(to) + 1]?.version;
      if (fromVersion === undefined)
        throw new AppError('NO_DATA', `${version} is the oldest kept release; nothing to compare.`);
      const from = kept.find((r) => r.version === fromVersion);
      if (from === undefined) throw notKept(fromVersion, kept, 'from');
      if (from.id === to.id)
        throw AppError.invalidParams([
          { name: 'from', reason: 'compare two different releases' },
        ]);
      assertReleaseAllowed(plans, principal.plan, to.version, kept.indexOf(to));
      assertReleaseAllowed(plans, principal.plan, from.version, kept.indexOf(from));
      const whole = await diff(from, to);
      const country = query.country?.toUpperCase();
      const minChange = query.min_change ?? 0;
      const matching = whole.changes.filter(
        (c) =>
          (country === undefined || c.country === country) &&
          (query.job === undefined || c.job === query.job) &&
          (query.level === undefined || c.level === query.level) &&
          (query.year === undefined || c.year === query.year) &&
          Math.abs(c.change_pct) >= minChange,
      );
      const limit = query.limit ?? CHANGES_LIMIT;
      const offset = query.offset ?? 0;
      const filtered =
        matching.length === whole.changes.length
          ? whole.summary
          : summarise(matching, whole.summary.cells, whole.summary.added, whole.summary.removed);
      return {
        release: to.version,
        from: from.version,
        summary: filtered,
        reasons: whole.reasons,
        data: matching.slice(offset, offset + limit),
        total: matching.length,
        limit,
        offset,
      };
    },
  };
}
