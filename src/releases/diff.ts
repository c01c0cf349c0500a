import type { ReleaseHeader, ReleaseRecord } from './format.js';
import type { ReleaseRow } from './repo.js';

/**
 * Why a cell moved between two releases, read from the releases' headers and the cells:
 * - `new_source`: a source that covers the cell's country (its own national sources and the
 *   pan-European ones) was added or dropped;
 * - `method`: the methodology text differs;
 * - `fx`: the cell's exchange rate or local currency differs;
 * - `revision`: the cell's year was a published year, or its basis changed (a projection
 *   replaced by a published figure): a revision of a published input. A changed cell that none
 *   of the others explains is a revision too.
 */
export const CHANGE_REASONS = ['new_source', 'method', 'fx', 'revision'] as const;
export type ChangeReason = (typeof CHANGE_REASONS)[number];

export const PERCENTILES = ['p10', 'p25', 'median', 'p75', 'p90', 'mean'] as const;
type Figures = Record<(typeof PERCENTILES)[number], number>;

export interface CellChange {
  country: string;
  job: string;
  level: string;
  year: number;
  old: Figures;
  new: Figures;
  /** Relative change of the median, in percent (two decimals). */
  change_pct: number;
  reasons: ChangeReason[];
}

export interface GroupSummary {
  changed: number;
  beyond_1: number;
  beyond_5: number;
  beyond_10: number;
  /** The median of the cells' relative median changes, in percent. */
  median_change_pct: number;
}

export interface ChangeSummary {
  /** Cells in both releases. */
  cells: number;
  changed: number;
  added: number;
  removed: number;
  /** Changed cells whose median moved by more than 1, 5 and 10 % (either way). */
  beyond: { '1': number; '5': number; '10': number };
  by_country: (GroupSummary & { country: string })[];
  by_job: (GroupSummary & { job: string })[];
  by_reason: Record<ChangeReason, number>;
}

export interface ReleaseDiff {
  from: string;
  to: string;
  /** Every changed cell, in order (country, job, year, level). */
  changes: CellChange[];
  summary: ChangeSummary;
  /** The release-level reasons in words. */
  reasons: { reason: ChangeReason; detail: string }[];
}

const VALUE_FIELDS = [...PERCENTILES, 'basis', 'local_currency', 'fx_rate'] as const;
const PAN_EUROPEAN = /^(eurostat|ecb|eu|oecd|derived)_/;

interface Side {
  release: ReleaseRow;
  records: readonly ReleaseRecord[];
}

/** What changed from release `a` to release `b`, cell by cell, with reasons and a summary. */
export function diffReleases(a: Side, b: Side): ReleaseDiff {
  const key = (r: ReleaseRecord): string => `${r.country}|${r.job}|${r.level}|${r.year}`;
  const before = new Map(a.records.map((r) => [key(r), r]));
  const ha = a.release.header;
  const hb = b.release.header;
  const methodChanged = ha.methodology !== hb.methodology;
  const sourceChanges = sourcesByCountry(ha, hb);
  const changes: CellChange[] = [];
  let added = 0;
  let fxCells = 0;
  for (const r of b.records) {
    const prior = before.get(key(r));
    before.delete(key(r));
    if (prior === undefined) {
      added++;
      continue;
    }
    if (!VALUE_FIELDS.some((f) => prior[f] !== r[f])) continue;
    const reasons: ChangeReason[] = [];
    if (sourceChanges(r.country)) reasons.push('new_source');
    if (methodChanged) reasons.push('method');
    if (prior.fx_rate !== r.fx_rate || prior.local_currency !== r.local_currency) {
      reasons.push('fx');
      fxCells++;
    }
    if (
      r.year <= Math.min(ha.last_published_year, hb.last_published_year) ||
      prior.basis !== r.basis ||
      reasons.length === 0
    )
      reasons.push('revision');
    changes.push({
      country: r.country,
      job: r.job,
      level: r.level,
      year: r.year,
      old: figures(prior),
      new: figures(r),
      change_pct: relative(prior.median, r.median),
      reasons,
    });
  }
  const reasons: ReleaseDiff['reasons'] = [];
  const sources = sourceDelta(ha, hb);
  if (sources.added.length > 0 || sources.removed.length > 0)
    reasons.push({
      reason: 'new_source',
      detail: `${sources.added.length} source(s) added, ${sources.removed.length} dropped`,
    });
  if (methodChanged) reasons.push({ reason: 'method', detail: 'the methodology changed' });
  if (fxCells > 0)
    reasons.push({ reason: 'fx', detail: `${fxCells} cell(s) use another exchange rate` });
  if (ha.last_published_year !== hb.last_published_year)
    reasons.push({
      reason: 'revision',
      detail: `last published year ${ha.last_published_year} → ${hb.last_published_year}`,
    });
  return {
    from: a.release.version,
    to: b.release.version,
    changes,
    summary: summarise(changes, b.records.length - added, added, before.size),
    reasons,
  };
}

