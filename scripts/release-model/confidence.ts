import { COUNTRIES } from '../../src/catalog/countries.js';
import { JOBS, iscoMajorGroup } from '../../src/catalog/jobs.js';
import type { ReleaseRecord } from '../../src/releases/format.js';
import { GROWTH_MAX, GROWTH_MIN, GROWTH_SHRINK, NAMA_FILE } from './country-series.js';
import { num, readCsv, text } from './csv.js';
import { eurPerModelUnit } from './currency.js';
import type { JobRow } from './evidence.js';
import type { JobLevels } from './job-levels.js';
import { clamp, median, pow } from './math.js';
import type { Model } from './model.js';

/**
 * `confidence` of a record, calibrated on errors measured out of sample (docs/data.md §9).
 *
 * A cell's evidence falls in one of three classes: its own unit-level rows (an occupation table
 * at 3 or 4 digits of its country), its own broader rows only (2-digit groups, one sector), or
 * none (the pooled model within its country's occupation group). Each class's typical error is
 * measured where the fit can be made without the figure it predicts:
 *
 *   own unit / own broad   leave one table out: a cell with rows from two or more tables is
 *                          predicted without each table in turn;
 *   none                   leave one country out: every row of a country is predicted from the
 *                          other countries' tables.
 *
 * A year adds the error of its country mean: 0 for a published nama_10_fte year; for a year
 * placed by a national or SES series, the error of the 2021 series against Eurostat's first 2021
 * figures; for a projected year, the error of the projection rule replayed on past years at the
 * same distance. The two add in quadrature; high means at most 10 % typical error, medium at
 * most 20 %, low more. The held-out set, which none of this sees, then shows whether each label
 * keeps its promise.
 */

export type ConfidenceLabel = ReleaseRecord['confidence'];
export type EvidenceClass = 'own-unit' | 'own-broad' | 'pooled';
export type TimeClass = 'published' | 'series' | 'projected-1' | 'projected-2';

export const HIGH_MAX_ERROR = 0.1;
/** Rows' worth of weight the class-wide error has against a job's own leave-one-country-out. */
export const POOLED_SHRINK = 4;
export const MEDIUM_MAX_ERROR = 0.2;

export interface Prediction {
  readonly row: JobRow;
  /** served / published − 1 in the row's statistic and units. */
  readonly error: number;
}

export interface Confidence {
  readonly of: (
    country: string,
    job: string,
    year: number,
  ) => { confidence: ConfidenceLabel; confidence_note: string };
  readonly classOf: (country: string, job: string) => EvidenceClass;
  readonly timeOf: (country: string, year: number) => TimeClass;
  readonly classError: Readonly<Record<EvidenceClass, number>>;
  readonly classCount: Readonly<Record<EvidenceClass, number>>;
  readonly timeError: Readonly<Record<TimeClass, number>>;
  readonly loco: readonly Prediction[];
  readonly loto: readonly Prediction[];
  readonly backtest: readonly { country: string; year: number; horizon: number; error: number }[];
  readonly labelOf: (cls: EvidenceClass, time: TimeClass, job?: string) => ConfidenceLabel;
  readonly combined: (cls: EvidenceClass, time: TimeClass, job?: string) => number;
  /** A pooled cell's typical error by job. */
  readonly pooledJob: ReadonlyMap<string, number>;
}

/** Error of a row under a set of levels: the model's figure in the row's statistic over the row. */
export function rowError(model: Model, levels: JobLevels, r: JobRow): number {
  const o = model.observation(r);
  const predicted =
    model.series.lnMeanAt(o.country, o.time) +
    levels.lnRatio(o.country, o.job, o.time) +
    model.lnStatisticRatio(o.country, o.job, o.statistic);
  return Math.exp(predicted - o.lnValue) - 1;
}

const mae = (xs: readonly number[]) => (xs.length === 0 ? NaN : median(xs.map(Math.abs)));

