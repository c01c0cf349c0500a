import { COUNTRIES } from '../../src/catalog/countries.js';
import { JOBS, iscoMajorGroup } from '../../src/catalog/jobs.js';
import { num, readCsv, text } from './csv.js';

/**
 * Occupation groups (docs/data.md §5.2): each country's level of every ISCO major group, from
 * Eurostat SES 2022 (mean annual earnings by major group, the same survey in all 27 countries),
 * over the country's nama_10_fte mean of 2022; and the employment weight of each catalogue job,
 * per country from its employees by major group.
 */

export const SES22_FILE = 'eurostat_ses2022_isco1_mean_annual_eur';
export const BG_FILE = 'bg_nsi_ses_2018_2022_by_occupation_bgn';
export const GROUPS = Object.freeze([1, 2, 3, 4, 5, 6, 7, 8, 9] as const);

export interface GroupLevels {
  /** ISO → major group → ln(group mean / country mean) in 2022. */
  readonly ln: ReadonlyMap<string, ReadonlyMap<number, number>>;
  /** ISO → groups borrowed from the EU27 row (the country's SES row is not published). */
  readonly borrowed: ReadonlyMap<string, readonly number[]>;
}

export function loadGroupLevels(
  dir: string,
  namaEur2022: (country: string) => number,
  eu2022: number,
): GroupLevels {
  const ses = readCsv(dir, `${SES22_FILE}.csv`);
  const value = (geo: string, g: number) => {
    const row = ses.find((r) => text(r, 'geo') === geo && text(r, 'isco08') === `OC${g}`);
    return row ? num(row, 'mean_annual_earnings_eur') : undefined;
  };
  const ln = new Map<string, Map<number, number>>();
  const borrowed = new Map<string, number[]>();
  for (const c of COUNTRIES) {
    const m = new Map<number, number>();
    const missing: number[] = [];
    for (const g of GROUPS) {
      const own = value(c.eurostatCode, g);
      if (own !== undefined) m.set(g, Math.log(own / namaEur2022(c.code)));
      else {
        const eu = value('EU27', g);
        if (eu === undefined) throw new Error(`SES 2022: no group ${g} for ${c.code} nor EU27`);
        m.set(g, Math.log(eu / eu2022));
        missing.push(g);
      }
    }
    ln.set(c.code, m);
    borrowed.set(c.code, missing);
  }
  return { ln, borrowed };
}

/**
 * The release's one set of job weights (header `job_weights`): the share of each job's ISCO major
 * group among Bulgaria's employees (NSI SES October 2022, an enterprise survey's complete count
 * by group), split equally among the catalogue jobs of the group; six decimals, summing to 1.
 * Countries weigh their own grid with `countryJobWeights`.
 */
export function jobWeights(dir: string): Record<string, number> {
  const rows = readCsv(dir, `${BG_FILE}.csv`).filter(
    (r) => text(r, 'year') === '2022' && /^OC[1-9] /.test(text(r, 'isco08_major_group')),
  );
  return weightsFromCounts(
    new Map(
      rows.map((r) => [Number(text(r, 'isco08_major_group').slice(2, 3)), num(r, 'employees')]),
    ),
  );
}

export const ILO_EMPLOYEES_FILE = 'ilo_ees_tees_sex_ocu_nb_isco08_2022';
/** The year of the employee counts by major group (the SES 2022 reference year). */
export const EMPLOYEES_YEAR = '2022';

/**
 * Each country's employees by ISCO major group (1–9): ILOSTAT's employees by occupation
 * (EES_TEES_SEX_OCU_NB, both sexes, 2022, from the national labour force surveys).
 */
export function workforceByGroup(dir: string): ReadonlyMap<string, ReadonlyMap<number, number>> {
  const out = new Map<string, Map<number, number>>();
  for (const r of readCsv(dir, `${ILO_EMPLOYEES_FILE}.csv`)) {
    const group = /^ocu_isco08_([1-9])$/.exec(text(r, 'classif1'))?.[1];
    if (!group || text(r, 'year') !== EMPLOYEES_YEAR) continue;
    const country = out.get(text(r, 'country')) ?? new Map<number, number>();
    country.set(Number(group), num(r, 'employees_thousands'));
    out.set(text(r, 'country'), country);
  }
  return out;
}

/**
 * Employment weight of each job in each country: the share of its ISCO major group in the
 * country's employees (`workforceByGroup`), split equally among the catalogue jobs of the group.
 * A country without all nine groups keeps the release's `fallback` weights.
 */
export function countryJobWeights(
  dir: string,
  fallback: Readonly<Record<string, number>>,
): ReadonlyMap<string, Readonly<Record<string, number>>> {
  const counts = workforceByGroup(dir);
  const out = new Map<string, Readonly<Record<string, number>>>();
  for (const c of COUNTRIES) {
    const mine = counts.get(c.code);
    const complete = mine !== undefined && GROUPS.every((g) => (mine.get(g) ?? 0) > 0);
    out.set(c.code, complete ? weightsFromCounts(mine) : fallback);
  }
  return out;
}

/** Job weights from employee counts by major group: six decimals, summing to 1. */
function weightsFromCounts(share: ReadonlyMap<number, number>): Record<string, number> {
  const total = [...share.values()].reduce((s, v) => s + v, 0);
  const perGroup = (g: number) => JOBS.filter((j) => iscoMajorGroup(j) === g).length;
  const round = (x: number) => Math.round(x * 1e6) / 1e6;
  const weights = JOBS.map((j) =>
    round((share.get(iscoMajorGroup(j)) ?? NaN) / total / perGroup(iscoMajorGroup(j))),
  );
  const largest = weights.indexOf(Math.max(...weights));
  weights[largest] = round((weights[largest] ?? NaN) + 1 - weights.reduce((s, w) => s + w, 0));
  return Object.fromEntries(JOBS.map((j, i) => [j.slug, weights[i] ?? NaN]));
}
