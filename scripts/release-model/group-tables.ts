import { COUNTRIES } from '../../src/catalog/countries.js';
import { num, readCsv, text } from './csv.js';

/**
 * Major-group (ISCO-08 first digit) pay tables: Eurostat SES 2022 for all 27 countries, and the
 * national tables that replace it where they exist (AT, HU, PT). docs/data.md §4.8 lists the
 * pay concept of each and the conversions.
 */

export const SES22_FILE = 'eurostat_ses2022_isco1_mean_annual_eur';
export const AT_FILE = 'at_statistik_austria_ses2022_median_hourly_by_isco_major_group_eur';
export const HU_FILE = 'hu_ksh_net_avg_earnings_by_feor_major_group_huf_month_2019_2022';
export const PT_FILE = 'pt_qp2024_cpp_major_group_ganho_medio_mensal';

export type Statistic = 'mean' | 'median';

/** One published major-group table of one country (values in the table's own unit). */
export interface GroupTable {
  readonly country: string;
  readonly source: string;
  /** Short name for notes and validation tables, e.g. "Eurostat SES 2022". */
  readonly label: string;
  readonly year: number;
  readonly statistic: Statistic;
  readonly concept: string;
  /** ISCO major group → published value. */
  readonly groups: ReadonlyMap<number, number>;
}

export interface GroupTables {
  /** ISO → tables in order of preference (national first, then SES 2022). */
  readonly byCountry: ReadonlyMap<string, readonly GroupTable[]>;
  /** EU27 SES 2022, used only for a group no table of the country has. */
  readonly eu: GroupTable;
}

const SES_CONCEPT =
  'mean annual gross earnings, EUR, enterprises 10+, full- and part-time together';

export function loadGroupTables(dir: string): GroupTables {
  const ses = readCsv(dir, `${SES22_FILE}.csv`);
  const sesTable = (geo: string, country: string): GroupTable => ({
    country,
    source: SES22_FILE,
    label: 'Eurostat SES 2022',
    year: 2022,
    statistic: 'mean',
    concept: SES_CONCEPT,
    groups: new Map(
      ses
        .filter((r) => text(r, 'geo') === geo && /^OC[1-9]$/.test(text(r, 'isco08')))
        .map((r) => [Number(text(r, 'isco08').slice(2)), num(r, 'mean_annual_earnings_eur')]),
    ),
  });

  const at = readCsv(dir, `${AT_FILE}.csv`).filter(
    (r) => text(r, 'isco08_major_group') !== 'TOTAL',
  );
  const hu = readCsv(dir, `${HU_FILE}.csv`).filter(
    (r) => text(r, 'year') === '2022' && text(r, 'feor08_major_group') !== 'total',
  );
  const pt = readCsv(dir, `${PT_FILE}.csv`);
  const national: Record<string, GroupTable> = {
    AT: {
      country: 'AT',
      source: AT_FILE,
      label: 'Statistik Austria SES 2022',
      year: 2022,
      statistic: 'median',
      concept: 'median gross hourly earnings, private sector',
      groups: new Map(
        at.map((r) => [
          Number(text(r, 'isco08_major_group')),
          num(r, 'median_gross_hourly_earnings_eur'),
        ]),
      ),
    },
    // Net = gross × (1 − 15 % income tax − 18.5 % contributions) for every employee (flat rates,
    // figures computed without allowances), so ratios of net pay equal ratios of gross pay.
    HU: {
      country: 'HU',
      source: HU_FILE,
      label: 'KSH 2022',
      year: 2022,
      statistic: 'mean',
      concept: 'mean net monthly earnings (flat-rate deductions: ratios as gross)',
      groups: new Map(
        hu.map((r) => [
          Number(text(r, 'feor08_major_group')),
          num(r, 'net_avg_monthly_earnings_huf'),
        ]),
      ),
    },
    PT: {
      country: 'PT',
      source: PT_FILE,
      label: 'GEP Quadros de Pessoal 2024',
      year: 2024,
      statistic: 'mean',
      concept: 'mean monthly gross earnings (ganho), private sector, mainland, October',
      groups: new Map(
        pt.map((r) => [Number(text(r, 'cpp_major_group')), num(r, 'mean_monthly_ganho_eur')]),
      ),
    },
  };

  const byCountry = new Map(
    COUNTRIES.map((c) => {
      const own = national[c.code];
      const tables = [...(own ? [own] : []), sesTable(c.eurostatCode, c.code)];
      return [c.code, tables] as const;
    }),
  );
  return { byCountry, eu: sesTable('EU27', 'EU27') };
}
