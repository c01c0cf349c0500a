import { text, type CsvRow } from './csv.js';
import type { NationalSeries } from './country-series.js';

/**
 * The national statistical offices' annual average earnings series that place the years between
 * published nama_10_fte levels (docs/data.md §4.2). Each entry keeps one row a year, all of one
 * concept; where a file holds two readings of a year (a first release and a revision, two
 * coverages), the filter names the one kept. Countries not listed here publish no annual series
 * in the sources, and their years follow the SES surveys.
 */

const is =
  (stat: string, period: string, basis: string) =>
  (r: CsvRow): boolean =>
    text(r, 'statistic') === stat && text(r, 'period') === period && text(r, 'pay_basis') === basis;

export const NATIONAL_SERIES: Readonly<Record<string, NationalSeries>> = Object.freeze({
  BE: {
    file: 'be_statbel_average_earnings_2010_2022',
    label: 'Statbel, mean gross monthly pay of full-time employees (enterprises 10+)',
    keep: (r) => is('mean', 'month', 'full-time')(r) && !/private sector/.test(text(r, 'coverage')),
  },
  CZ: {
    file: 'cz_csu_average_earnings_2014_2025',
    label: 'ČSÚ, mean gross monthly wage per full-time equivalent',
    keep: (r) =>
      is('mean', 'month', 'fte')(r) && !/^ČSÚ release \(annual\)/.test(text(r, 'status')),
  },
  EE: {
    file: 'ee_statistikaamet_average_earnings_2017_2024',
    label: 'Statistics Estonia, mean gross monthly wage per full-time equivalent (to 2019)',
    keep: (r) => is('mean', 'month', 'fte')(r) && Number(text(r, 'year')) <= 2019,
  },
  ES: {
    file: 'es_ine_average_earnings_2014_2023',
    label: 'INE EES/EAES, mean annual gross earnings per worker',
    keep: (r) => is('mean', 'year', 'all')(r),
  },
  FI: {
    file: 'fi_tilastokeskus_average_earnings_2015_2024',
    label: 'Statistics Finland, median monthly total earnings of full-time employees (to 2021)',
    keep: (r) =>
      is('median', 'month', 'full-time')(r) &&
      Number(text(r, 'year')) <= 2021 &&
      !/later release/.test(text(r, 'status')),
  },
  HU: {
    file: 'hu_ksh_average_earnings_2014_2024',
    label:
      'KSH, mean gross monthly earnings of full-time employees (enterprises 5+, excl. public works)',
    keep: (r) =>
      is('mean', 'month', 'full-time')(r) &&
      /enterprises with 5\+ employees.*excl\. public-works/.test(text(r, 'coverage')),
  },
  LT: {
    file: 'lt_vda_average_earnings_2018_2023',
    label: 'Statistics Lithuania, mean gross monthly earnings per full-time equivalent',
    keep: (r) =>
      is('mean', 'month', 'fte')(r) &&
      !(['2018', '2019'].includes(text(r, 'year')) && /^final/.test(text(r, 'status'))),
  },
  LV: {
    file: 'lv_csp_average_earnings_2014_2025',
    label: 'CSP, mean gross monthly wage per full-time equivalent',
    keep: (r) =>
      is('mean', 'month', 'fte')(r) &&
      !/quarter only/.test(text(r, 'status')) &&
      !(text(r, 'year') === '2024' && !/CSP release/.test(text(r, 'status'))),
  },
  PL: {
    file: 'pl_gus_average_earnings_2016_2024',
    label: 'GUS, mean gross monthly wage in the national economy',
    keep: (r) =>
      is('mean', 'month', 'fte')(r) &&
      /^national economy \(gospodarka narodowa\), all entity sizes$/.test(text(r, 'coverage')),
  },
  SE: {
    file: 'se_mi_average_earnings_2018_2024',
    label: 'Medlingsinstitutet/SCB, mean monthly salary per full-time equivalent',
    keep: (r) => is('mean', 'month', 'fte')(r),
  },
  SI: {
    file: 'si_surs_average_earnings_2014_2025',
    label: 'SURS, mean gross monthly earnings',
    keep: (r) => is('mean', 'month', 'all')(r) && /SiStat 0711322S/.test(text(r, 'status')),
  },
  SK: {
    file: 'sk_susr_average_earnings_2013_2024',
    label: 'ŠÚ SR, mean gross monthly wage in the economy',
    keep: (r) => is('mean', 'month', 'all')(r) && /^ŠÚ SR annual/.test(text(r, 'status')),
  },
});