export function buildConfidence(model: Model, dir: string): Confidence {
  const fit = model.fitRows;
  const cellKey = (c: string, j: string) => `${c}|${j}`;
  const own = new Map<string, JobRow[]>();
  for (const r of fit)
    own.set(cellKey(r.row.country, r.job), [...(own.get(cellKey(r.row.country, r.job)) ?? []), r]);
  const classOfRows = (rows: readonly JobRow[] | undefined): EvidenceClass =>
    !rows || rows.length === 0
      ? 'pooled'
      : rows.some((r) => r.kind === 'unit')
        ? 'own-unit'
        : 'own-broad';
  const classOf = (c: string, j: string) => classOfRows(own.get(cellKey(c, j)));

  // Leave one country out.
  const loco: Prediction[] = [];
  for (const c of COUNTRIES) {
    const mine = fit.filter((r) => r.row.country === c.code);
    if (mine.length === 0) continue;
    const levels = model.refit(fit.filter((r) => r.row.country !== c.code));
    for (const r of mine) loco.push({ row: r, error: rowError(model, levels, r) });
  }
  // Leave one table out, within cells that have two or more tables.
  const loto: Prediction[] = [];
  for (const rows of own.values()) {
    const sources = [...new Set(rows.map((r) => r.row.source))];
    if (sources.length < 2) continue;
    for (const s of sources) {
      const out = rows.filter((r) => r.row.source === s);
      const ids = new Set(out.map((r) => r.id));
      const levels = model.refit(fit.filter((r) => !ids.has(r.id)));
      for (const r of out) loto.push({ row: r, error: rowError(model, levels, r) });
    }
  }
  const lotoClass = (p: Prediction) => {
    const rest = (own.get(cellKey(p.row.row.country, p.row.job)) ?? []).filter(
      (r) => r.row.source !== p.row.row.source,
    );
    return classOfRows(rest);
  };
  const classError: Record<EvidenceClass, number> = {
    'own-unit': mae(loto.filter((p) => lotoClass(p) === 'own-unit').map((p) => p.error)),
    'own-broad': mae(loto.filter((p) => lotoClass(p) === 'own-broad').map((p) => p.error)),
    pooled: mae(loco.map((p) => p.error)),
  };
  // A class without its own measurement is no better than the class below it.
  if (!Number.isFinite(classError['own-broad'])) classError['own-broad'] = classError.pooled;
  if (!Number.isFinite(classError['own-unit'])) classError['own-unit'] = classError['own-broad'];
  const classCount: Record<EvidenceClass, number> = {
    'own-unit': loto.filter((p) => lotoClass(p) === 'own-unit').length,
    'own-broad': loto.filter((p) => lotoClass(p) === 'own-broad').length,
    pooled: loco.length,
  };

  const backtest = projectionBacktest(model);
  const seriesError = seriesCheck(model, dir);
  const timeError: Record<TimeClass, number> = {
    published: 0,
    series: seriesError,
    'projected-1': mae(backtest.filter((b) => b.horizon === 1).map((b) => b.error)),
    'projected-2': mae(backtest.filter((b) => b.horizon === 2).map((b) => b.error)),
  };
  const timeOf = (c: string, y: number): TimeClass => {
    const cy = model.series.byCountry.get(c)?.get(y);
    if (!cy) throw new Error(`confidence: no country mean ${c} ${y}`);
    if (cy.basis === 'published') return 'published';
    if (cy.basis === 'projected') {
      const last = model.series.lastPublishedYear.get(c) ?? y;
      return y - last <= 1 ? 'projected-1' : 'projected-2';
    }
    return 'series';
  };
  // A pooled cell's error depends on how much its job's pay varies between countries: each job's
  // own leave-one-country-out error, shrunk towards the class's by its number of rows.
  const pooledJob = new Map<string, number>();
  for (const j of JOBS) {
    const errs = loco.filter((p) => p.row.job === j.slug).map((p) => p.error);
    const n = errs.length;
    pooledJob.set(
      j.slug,
      n === 0
        ? classError.pooled
        : (n * mae(errs) + POOLED_SHRINK * classError.pooled) / (n + POOLED_SHRINK),
    );
  }
  const cellError = (cls: EvidenceClass, job?: string) =>
    cls === 'pooled' && job !== undefined
      ? (pooledJob.get(job) ?? classError.pooled)
      : classError[cls];
  const combined = (cls: EvidenceClass, time: TimeClass, job?: string) =>
    Math.sqrt(cellError(cls, job) ** 2 + timeError[time] ** 2);
  const labelOf = (cls: EvidenceClass, time: TimeClass, job?: string): ConfidenceLabel => {
    const e = combined(cls, time, job);
    return e <= HIGH_MAX_ERROR ? 'high' : e <= MEDIUM_MAX_ERROR ? 'medium' : 'low';
  };

  const of = (c: string, j: string, y: number) => {
    const cls = classOf(c, j);
    const time = timeOf(c, y);
    return {
      confidence: labelOf(cls, time, j),
      confidence_note: note(
        model,
        own.get(cellKey(c, j)) ?? [],
        c,
        j,
        y,
        time,
        combined(cls, time, j),
      ),
    };
  };
  return {
    of,
    classOf,
    timeOf,
    classError,
    classCount,
    timeError,
    loco,
    loto,
    backtest,
    labelOf,
    combined,
    pooledJob,
  };
}

