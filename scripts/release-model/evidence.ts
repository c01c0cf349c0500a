import { COUNTRIES } from '../../src/catalog/countries.js';
import { JOBS } from '../../src/catalog/jobs.js';
import { median } from './math.js';
import type { PayRow } from './pay-rows.js';
import { EVIDENCE_TABLES, type EvidenceTable, type SectorShare } from './evidence-tables.js';

/**
 * Step 2: every published row of a catalogue job, put in the served concept (docs/data.md §5.1).
 *
 * Each row is converted through its table's own all-employee figure (the "total" of the same
 * survey, same statistic, same pay concept): the total is set equal to the country's full-time
 * mean pay (nama_10_fte) of its time, times the country's median/mean ratio when the total is a
 * median. The conversion is a single factor per table,
 *
 *   k = M(c, t_total) × ρ / total          (ρ = 1 for a mean, the median/mean ratio for a median)
 *
 * so the job's row keeps its level relative to everyone else in the same table, and pay
 * concepts the table shares with its total (months paid, bonuses, hours, part-time, net of tax)
 * cancel. A row is then compared with the job's served figure in the row's own statistic.
 */

export interface JobRow {
  readonly id: string;
  readonly row: PayRow;
  readonly job: string;
  /** The total the row is converted through. */
  readonly total: PayRow;
  /** ln k: ln of the factor that turns the row's units into served units. */
  readonly lnFactor: number;
  readonly statistic: 'mean' | 'median';
  readonly variance: number;
  readonly kind: 'unit' | 'broad';
  readonly table: EvidenceTable;
  /** Words for notes: table label and row. */
  readonly label: string;
}

export interface Evidence {
  readonly rows: readonly JobRow[];
  /** Rows of the sources left out, with the reason (for the documentation). */
  readonly skipped: readonly { readonly row: PayRow; readonly reason: string }[];
  /** ISO → economy median / mean ratio used to convert median totals, and where it came from. */
  readonly medianRatio: ReadonlyMap<string, { ratio: number; from: string }>;
  /** Sector table → its sector's figure over the economy's, and the rows it came from. */
  readonly sectorShares: ReadonlyMap<string, { share: number; from: string }>;
}

/** Base variance of a row as evidence of a job, by how closely the row matches it. */
export const ROW_VARIANCE = Object.freeze({
  exact: 0.05 ** 2,
  minor: 0.07 ** 2,
  subMajor: 0.14 ** 2,
  gap: 0.05 ** 2,
  sector: 0.06 ** 2,
  partTime: 0.04 ** 2,
  linkedTotal: 0.03 ** 2,
});

const isTotal = (r: PayRow) => r.jobs.includes('total');
const plain = (r: PayRow) => ['all', 'sex total'].includes(r.breakdown);

/**
 * Median/mean ratio of each country's economy, from tables that publish both for their total in
 * the same period; countries without one take the median of the others.
 */
function medianRatios(rows: readonly PayRow[]): Map<string, { ratio: number; from: string }> {
  const out = new Map<string, { ratio: number; from: string }>();
  for (const c of COUNTRIES) {
    const pairs: { ratio: number; from: string }[] = [];
    const totals = rows.filter((r) => r.country === c.code && isTotal(r) && plain(r));
    for (const m of totals.filter((r) => r.statistic === 'mean')) {
      const md = totals.find(
        (r) =>
          r.statistic === 'median' &&
          r.source === m.source &&
          r.refPeriod === m.refPeriod &&
          r.payBasis === m.payBasis &&
          r.coverage === m.coverage,
      );
      if (md) pairs.push({ ratio: md.value / m.value, from: `${m.source} ${m.refPeriod}` });
    }
    if (pairs.length > 0) {
      const ratio = Math.exp(median(pairs.map((p) => Math.log(p.ratio))));
      out.set(c.code, { ratio, from: pairs.map((p) => p.from).join('; ') });
    }
  }
  const pooled = median([...out.values()].map((v) => v.ratio));
  for (const c of COUNTRIES)
    if (!out.has(c.code))
      out.set(c.code, { ratio: pooled, from: `median of ${out.size} countries` });
  return out;
}

