import { COUNTRIES } from '../../src/catalog/countries.js';
import type { RecordBasis } from '../../src/releases/format.js';
import { num, readCsv, text, type CsvRow } from './csv.js';
import { clamp, median } from './math.js';

/**
 * Step 1: each country's mean annual full-time gross pay for every year of the release, in the
 * model's currency (docs/data.md §4).
 *
 * Levels: Eurostat nama_10_fte for 2022–2024 (the Netherlands: CBS pay per job converted to a
 * 38-hour week, 2019–2023). Years are joined by growth rates, in this order of preference:
 *
 *   1. the national statistical office's own annual average earnings series, where it publishes
 *      both years (statutory breaks such as Lithuania's 2019 gross-up are in it as steps);
 *   2. the same series across a gap of a few years, spread evenly (geometric);
 *   3. the Eurostat SES median hourly earnings of 2014, 2018 and 2022, in national currency at
 *      the survey year's rate, spread evenly between surveys.
 *
 * After the last published year, growth is projected: the country's own growth of its last
 * published year, shrunk halfway towards the median of all countries' growth that year, within
 * 1 % and 8 % a year.
 */

export const NAMA_FILE = 'eurostat_nama_10_fte_avg_fulltime_salary_eur_2021_2024';
export const SES_MEDIAN_FILE = 'eurostat_ses_median_hourly_earnings_eur_2014_2018_2022';
export const NL_FILE = 'nl_cbs_wages_per_job_2019_2023_eur';
export const SES_YEARS = [2014, 2018, 2022] as const;
export const NL_FULL_TIME_HOURS = 38;
export const GROWTH_SHRINK = 0.5;
export const GROWTH_MIN = 0.01;
export const GROWTH_MAX = 0.08;

/** One national annual series: the file and the rows of it that form one consistent series. */
export interface NationalSeries {
  readonly file: string;
  /** Rows kept: one per year, all of the same concept. */
  readonly keep: (row: CsvRow) => boolean;
  readonly label: string;
}

export type GrowthSource = 'published' | 'national' | 'national-gap' | 'ses' | 'projected';

export interface CountryYear {
  /** Mean annual full-time gross pay, model currency. */
  readonly mean: number;
  readonly basis: RecordBasis;
  /** How this year was reached from its neighbour (or `published` for a level). */
  readonly source: GrowthSource;
}

export interface CountrySeries {
  readonly byCountry: ReadonlyMap<string, ReadonlyMap<number, CountryYear>>;
  /** ISO → the national series used (label and years), for the documentation. */
  readonly national: ReadonlyMap<string, { label: string; years: readonly number[] }>;
  /** ISO → projected growth a year and the own growth it came from. */
  readonly projection: ReadonlyMap<string, { own: number; applied: number; from: number }>;
  readonly lastPublishedYear: ReadonlyMap<string, number>;
  /** ln of the mean at decimal time t (annual means sit at mid-year; log-linear between). */
  readonly lnMeanAt: (country: string, time: number) => number;
}

interface Params {
  readonly firstYear: number;
  readonly currentYear: number;
  /** Units of the model currency per EUR in a year (1 for the euro). */
  readonly perEur: (country: string, year: number) => number;
  readonly national: Readonly<Record<string, NationalSeries>>;
}

function nationalValues(dir: string, spec: NationalSeries, iso: string): Map<number, number> {
  const out = new Map<number, number>();
  for (const row of readCsv(dir, `${spec.file}.csv`)) {
    if (text(row, 'country') !== iso || !/^\d{4}$/.test(text(row, 'year')) || !spec.keep(row))
      continue;
    const year = Number(text(row, 'year'));
    if (out.has(year)) throw new Error(`${spec.file}: two rows kept for ${iso} ${year}`);
    out.set(year, num(row, 'value'));
  }
  return out;
}