function note(
  model: Model,
  rows: readonly JobRow[],
  country: string,
  job: string,
  year: number,
  time: TimeClass,
  error: number,
): string {
  let evidence: string;
  if (rows.length > 0) {
    const best = [...rows].sort((a, b) => a.variance - b.variance)[0];
    const gap = best?.row.conceptGap.split(';')[0]?.trim() ?? '';
    evidence = `own table ${best?.label ?? ''}${gap ? `, ${gap}` : ''}`;
  } else {
    const g = iscoMajorGroup(JOBS.find((x) => x.slug === job) ?? JOBS[0]!);
    const borrowed = model.groups.borrowed.get(country)?.includes(g) ? ' (EU27 group)' : '';
    const pooled = model.levels.pooled.get(job)?.countries ?? 0;
    evidence = `no own table: SES 2022 group ${g}${borrowed}, job placed from ${pooled} countries' tables`;
  }
  const when =
    time === 'published'
      ? `mean published ${year}`
      : time === 'series'
        ? `mean of ${year} from ${model.series.national.has(country) ? 'national series' : 'SES surveys'}`
        : projectedFrom(model, country, year);
  const tail = `; ${when}; typical error ${Math.round(error * 100)} %`;
  const room = 200 - tail.length;
  return `${evidence.length <= room ? evidence : `${evidence.slice(0, room - 1)}…`}${tail}`;
}

/**
 * Why a projected year is less sure than a published one: the last year the country's mean is
 * published, the series that publishes it, and the growth a year the projection applies after it.
 */
export function projectedFrom(model: Model, country: string, year: number): string {
  const from = model.series.lastPublishedYear.get(country);
  const applied = model.series.projection.get(country)?.applied;
  if (from === undefined || applied === undefined) return `mean projected to ${year}`;
  const published = model.series.byCountry.get(country)?.get(from)?.source === 'published';
  const series = published
    ? country === 'NL'
      ? 'CBS'
      : 'Eurostat nama_10_fte'
    : (model.series.national.get(country)?.label.split(',')[0] ?? 'national series');
  const pct = (applied * 100).toFixed(1);
  return `mean projected to ${year} from ${from} (${series}) at +${pct} % a year`;
}

/**
 * The projection rule replayed on the past: every year with a published growth rate is predicted
 * one and two years ahead from the years before it.
 */
export function projectionBacktest(
  model: Model,
): { country: string; year: number; horizon: number; error: number }[] {
  const out: { country: string; year: number; horizon: number; error: number }[] = [];
  const known = (c: string, y: number) => {
    const v = model.series.byCountry.get(c)?.get(y);
    return v && v.source !== 'ses' && v.source !== 'projected' && v.source !== 'national-gap'
      ? v.mean
      : undefined;
  };
  for (let base = 2016; base <= 2023; base++) {
    const own = new Map<string, number>();
    for (const c of COUNTRIES) {
      const a = known(c.code, base - 1);
      const b = known(c.code, base);
      if (a && b) own.set(c.code, Math.log(b / a));
    }
    if (own.size < 5) continue;
    const typical = median([...own.values()]);
    for (const [c, g] of own) {
      const applied = clamp(
        GROWTH_SHRINK * Math.expm1(g) + (1 - GROWTH_SHRINK) * Math.expm1(typical),
        GROWTH_MIN,
        GROWTH_MAX,
      );
      for (const h of [1, 2]) {
        const actual = known(c, base + h);
        const from = known(c, base);
        if (!actual || !from) continue;
        out.push({
          country: c,
          year: base + h,
          horizon: h,
          error: (from * pow(1 + applied, h)) / actual - 1,
        });
      }
    }
  }
  return out;
}

/** Error of the 2021 country means against Eurostat's first published 2021 figures. */
function seriesCheck(model: Model, dir: string): number {
  const first = readCsv(dir, `${NAMA_FILE}.csv`).filter((r) =>
    text(r, 'dataset_vintage').includes('first release'),
  );
  const errors: number[] = [];
  for (const r of first) {
    const c = COUNTRIES.find((x) => x.eurostatCode === text(r, 'country'));
    if (!c) continue;
    const m = model.series.byCountry.get(c.code)?.get(num(r, 'year'));
    if (!m) continue;
    const eur = m.mean * eurPerModelUnit(c.code, num(r, 'year'), model.fxRate, model.fixedRates);
    errors.push(eur / num(r, 'value') - 1);
  }
  return mae(errors);
}