/** Summary of a list of changed cells (the whole diff, or a filtered part of it). */
export function summarise(
  changes: readonly CellChange[],
  cells: number,
  added: number,
  removed: number,
): ChangeSummary {
  const byReason = Object.fromEntries(CHANGE_REASONS.map((r) => [r, 0])) as Record<
    ChangeReason,
    number
  >;
  for (const c of changes) for (const r of c.reasons) byReason[r]++;
  return {
    cells,
    changed: changes.length,
    added,
    removed,
    beyond: {
      '1': changes.filter((c) => Math.abs(c.change_pct) > 1).length,
      '5': changes.filter((c) => Math.abs(c.change_pct) > 5).length,
      '10': changes.filter((c) => Math.abs(c.change_pct) > 10).length,
    },
    by_country: groups(changes, (c) => c.country).map(([country, g]) => ({ country, ...g })),
    by_job: groups(changes, (c) => c.job).map(([job, g]) => ({ job, ...g })),
    by_reason: byReason,
  };
}

function groups(
  changes: readonly CellChange[],
  by: (c: CellChange) => string,
): [string, GroupSummary][] {
  const lists = new Map<string, number[]>();
  for (const c of changes) {
    let list = lists.get(by(c));
    if (list === undefined) lists.set(by(c), (list = []));
    list.push(c.change_pct);
  }
  return [...lists.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, pcts]) => [
      name,
      {
        changed: pcts.length,
        beyond_1: pcts.filter((p) => Math.abs(p) > 1).length,
        beyond_5: pcts.filter((p) => Math.abs(p) > 5).length,
        beyond_10: pcts.filter((p) => Math.abs(p) > 10).length,
        median_change_pct: median(pcts),
      },
    ]);
}

function median(values: number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  const mid = Math.floor(sorted.length / 2);
  const m = sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return Math.round(m * 100) / 100;
}

function figures(r: ReleaseRecord): Figures {
  return { p10: r.p10, p25: r.p25, median: r.median, p75: r.p75, p90: r.p90, mean: r.mean };
}

/** (new − old) / old in percent, two decimals; 0 when both are 0. */
export function relative(old: number, now: number): number {
  if (old === now) return 0;
  if (old === 0) return 100;
  return Math.round(((now - old) / old) * 10_000) / 100;
}

function sourceDelta(a: ReleaseHeader, b: ReleaseHeader): { added: string[]; removed: string[] } {
  const ids = (h: ReleaseHeader) => new Set(h.sources.map((s) => s.id));
  const before = ids(a);
  const after = ids(b);
  return {
    added: [...after].filter((id) => !before.has(id)),
    removed: [...before].filter((id) => !after.has(id)),
  };
}

/** Whether the sources covering a country differ: its own (`de_…`) and the pan-European ones. */
function sourcesByCountry(a: ReleaseHeader, b: ReleaseHeader): (country: string) => boolean {
  const { added, removed } = sourceDelta(a, b);
  const changed = [...added, ...removed];
  const panEuropean = changed.some((id) => PAN_EUROPEAN.test(id));
  const countries = new Set(changed.map((id) => id.slice(0, 3)));
  return (country) => panEuropean || countries.has(`${country.toLowerCase()}_`);
}