export function buildCountrySeries(dir: string, p: Params): CountrySeries {
  const nama = readCsv(dir, `${NAMA_FILE}.csv`).filter(
    (r) => !text(r, 'dataset_vintage').includes('first release'),
  );
  const ses = readCsv(dir, `${SES_MEDIAN_FILE}.csv`);
  const nl = readCsv(dir, `${NL_FILE}.csv`).filter(
    (r) => text(r, 'table') === '81462ENG' && text(r, 'breakdown') === 'Total all employed persons',
  );
  const years: number[] = [];
  for (let y = p.firstYear; y <= p.currentYear; y++) years.push(y);

  // Levels and growth rates per country before projection.
  const levels = new Map<string, Map<number, number>>();
  const growth = new Map<string, Map<number, { g: number; source: GrowthSource }>>();
  const national = new Map<string, { label: string; years: number[] }>();
  for (const c of COUNTRIES) {
    const lv = new Map<number, number>();
    if (c.code === 'NL') {
      for (const r of nl)
        lv.set(
          num(r, 'year'),
          (num(r, 'yearly_wage_incl_bonuses_eur') * NL_FULL_TIME_HOURS) /
            num(r, 'hours_per_job_per_week_incl_overtime'),
        );
    } else {
      for (const r of nama.filter((x) => text(x, 'country') === c.eurostatCode))
        lv.set(num(r, 'year'), num(r, 'value') * p.perEur(c.code, num(r, 'year')));
    }
    levels.set(c.code, lv);

    const g = new Map<number, { g: number; source: GrowthSource }>();
    const spec = p.national[c.code];
    const nat = spec ? nationalValues(dir, spec, c.code) : new Map<number, number>();
    if (spec) national.set(c.code, { label: spec.label, years: [...nat.keys()].sort() });
    const natYears = [...nat.keys()].sort((a, b) => a - b);
    for (let i = 0; i + 1 < natYears.length; i++) {
      const a = natYears[i] ?? NaN;
      const b = natYears[i + 1] ?? NaN;
      const step = Math.log((nat.get(b) ?? NaN) / (nat.get(a) ?? NaN)) / (b - a);
      for (let y = a + 1; y <= b; y++)
        g.set(y, { g: step, source: b - a === 1 ? 'national' : 'national-gap' });
    }
    // SES medians in national currency at the survey year's rate, spread between surveys.
    const sesAt = (y: number) => {
      const row = ses.find((r) => text(r, 'country') === c.eurostatCode && num(r, 'year') === y);
      if (!row) throw new Error(`SES median missing for ${c.code} ${y}`);
      return num(row, 'median_gross_hourly_earnings') * p.perEur(c.code, y);
    };
    for (let i = 0; i + 1 < SES_YEARS.length; i++) {
      const a = SES_YEARS[i] ?? NaN;
      const b = SES_YEARS[i + 1] ?? NaN;
      const step = Math.log(sesAt(b) / sesAt(a)) / (b - a);
      for (let y = a + 1; y <= b; y++) if (!g.has(y)) g.set(y, { g: step, source: 'ses' });
    }
    growth.set(c.code, g);
  }

  // Projection: own growth of the last published year, shrunk towards the median country.
  const lastPublishedYear = new Map<string, number>();
  const ownGrowth = new Map<string, { own: number; from: number }>();
  for (const c of COUNTRIES) {
    const lv = levels.get(c.code) ?? new Map<number, number>();
    const g = growth.get(c.code) ?? new Map<number, { g: number; source: GrowthSource }>();
    let last = Math.max(...lv.keys());
    while (g.get(last + 1)?.source === 'national') last++;
    lastPublishedYear.set(c.code, last);
    const lastLevel = Math.max(...lv.keys());
    const own = lv.has(lastLevel - 1)
      ? Math.log((lv.get(lastLevel) ?? NaN) / (lv.get(lastLevel - 1) ?? NaN))
      : (g.get(lastLevel)?.g ?? NaN);
    ownGrowth.set(c.code, {
      own: last > lastLevel ? (g.get(last)?.g ?? own) : own,
      from: last,
    });
  }
  const typical = median([...ownGrowth.values()].map((o) => o.own));
  const projection = new Map<string, { own: number; applied: number; from: number }>();
  for (const [iso, o] of ownGrowth) {
    const applied = clamp(
      GROWTH_SHRINK * Math.expm1(o.own) + (1 - GROWTH_SHRINK) * Math.expm1(typical),
      GROWTH_MIN,
      GROWTH_MAX,
    );
    projection.set(iso, { own: Math.expm1(o.own), applied, from: o.from });
  }

  const byCountry = new Map<string, Map<number, CountryYear>>();
  for (const c of COUNTRIES) {
    const lv = levels.get(c.code) ?? new Map<number, number>();
    const g = growth.get(c.code) ?? new Map<number, { g: number; source: GrowthSource }>();
    const proj = projection.get(c.code);
    const out = new Map<number, CountryYear>();
    const basisOf = (y: number): RecordBasis =>
      c.code !== 'NL' && lv.has(y) ? 'published' : 'interpolated';
    for (const [y, v] of lv) out.set(y, { mean: v, basis: basisOf(y), source: 'published' });
    const first = Math.min(...lv.keys());
    const lastLevel = Math.max(...lv.keys());
    for (let y = first - 1; y >= p.firstYear; y--) {
      const step = g.get(y + 1);
      if (!step) throw new Error(`no growth ${c.code} ${y}→${y + 1}`);
      out.set(y, {
        mean: (out.get(y + 1)?.mean ?? NaN) * Math.exp(-step.g),
        basis: 'interpolated',
        source: step.source,
      });
    }
    for (let y = lastLevel + 1; y <= p.currentYear; y++) {
      const step = g.get(y);
      const prev = out.get(y - 1)?.mean ?? NaN;
      if (step?.source === 'national' && y <= (lastPublishedYear.get(c.code) ?? 0))
        out.set(y, { mean: prev * Math.exp(step.g), basis: 'interpolated', source: 'national' });
      else
        out.set(y, {
          mean: prev * (1 + (proj?.applied ?? NaN)),
          basis: 'projected',
          source: 'projected',
        });
    }
    for (const y of years)
      if (!Number.isFinite(out.get(y)?.mean)) throw new Error(`country mean ${c.code} ${y}`);
    byCountry.set(c.code, out);
  }

  const lnMeanAt = (country: string, time: number) => {
    const series = byCountry.get(country);
    if (!series) throw new Error(`no series for ${country}`);
    const lo = Math.floor(time - 0.5);
    const a = Math.min(Math.max(lo, p.firstYear), p.currentYear - 1);
    const va = series.get(a)?.mean ?? NaN;
    const vb = series.get(a + 1)?.mean ?? NaN;
    const t = time - 0.5 - a;
    return Math.log(va) + t * Math.log(vb / va);
  };
  return { byCountry, national, projection, lastPublishedYear, lnMeanAt };
}