export function buildEvidence(
  rows: readonly PayRow[],
  lnMeanAt: (country: string, time: number) => number,
): Evidence {
  const medianRatio = medianRatios(rows);
  const sectorShares = new Map<string, { share: number; from: string }>();
  const out: JobRow[] = [];
  const skipped: { row: PayRow; reason: string }[] = [];
  const bySource = new Map<string, PayRow[]>();
  for (const r of rows) bySource.set(r.source, [...(bySource.get(r.source) ?? []), r]);
  for (const table of EVIDENCE_TABLES) {
    const own = bySource.get(table.source);
    if (!own) throw new Error(`evidence table ${table.source}: no such pay-row file`);
    for (const r of own) {
      const jobs = r.jobs.filter((j) => j !== 'total');
      if (jobs.length === 0 || isTotal(r)) continue;
      if (r.statistic !== 'mean' && r.statistic !== 'median') continue;
      if (!plain(r) && !table.breakdown?.test(r.breakdown)) continue;
      if (/context only/.test(r.conceptGap)) continue;
      if (table.skip?.(r)) {
        skipped.push({ row: r, reason: table.skipReason ?? 'left out' });
        continue;
      }
      if (r.iscoLevel === 1 || r.iscoLevel === 0) {
        skipped.push({ row: r, reason: 'a whole ISCO major group: the group level is SES 2022' });
        continue;
      }
      if (jobs.includes('physician') && jobs.includes('nurse')) {
        skipped.push({ row: r, reason: 'doctors and nurses in one row' });
        continue;
      }
      const total = findTotal(table, r, rows);
      if (!total) {
        skipped.push({ row: r, reason: 'no all-employee figure of the same concept' });
        continue;
      }
      // The total stands for the economy's mean, or for its median when it is one.
      const rho = total.statistic === 'median' ? (medianRatio.get(r.country)?.ratio ?? NaN) : 1;
      const sector = table.sectorShare && sectorShareOf(table.sectorShare, r, rows);
      if (sector) sectorShares.set(`${table.source} ${r.statistic}`, sector);
      const share = sector?.share ?? 1;
      const lnFactor =
        lnMeanAt(total.country, total.time) + Math.log(rho * share) - Math.log(total.value);
      let variance =
        r.iscoLevel >= 4
          ? ROW_VARIANCE.exact
          : r.iscoLevel === 3
            ? ROW_VARIANCE.minor
            : ROW_VARIANCE.subMajor;
      if (r.conceptGap !== '') variance += ROW_VARIANCE.gap;
      if (table.sector) variance += ROW_VARIANCE.sector;
      if (r.payBasis === 'all') variance += ROW_VARIANCE.partTime;
      if (total.source !== r.source || Math.abs(total.time - r.time) > 1 || sector)
        variance += ROW_VARIANCE.linkedTotal;
      variance += table.extraVariance ?? 0;
      const kind: 'unit' | 'broad' = r.iscoLevel >= 3 && !table.sector ? 'unit' : 'broad';
      for (const job of jobs) {
        const misfit = mismatch(r, job);
        if (misfit) {
          skipped.push({ row: r, reason: misfit });
          continue;
        }
        out.push({
          id: `${r.source}:${r.line}:${job}`,
          row: r,
          job,
          total,
          lnFactor,
          statistic: r.statistic,
          variance,
          kind,
          table,
          label: `${table.label} (${r.rowCode ? `${r.rowCode} ` : ''}${shorten(r.rowLabel)})`,
        });
      }
    }
  }
  return { rows: out, skipped, medianRatio, sectorShares };
}

/**
 * Why a row does not describe a job, if it does not: a row outside the job's ISCO major group;
 * a unit-group row of another unit group; or, for physicians, a row of one kind of doctor only
 * (specialists earn far more than generalists in most countries, and the job is all doctors).
 */
