import { COUNTRIES } from '../../src/catalog/countries.js';
import type { RecordBasis } from '../../src/releases/format.js';
import { EU, eurostatCode, lookup, type Inputs } from './inputs.js';
import { cagr, clamp, geometricInterpolate, mean } from './math.js';

/**
 * Step 1: each country's mean annual full-time gross pay (EUR) for every year of the release.
 * docs/data.md §2 explains every constant here.
 */

export const SES_YEARS = Object.freeze([2014, 2018, 2022] as const);
/** Anchor year of the back-cast: the one year with both nama_10_fte (latest vintage) and SES. */
export const ANCHOR_YEAR = 2022;
/** Assumed full-time working week in the Netherlands (CAO full-time weeks run 36-40 hours). */
export const NL_FULL_TIME_HOURS = 38;
/** Projection: own growth shrunk halfway to the EU27 growth, then capped. */
export const GROWTH_SHRINK = 0.5;
export const GROWTH_MIN = 0.01;
export const GROWTH_MAX = 0.08;

export type Confidence = 'medium' | 'low';

export interface CountryYear {
  readonly mean: number;
  readonly basis: RecordBasis;
  readonly confidence: Confidence;
}

export interface GrowthModel {
  readonly from: number;
  readonly to: number;
  readonly own: number;
  readonly applied: number;
}

export interface ValidationRow {
  readonly geo: string;
  readonly firstVintage: number;
  readonly backcast: number;
  readonly diff: number;
}

export interface CountryMeans {
  /** ISO country code → year → mean. */
  readonly byCountry: ReadonlyMap<string, ReadonlyMap<number, CountryYear>>;
  /** Eurostat geo → mean pay 2022 / SES median hourly 2022 (the back-cast ratio). */
  readonly backcastRatio: ReadonlyMap<string, number>;
  readonly euGrowth: number;
  readonly growth: ReadonlyMap<string, GrowthModel>;
  readonly validation2021: readonly ValidationRow[];
  readonly nl: {
    readonly modelled: ReadonlyMap<number, number>;
    readonly hourlyCheck2022: number;
    readonly oecdCheck2022: number;
  };
}

interface Params {
  readonly firstYear: number;
  readonly lastPublishedYear: number;
  readonly currentYear: number;
}

/** Back-cast of one geo to 2014-2021 from its 2022 anchor, through the SES medians. */
function backcast(
  inputs: Inputs,
  geo: string,
  anchor: number,
): { ratio: number; values: Map<number, number> } {
  const ses = (year: number) => lookup(inputs.sesMedian, geo, year, 'SES median');
  const ratio = anchor / ses(ANCHOR_YEAR);
  const at = new Map<number, number>(
    SES_YEARS.map((y) => [y, y === ANCHOR_YEAR ? anchor : ratio * ses(y)]),
  );
  const values = new Map<number, number>();
  for (let i = 0; i + 1 < SES_YEARS.length; i++) {
    const a = SES_YEARS[i] ?? NaN;
    const b = SES_YEARS[i + 1] ?? NaN;
    for (let y = a; y < b; y++)
      values.set(y, geometricInterpolate(at.get(a) ?? NaN, at.get(b) ?? NaN, (y - a) / (b - a)));
  }
  return { ratio, values };
}

function nlModel(inputs: Inputs) {
  const rows = inputs.nl.filter(
    (r) => r.table === '81462ENG' && r.breakdown === 'Total all employed persons',
  );
  const modelled = new Map(
    rows.map((r) => [r.year, (r.yearlyInclBonuses * NL_FULL_TIME_HOURS) / r.hoursPerWeek]),
  );
  const row2022 = rows.find((r) => r.year === ANCHOR_YEAR);
  if (!row2022) throw new Error('CBS: no 2022 total row');
  // Cross-checks, not used in the figures: hourly wage × full-time paid hours, and the OECD
  // ratio NL/(BE, DE) applied to the published BE and DE means.
  const hourlyCheck2022 = row2022.hourly * NL_FULL_TIME_HOURS * (365.25 / 7);
  const published = (geo: string) =>
    inputs.nama.find((n) => n.geo === geo && n.year === ANCHOR_YEAR)?.value ?? NaN;
  const oecd = (geo: string) => lookup(inputs.oecd, geo, ANCHOR_YEAR, 'OECD');
  const oecdCheck2022 = mean(['BE', 'DE'].map((g) => published(g) / oecd(g))) * oecd('NL');
  return { modelled, hourlyCheck2022, oecdCheck2022 };
}

