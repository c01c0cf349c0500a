import { COUNTRIES } from '../../src/catalog/countries.js';
import { num, readCsv, text, type CsvRow } from './csv.js';
import { checkSourceFiles } from './source-files.js';

/** Eurostat's EU aggregate, named as in the source files. */
export const EU = 'EU27_2020';

export interface NamaValue {
  readonly geo: string;
  readonly year: number;
  readonly value: number;
  /** The 2021 values are the first (December 2022, pre-revision, rounded) vintage. */
  readonly firstVintage: boolean;
}

export interface BgOccupationRow {
  readonly year: number;
  /** ISCO-08 major group 1-9, or 0 for the all-occupations total. */
  readonly group: number;
  readonly employees: number;
  readonly meanMonthly: number;
  readonly medianMonthly: number;
  readonly meanMonthlyFte: number;
}

export interface BgActivityRow {
  readonly section: string;
  readonly meanHourly: number;
  readonly medianHourly: number;
}

export interface NlRow {
  readonly table: string;
  readonly breakdown: string;
  readonly year: number;
  readonly provisional: boolean;
  readonly hourly: number;
  readonly yearlyInclBonuses: number;
  readonly hoursPerWeek: number;
}

export interface PlRow {
  readonly month: string;
  readonly mean: number;
  /** Published median, or undefined where GUS only states "x % above the median". */
  readonly median: number | undefined;
  readonly meanAboveMedianPct: number | undefined;
}

export interface FxRate {
  readonly rate: number;
  readonly partial: boolean;
  readonly note: string;
}

/** Everything the model reads, typed and keyed; geo codes stay as Eurostat writes them (EL). */
export interface Inputs {
  readonly nama: readonly NamaValue[];
  /** geo → year → median gross hourly earnings, EUR. */
  readonly sesMedian: ReadonlyMap<string, ReadonlyMap<number, number>>;
  /** geo → ISCO major group → SES 2018 mean gross hourly earnings, EUR. */
  readonly sesOccupation: ReadonlyMap<string, ReadonlyMap<number, number>>;
  readonly bgOccupation: readonly BgOccupationRow[];
  readonly bgActivity: readonly BgActivityRow[];
  readonly nl: readonly NlRow[];
  readonly pl: readonly PlRow[];
  readonly context: readonly CsvRow[];
  /** year → currency → ECB annual average units per EUR. */
  readonly fx: ReadonlyMap<number, ReadonlyMap<string, FxRate>>;
  /** geo → year → OECD average annual wage, USD PPP constant 2022 prices. */
  readonly oecd: ReadonlyMap<string, ReadonlyMap<number, number>>;
}

const csv = (dir: string, id: string): CsvRow[] => readCsv(dir, `${id}.csv`);

function nested<K1, K2, V>(
  rows: readonly CsvRow[],
  outer: (r: CsvRow) => K1,
  inner: (r: CsvRow) => K2,
  value: (r: CsvRow) => V,
): Map<K1, Map<K2, V>> {
  const map = new Map<K1, Map<K2, V>>();
  for (const row of rows) {
    const key = outer(row);
    const sub = map.get(key) ?? new Map<K2, V>();
    const innerKey = inner(row);
    if (sub.has(innerKey)) throw new Error(`duplicate row ${String(key)}/${String(innerKey)}`);
    sub.set(innerKey, value(row));
    map.set(key, sub);
  }
  return map;
}

/** "OC5 Service and sales workers" → 5; "Total" → 0. */
function majorGroup(label: string): number {
  if (label === 'Total') return 0;
  const match = /^OC([1-9]) /.exec(label);
  if (!match?.[1]) throw new Error(`unexpected ISCO group label "${label}"`);
  return Number(match[1]);
}