export function mismatch(r: PayRow, job: string): string | undefined {
  const def = JOBS.find((j) => j.slug === job);
  if (!def || r.isco.length === 0) return undefined;
  const group = def.iscoCode[0] ?? '';
  if (!r.isco.some((code) => code.startsWith(group)))
    return `outside the job's ISCO major group ${group}`;
  const units = r.isco.filter((code) => code.length === 4);
  if (units.length > 0 && units.length === r.isco.length) {
    const overlap = def.iscoCodes.filter((c) => units.includes(c));
    if (overlap.length === 0) return 'another ISCO unit group';
    if (PART_ROWS_LEFT_OUT.has(job) && overlap.length < def.iscoCodes.length)
      return 'one kind of doctor only';
  }
  return undefined;
}

/** Jobs whose unit groups differ so much in pay that a row of one of them is left out. */
export const PART_ROWS_LEFT_OUT = new Set(['physician']);

function shorten(label: string): string {
  return label.length > 40 ? `${label.slice(0, 39)}…` : label;
}

/** The table's all-employee figure for a row: the same file and period, or the table's link. */
function findTotal(table: EvidenceTable, r: PayRow, rows: readonly PayRow[]): PayRow | undefined {
  const sameConcept = (t: PayRow) =>
    isTotal(t) &&
    plain(t) &&
    t.statistic === r.statistic &&
    t.period === r.period &&
    t.payBasis === r.payBasis;
  const link = table.total?.(r);
  if (link) {
    const found = rows.filter(
      (t) =>
        t.source === link.source &&
        t.refPeriod === (link.refPeriod ?? r.refPeriod) &&
        t.statistic === (link.statistic ?? r.statistic) &&
        t.period === r.period &&
        isTotal(t) &&
        plain(t) &&
        (link.coverage === undefined || link.coverage.test(t.coverage)) &&
        (link.bonuses === undefined || link.bonuses.test(t.bonuses)),
    );
    // Two readings of one figure (a rounded and a precise one) are the same total.
    const values = found.map((t) => t.value);
    if (found.length > 1 && Math.max(...values) / Math.min(...values) - 1 > 0.005)
      throw new Error(`${table.source}: total link matches ${found.length} rows`);
    return found[0];
  }
  const candidates = rows.filter(
    (t) => t.source === r.source && t.refPeriod === r.refPeriod && sameConcept(t),
  );
  const sameCoverage = candidates.filter((t) => t.coverage === r.coverage);
  const pick = sameCoverage.length === 1 ? sameCoverage : candidates;
  return pick.length === 1 ? pick[0] : undefined;
}

/** A sector's figure over the economy's, in the row's statistic, from the table that has both. */
function sectorShareOf(
  link: SectorShare,
  r: PayRow,
  rows: readonly PayRow[],
): { share: number; from: string } {
  const ofTable = rows.filter(
    (t) =>
      t.source === link.source &&
      t.refPeriod === link.refPeriod &&
      t.statistic === r.statistic &&
      t.period === r.period &&
      plain(t),
  );
  const sector = ofTable.filter((t) => link.sector.test(t.rowLabel));
  const economy = ofTable.filter(isTotal);
  const [s, e] = [sector[0], economy[0]];
  if (sector.length !== 1 || economy.length !== 1 || !s || !e)
    throw new Error(
      `${link.source} ${link.refPeriod}: a sector share needs one sector row and one total`,
    );
  return {
    share: s.value / e.value,
    from: `${link.source} ${link.refPeriod}: ${s.rowLabel} ${s.value} / ${e.rowLabel} ${e.value}`,
  };
}

/** Whether a row is evidence of a job as the fit reads it (same rules as buildEvidence). */
export function describesJob(r: PayRow, job: string): boolean {
  const table = EVIDENCE_TABLES.find((t) => t.source === r.source);
  if (!table || table.skip?.(r)) return false;
  if (r.jobs.includes('physician') && r.jobs.includes('nurse')) return false;
  return mismatch(r, job) === undefined;
}
