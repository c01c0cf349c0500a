import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { ReleaseHeader } from '../../src/releases/format.js';

type ReleaseSource = ReleaseHeader['sources'][number];

/**
 * Every file in sources/ (`<id>.csv` with `<id>.source.md` beside it), as the release header
 * lists them. `url` is the publisher's page or the copy that was read (see the .source.md).
 */
export const SOURCE_FILES: readonly ReleaseSource[] = Object.freeze([
  {
    id: 'eurostat_nama_10_fte_avg_fulltime_salary_eur_2021_2024',
    title: 'Average annual full-time adjusted salary per employee (nama_10_fte), EUR, 2021-2024',
    publisher: 'Eurostat (values read from republications of Eurostat releases)',
    url: 'https://ec.europa.eu/eurostat/web/products-eurostat-news/w/ddn-20221219-3',
    used_for:
      'Country mean full-time pay 2022-2024 (basis "published"); anchor of the back-cast to 2014 and of the 2025-2026 projection. First-vintage 2021 values only validate the back-cast.',
  },
  {
    id: 'eurostat_ses_median_hourly_earnings_eur_2014_2018_2022',
    title:
      'Structure of Earnings Survey: median gross hourly earnings (earn_ses_pub2s), EUR, 2014/2018/2022',
    publisher: 'Eurostat',
    url: 'https://ec.europa.eu/eurostat/statistics-explained/index.php?title=Earnings_statistics',
    used_for:
      'Back-cast of country mean pay to 2014-2021 (ratio of mean pay to SES median held at its 2022 value).',
  },
  {
    id: 'eurostat_ses_occupation_hourly_2018_partial',
    title:
      'Structure of Earnings Survey 2018: mean gross hourly earnings by ISCO-08 major group (partial)',
    publisher: 'Eurostat (news item of 27 May 2021, as republished)',
    url: 'https://oke.gr/en/hourly-earnings-vary-widely-across-occupations',
    used_for:
      'EU27 occupational pay profile (groups 1,2,3,5,8,9) and country dispersion exponents for CY, DK, RO.',
  },
  {
    id: 'bg_nsi_ses_2018_2022_by_occupation_bgn',
    title:
      'Structure of Earnings Survey, October 2018 and 2022: employees and earnings by occupation (BGN)',
    publisher: 'National Statistical Institute of Bulgaria (NSI)',
    url: 'http://old.nsi.bg/en/node/4046',
    used_for:
      'Job employment weights (2022 employee counts); EU profile fill-in for groups 4, 6, 7; Bulgaria occupational profile; within/between-group dispersion decomposition.',
  },
  {
    id: 'bg_nsi_ses_2022_hourly_by_activity_bgn',
    title: 'Structure of Earnings Survey, October 2022: hourly earnings by economic activity (BGN)',
    publisher: 'National Statistical Institute of Bulgaria (NSI)',
    url: 'https://nsi.bg/en/content/4035/economic-activities',
    used_for:
      'Within-group job factors (ICT, education, health, accommodation and food, construction); Bulgaria whole-economy dispersion.',
  },
  {
    id: 'nl_cbs_wages_per_job_2019_2023_eur',
    title: 'Employment; jobs, wages, working hours (StatLine 81462ENG and 81431ENG), 2019-2023',
    publisher: 'Statistics Netherlands (CBS)',
    url: 'https://www.cbs.nl/en-gb/figures/detail/81431ENG',
    used_for:
      'Netherlands mean full-time pay 2019-2023 (modelled); seniority level profile (2023 hourly wages by age); education and care job factors.',
  },
  {
    id: 'pl_gus_ses_avg_monthly_gross_pln',
    title: 'Structure of wages and salaries by occupation, October 2018/2020/2022 (PLN)',
    publisher: 'Statistics Poland (GUS)',
    url: 'https://stat.gov.pl/en/topics/labour-market/working-employed-wages-and-salaries-cost-of-labour/structure-of-wages-and-salaries-by-occupation-in-october-2022,17,8.html',
    used_for: 'Poland whole-economy pay dispersion (mean 22.8 % above median in October 2022).',
  },
  {
    id: 'eurostat_context_figures',
    title: 'Context figures: net earnings, labour costs, national averages and medians (EE, BG)',
    publisher: 'Eurostat; Statistics Estonia; National Statistical Institute of Bulgaria',
    url: 'https://ec.europa.eu/eurostat/statistics-explained/index.php?title=Wages_and_labour_costs',
    used_for:
      'Estonia whole-economy dispersion (mean vs median 2023) and ICT sector pay premium; the other rows are context only.',
  },
  {
    id: 'ecb_eur_fx_annual_avg_2014_2025_derived',
    title:
      'Euro foreign exchange reference rates, calendar-year averages of daily fixings 2014-2025',
    publisher: 'European Central Bank (averages computed from eurofxref-hist.csv)',
    url: 'https://github.com/h0tbird/eurofxref/blob/d21ffee4b337f6d7ea9eb59045155aadf7b48b98/eurofxref-hist.csv',
    used_for:
      'fx_rate of every non-euro record (2025: partial-year average to 9 May; 2026: 2025 rate repeated).',
  },
  {
    id: 'oecd_av_an_wage_2020_2022_usd_ppp_const2022',
    title: 'Average annual wages per full-time equivalent employee, USD PPP, constant 2022 prices',
    publisher: 'OECD (OECD.ELS.SAE:DSD_EARNINGS@AV_AN_WAGE)',
    url: 'https://github.com/michal0091/dataviz/blob/e2a609757670424deaae4a1e72aac559092e16d3/R/30DayChartChallenge2024/day_06/OECD_AV_AN_WAGE.csv',
    used_for:
      'Cross-check only: Netherlands 2022 mean implied by OECD relative to Belgium and Germany.',
  },
  {
    id: 'derived_nama_10_fte_national_currency_approx_2022_2024',
    title: 'nama_10_fte 2022-2024 converted to national currency at ECB annual averages (derived)',
    publisher: 'Derived in this project from Eurostat and ECB figures',
    url: 'https://ec.europa.eu/eurostat/databrowser/view/nama_10_fte/default/table',
    used_for:
      'Not used by the model; kept for reference (records give local currency the same way: EUR value x fx_rate).',
  },
  {
    id: 'de_destatis_verdiensterhebung_selected_occupations_eur_month_2022_2023',
    title:
      'Verdiensterhebung: mean gross monthly earnings of full-time employees by selected occupation, April 2022/2023',
    publisher: 'Statistisches Bundesamt (Destatis), press releases as republished',
    url: 'https://der-betrieb.de/meldungen/gehaltsvergleich-2022-wer-verdient-was/',
    used_for:
      'Germany job ratios (physician, nurse, software engineer, office clerk, elderly care, mechanic, truck driver, agriculture, food sales).',
  },
  {
    id: 'pl_gus_wages_by_occupation_kzis3_oct2024_pln_month',
    title:
      'Structure of wages and salaries by occupation, October 2024: means and deciles by KZiS 3-digit group (PLN)',
    publisher: 'Statistics Poland (GUS)',
    url: 'https://stat.gov.pl/obszary-tematyczne/rynek-pracy/pracujacy-zatrudnieni-wynagrodzenia-koszty-pracy/struktura-wynagrodzen-wedlug-zawodow-za-pazdziernik-2024-r-,4,12.html',
    used_for: 'Poland job ratios between the 12 covered jobs; per-job spread from D9/D1.',
  },
  {
    id: 'se_scb_lonestruktur_monthly_salary_by_ssyk_selected_sek',
    title: 'Wage structure statistics: monthly salary by SSYK 2012 occupation, selected rows (SEK)',
    publisher: 'Statistics Sweden (SCB) for the National Mediation Office',
    url: 'https://www.scb.se/hitta-statistik/statistik-efter-amne/arbetsmarknad/loner-och-arbetskostnader/lonestrukturstatistik-hela-ekonomin/',
    used_for:
      'Sweden job ratios (physician, nurse, electrician, cleaner) against the all-occupation mean of the same year.',
  },
  {
    id: 'cz_csu_structure_of_earnings_by_occupation_czk_month_2017_2023',
    title: 'Structure of employee earnings by CZ-ISCO group; doctors and nurses 2017/2021 (CZK)',
    publisher: 'Czech Statistical Office (CSU), as republished',
    url: 'https://zpravy.kurzy.cz/768613-struktura-mezd-zamestnancu-2023-prumerne-mzdy-a-median-mezd/',
    used_for: 'Czechia physician and nurse ratios (2021 means).',
  },
  {
    id: 'dk_dst_earnings_by_occupation_selected_dkk',
    title: 'Earnings by occupation (DISCO-08), selected rows, three presentations (DKK)',
    publisher: 'Statistics Denmark (DST), as compiled by CEPOS and the press',
    url: 'https://metropolinternational.com/hvem-tjener-mest-i-danmark/',
    used_for:
      'Denmark physician and software-engineer ratios (2022 standardised full-time monthly earnings).',
  },
  {
    id: 'nl_cbs_85517ned_hourly_wage_quartiles_by_occupation_2022_eur',
    title:
      'Employees; hourly wage and occupation (StatLine 85517NED), quartiles by BRC 2014 occupation, 2022',
    publisher: 'Statistics Netherlands (CBS)',
    url: 'https://opendata.cbs.nl/statline/#/CBS/nl/dataset/85517NED',
    used_for:
      'Netherlands job ratios (all 21 jobs, median hourly wage / all-employee median); per-job spread from P75/P25.',
  },
  {
    id: 'eurostat_earn_mw_cur_monthly_minimum_wage_eur_2018_2025',
    title: 'Monthly statutory minimum wages (earn_mw_cur), EUR, January 2018-2025',
    publisher: 'Eurostat (news releases as republished)',
    url: 'https://ec.europa.eu/eurostat/databrowser/view/earn_mw_cur/default/table',
    used_for:
      'Floor of full-time p10: 12 x the latest January minimum wage in force in the year (2018-2026).',
  },
  {
    id: 'eurostat_ses2022_isco1_mean_annual_eur',
    title:
      'Structure of Earnings Survey 2022 (earn_ses22_28): mean annual gross earnings by ISCO-08 major group, EUR',
    publisher:
      'Eurostat (copy of the dataset in a public repository, verified against a second copy)',
    url: 'https://ec.europa.eu/eurostat/databrowser/view/earn_ses22_28/default/table',
    used_for:
      'Occupation-group structure of every country (groups 1-9; EU27 only for a group a country lacks).',
  },
  {
    id: 'at_statistik_austria_ses2022_median_hourly_by_isco_major_group_eur',
    title: 'Verdienststrukturerhebung 2022: median gross hourly earnings by ISCO-08 major group',
    publisher: 'Statistik Austria (release text as republished)',
    url: 'https://leadersnet.at/news/82534%2Cin-diesen-jobs-verdient-man-hierzulande-am-meisten-wenigsten.html',
    used_for:
      'Austria occupation-group structure (groups 1-5, 7, 9; medians converted to means with the cell spread).',
  },
  {
    id: 'hu_ksh_net_avg_earnings_by_feor_major_group_huf_month_2019_2022',
    title: 'Net average monthly earnings by FEOR-08 major group (STADAT mun0066), 2019-2022 (HUF)',
    publisher: 'Hungarian Central Statistical Office (KSH)',
    url: 'https://ksh.gov.hu/stadat_files/mun/hu/mun0066.html',
    used_for:
      'Hungary occupation-group structure (2022; flat-rate deductions, so net ratios equal gross ratios).',
  },
  {
    id: 'pt_qp2024_cpp_major_group_ganho_medio_mensal',
    title:
      'Quadros de Pessoal 2024: mean monthly earnings (ganho) by CPP/2010 major group, October',
    publisher: 'GEP-MTSSS (copy in a public repository)',
    url: 'https://github.com/afonsoaz/SalarySeed',
    used_for: 'Portugal occupation-group structure (groups 1-9, 2024).',
  },
  {
    id: 'es_ine_ees_gross_earnings_by_cno11_subgroup_eur',
    title:
      'Encuesta de Estructura Salarial: gross earnings by CNO-11 sub-major group, 2010/2018/2022',
    publisher: 'Instituto Nacional de Estadística (INE)',
    url: 'https://ine.es./jaxiT3/files/t/es/csv_c/36838.csv',
    used_for:
      'Spain job ratios (software, civil engineer, teacher, accountant, financial analyst, HR, cleaner); health professionals as a cross-check.',
  },
  {
    id: 'de_ba_entgeltatlas_median_monthly_by_kldb_eur_selected',
    title:
      'Entgeltatlas: median gross monthly earnings of full-time employees by KldB 2010 occupation',
    publisher: 'Bundesagentur für Arbeit (Statistik der BA)',
    url: 'https://web.arbeitsagentur.de/entgeltatlas/',
    used_for: 'Cross-check only: German physician and nurse medians against the Destatis means.',
  },
]);

/** Fails when sources/ lacks a listed file or its description. */
export function checkSourceFiles(dir: string): void {
  for (const source of SOURCE_FILES) {
    for (const file of [`${source.id}.csv`, `${source.id}.source.md`]) {
      if (!existsSync(join(dir, file))) throw new Error(`sources: missing ${file} in ${dir}`);
    }
  }
}