export function loadInputs(dir: string): Inputs {
  checkSourceFiles(dir);
  const nama = csv(dir, 'eurostat_nama_10_fte_avg_fulltime_salary_eur_2021_2024').map((r) => {
    if (text(r, 'unit') !== 'EUR') throw new Error('nama_10_fte: unit is not EUR');
    return {
      geo: text(r, 'country'),
      year: num(r, 'year'),
      value: num(r, 'value'),
      firstVintage: text(r, 'dataset_vintage').includes('first release'),
    };
  });
  const sesMedian = nested(
    csv(dir, 'eurostat_ses_median_hourly_earnings_eur_2014_2018_2022'),
    (r) => text(r, 'country'),
    (r) => num(r, 'year'),
    (r) => num(r, 'median_gross_hourly_earnings'),
  );
  const sesOccupation = nested(
    csv(dir, 'eurostat_ses_occupation_hourly_2018_partial'),
    (r) => text(r, 'geo'),
    (r) => majorGroup(text(r, 'isco08_major_group')),
    (r) => num(r, 'mean_gross_hourly_earnings_eur'),
  );
  const bgOccupation = csv(dir, 'bg_nsi_ses_2018_2022_by_occupation_bgn').map((r) => ({
    year: num(r, 'year'),
    group: majorGroup(text(r, 'isco08_major_group')),
    employees: num(r, 'employees'),
    meanMonthly: num(r, 'gross_monthly_earnings_bgn'),
    medianMonthly: num(r, 'median_gross_monthly_earnings_bgn'),
    meanMonthlyFte: num(r, 'gross_monthly_earnings_fte_bgn'),
  }));
  const bgActivity = csv(dir, 'bg_nsi_ses_2022_hourly_by_activity_bgn').map((r) => ({
    section: text(r, 'nace_rev2'),
    meanHourly: num(r, 'gross_hourly_earnings_bgn'),
    medianHourly: num(r, 'median_gross_hourly_bgn'),
  }));
  const nl = csv(dir, 'nl_cbs_wages_per_job_2019_2023_eur').map((r) => {
    const year = text(r, 'year');
    return {
      table: text(r, 'table'),
      breakdown: text(r, 'breakdown'),
      year: Number(year.replace('*', '')),
      provisional: year.endsWith('*'),
      hourly: num(r, 'hourly_wage_eur'),
      yearlyInclBonuses: num(r, 'yearly_wage_incl_bonuses_eur'),
      hoursPerWeek: num(r, 'hours_per_job_per_week_incl_overtime'),
    };
  });
  const pl = csv(dir, 'pl_gus_ses_avg_monthly_gross_pln').map((r) => {
    const pct = /([0-9.]+)% higher than median/.exec(text(r, 'avg_vs_median_note'))?.[1];
    return {
      month: text(r, 'reference_month'),
      mean: num(r, 'avg_monthly_gross_pln'),
      median:
        text(r, 'median_monthly_gross_pln') === '' ? undefined : num(r, 'median_monthly_gross_pln'),
      meanAboveMedianPct: pct === undefined ? undefined : Number(pct),
    };
  });
  const fx = nested(
    csv(dir, 'ecb_eur_fx_annual_avg_2014_2025_derived'),
    (r) => num(r, 'year'),
    (r) => text(r, 'currency'),
    (r) => ({
      rate: num(r, 'avg_units_per_eur'),
      partial: text(r, 'note').startsWith('partial'),
      note: text(r, 'note'),
    }),
  );
  const oecd = nested(
    csv(dir, 'oecd_av_an_wage_2020_2022_usd_ppp_const2022'),
    (r) => text(r, 'country'),
    (r) => num(r, 'year'),
    (r) => num(r, 'value'),
  );
  return {
    nama,
    sesMedian,
    sesOccupation,
    bgOccupation,
    bgActivity,
    nl,
    pl,
    context: csv(dir, 'eurostat_context_figures'),
    fx,
    oecd,
  };
}

/** Eurostat geo code of a catalogue country (EL for GR). */
export function eurostatCode(iso: string): string {
  const country = COUNTRIES.find((c) => c.code === iso);
  if (!country) throw new Error(`unknown country ${iso}`);
  return country.eurostatCode;
}

/** A value from a nested map, or an error naming what is missing. */
export function lookup<K1, K2, V>(
  map: ReadonlyMap<K1, ReadonlyMap<K2, V>>,
  a: K1,
  b: K2,
  what: string,
): V {
  const value = map.get(a)?.get(b);
  if (value === undefined) throw new Error(`${what}: no value for ${String(a)} ${String(b)}`);
  return value;
}