export function buildCountryMeans(inputs: Inputs, params: Params): CountryMeans {
  const { firstYear, lastPublishedYear, currentYear } = params;
  const latest = inputs.nama.filter((n) => !n.firstVintage);
  const published = (geo: string, year: number) =>
    latest.find((n) => n.geo === geo && n.year === year)?.value;
  const euFrom = published(EU, ANCHOR_YEAR);
  const euTo = published(EU, lastPublishedYear);
  if (euFrom === undefined || euTo === undefined)
    throw new Error('nama_10_fte: EU27 values missing');
  const euGrowth = cagr(euFrom, euTo, lastPublishedYear - ANCHOR_YEAR);
  const projectedGrowth = (own: number) =>
    clamp(GROWTH_SHRINK * own + (1 - GROWTH_SHRINK) * euGrowth, GROWTH_MIN, GROWTH_MAX);

  const nl = nlModel(inputs);
  const byCountry = new Map<string, Map<number, CountryYear>>();
  const backcastRatio = new Map<string, number>();
  const growth = new Map<string, GrowthModel>();
  for (const country of COUNTRIES) {
    const geo = eurostatCode(country.code);
    const years = new Map<number, CountryYear>();
    // Known years (published, or CBS-modelled for NL) and the last of them.
    const known = new Map<number, CountryYear>();
    if (geo === 'NL') {
      for (const [y, v] of nl.modelled)
        known.set(y, { mean: v, basis: 'interpolated', confidence: 'low' });
    } else {
      for (let y = ANCHOR_YEAR; y <= lastPublishedYear; y++) {
        const value = published(geo, y);
        if (value === undefined) throw new Error(`nama_10_fte: no ${y} value for ${geo}`);
        known.set(y, { mean: value, basis: 'published', confidence: 'medium' });
      }
    }
    const anchor = known.get(ANCHOR_YEAR)?.mean ?? NaN;
    const back = backcast(inputs, geo, anchor);
    backcastRatio.set(geo, back.ratio);
    for (const [y, v] of back.values) {
      if (y >= firstYear && !known.has(y))
        years.set(y, { mean: v, basis: 'interpolated', confidence: 'low' });
    }
    for (const [y, v] of known) years.set(y, v);
    const lastKnown = Math.max(...known.keys());
    const ownFrom = lastKnown - 2;
    const own = cagr(known.get(ownFrom)?.mean ?? NaN, known.get(lastKnown)?.mean ?? NaN, 2);
    const applied = projectedGrowth(own);
    growth.set(country.code, { from: ownFrom, to: lastKnown, own, applied });
    for (let y = lastKnown + 1; y <= currentYear; y++) {
      years.set(y, {
        mean: (years.get(y - 1)?.mean ?? NaN) * (1 + applied),
        basis: 'projected',
        confidence: 'low',
      });
    }
    for (let y = firstYear; y <= currentYear; y++) {
      if (!Number.isFinite(years.get(y)?.mean))
        throw new Error(`country mean missing for ${country.code} ${y}`);
    }
    byCountry.set(country.code, years);
  }

  const validation2021 = inputs.nama
    .filter((n) => n.firstVintage)
    .map((n) => {
      const est =
        n.geo === EU
          ? backcast(inputs, EU, euFrom).values.get(n.year)
          : byCountry.get(isoOf(n.geo))?.get(n.year)?.mean;
      if (est === undefined) throw new Error(`no back-cast for ${n.geo} ${n.year}`);
      return { geo: n.geo, firstVintage: n.value, backcast: est, diff: est / n.value - 1 };
    });
  backcastRatio.set(EU, backcast(inputs, EU, euFrom).ratio);
  return { byCountry, backcastRatio, euGrowth, growth, validation2021, nl };
}

function isoOf(geo: string): string {
  const country = COUNTRIES.find((c) => c.eurostatCode === geo);
  if (!country) throw new Error(`unknown geo ${geo}`);
  return country.code;
}
