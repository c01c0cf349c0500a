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
 *
 * The own-unit and own-broad classes are measured on few predictions, where a median moves with
 * one table more or less; `classErrors` shrinks each towards the class below it and never lets it
 * claim a larger error than that class.
 */

export type ConfidenceLabel = ReleaseRecord['confidence'];
/** Kinds of evidence, best first: each class's error is bounded by the next one's. */
export const EVIDENCE_CLASSES = ['own-unit', 'own-broad', 'pooled'] as const;
export type EvidenceClass = (typeof EVIDENCE_CLASSES)[number];
export type TimeClass = 'published' | 'series' | 'projected-1' | 'projected-2';

export const HIGH_MAX_ERROR = 0.1;
/** Rows' worth of weight the class-wide error has against a job's own leave-one-country-out. */
export const POOLED_SHRINK = 4;
export const MEDIUM_MAX_ERROR = 0.2;

/**
 * Predictions' worth of weight the class below has in a class's typical error (`classErrors`).
 *
 * Chosen from how stable a median of absolute errors is, not from the held-out set: for errors of
 * normal shape the median of n absolute errors has a standard error of about 1.17/√n of itself
 * (0.79σ/√n against a median of 0.67σ), a third at 10 predictions and a quarter at 20. Twenty
 * predictions is where a class's own median is sure enough to weigh as much as the class below.
 */
export const CLASS_PRIOR_PREDICTIONS = 20;

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
  /** Each class's typical error, shrunk towards the class below (`classErrors`). */
  readonly classError: Readonly<Record<EvidenceClass, number>>;
  /** Each class's own median absolute error, before shrinking. */
  readonly classMeasured: Readonly<Record<EvidenceClass, number>>;
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

/**
 * Each class's typical error from its measured median absolute error and number of predictions:
 * shrunk towards the class below (own-unit → own-broad → pooled) with `prior` predictions' worth
 * of weight, (n · measured + prior · below) / (n + prior), and never above the class below. The
 * pooled class, measured on every fitted row, is the floor and is kept as measured. A class
 * without predictions takes the error of the class below.
 */
export function classErrors(
  measured: Readonly<Record<EvidenceClass, number>>,
  count: Readonly<Record<EvidenceClass, number>>,
  prior: number = CLASS_PRIOR_PREDICTIONS,
): Record<EvidenceClass, number> {
  const towards = (cls: EvidenceClass, below: number) => {
    const n = count[cls];
    if (n === 0 || !Number.isFinite(measured[cls])) return below;
    return Math.min(below, (n * measured[cls] + prior * below) / (n + prior));
  };
  const pooled = measured.pooled;
  const ownBroad = towards('own-broad', pooled);
  return { 'own-unit': towards('own-unit', ownBroad), 'own-broad': ownBroad, pooled };
}

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
  const lotoOf = (cls: EvidenceClass) =>
    loto.filter((p) => lotoClass(p) === cls).map((p) => p.error);
  const classMeasured: Record<EvidenceClass, number> = {
    'own-unit': mae(lotoOf('own-unit')),
    'own-broad': mae(lotoOf('own-broad')),
    pooled: mae(loco.map((p) => p.error)),
  };
  const classCount: Record<EvidenceClass, number> = {
    'own-unit': lotoOf('own-unit').length,
    'own-broad': lotoOf('own-broad').length,
    pooled: loco.length,
  };
  const classError = classErrors(classMeasured, classCount);

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
    classMeasured,
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
