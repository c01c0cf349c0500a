import type { PayRow, RowStatistic } from './pay-rows.js';

/**
 * The national occupation tables the release learns job levels from, one entry per source file
 * (docs/data.md §5.1 gives the reasoning for each). A row is converted through the all-employee
 * figure of its own table and period; where the table has none, `total` names the national
 * figure of the same pay concept it is converted through instead.
 */

export interface TotalLink {
  readonly source: string;
  /** Reference period of the total; by default the row's own. */
  readonly refPeriod?: string;
  /** Statistic of the total; by default the row's own. */
  readonly statistic?: RowStatistic;
  readonly coverage?: RegExp;
  readonly bonuses?: RegExp;
}

export interface SectorShare {
  readonly source: string;
  readonly refPeriod: string;
  /** The sector's row in that table. */
  readonly sector: RegExp;
}

export interface EvidenceTable {
  readonly source: string;
  /** Short name used in confidence notes and the validation tables. */
  readonly label: string;
  /** The total to convert a row through, when the row's own table has none (or a narrower one). */
  readonly total?: (row: PayRow) => TotalLink | undefined;
  /** The table covers one sector (public hospitals, municipalities): broader evidence. */
  readonly sector?: boolean;
  /**
   * Where a sector table is converted through its own sector's total: that sector's figure over
   * the economy's, as one table publishes both (same survey, statistic and pay concept), so the
   * sector's total stands for its share of the economy's figure rather than for all of it.
   */
  readonly sectorShare?: SectorShare;
  /** Further variance for a concept the conversion can only approximate. */
  readonly extraVariance?: number;
  /** Rows of another breakdown than the whole occupation that stand for it all the same. */
  readonly breakdown?: RegExp;
  readonly skip?: (row: PayRow) => boolean;
  readonly skipReason?: string;
}

const SE_MI = 'se_mi_average_earnings_2018_2024';
/** SCB's economy-wide figures for a sector table: the mean of 2018, the median of 2021. */
const seEconomy = (r: PayRow): TotalLink =>
  r.statistic === 'mean'
    ? { source: SE_MI, refPeriod: '2018', statistic: 'mean' }
    : { source: SE_MI, refPeriod: '2021', statistic: 'median' };

export const EVIDENCE_TABLES: readonly EvidenceTable[] = Object.freeze<EvidenceTable[]>([
  // Belgium: Statbel SES, mean monthly pay of full-time employees (irregular bonuses excluded).
  // Austria: Statistik Austria VSE 2022, median gross hourly earnings by ÖISCO-08 sub-major group.
  { source: 'at_statistik_austria_vse_oisco_2022', label: 'Statistik Austria VSE 2022' },
  {
    source: 'be_statbel_salaires_profession_2013_2022',
    label: 'Statbel SES',
    total: (r) =>
      r.refPeriod === '2013-10' || r.refPeriod === '2019-10'
        ? { source: 'be_statbel_average_earnings_2010_2022', refPeriod: r.refPeriod.slice(0, 4) }
        : undefined,
  },
  {
    source: 'cz_csu_lekari_sestry_2017_2021',
    label: 'ČSÚ',
  },
  // Czechia: MPSV's ISPV, gross monthly wages of the wage sphere (employers paying wages, not the
  // state and budget-funded organisations of the salary sphere), by CZ-ISCO unit group.
  {
    source: 'cz_mpsv_ispv_mzdova_sfera_cz_isco_2025h1',
    label: 'ISPV wage sphere 2025 H1',
    sector: true,
  },
  {
    source: 'de_destatis_verdienste_ausgewaehlte_berufe_2022',
    label: 'Destatis April 2022',
  },
  {
    source: 'de_destatis_verdienste_berufe_2014_2023_2024',
    label: 'Destatis Verdiensterhebung',
    total: (r) =>
      r.refPeriod === '2014'
        ? undefined
        : {
            source: 'de_destatis_verdienste_ausgewaehlte_berufe_2022',
            refPeriod: '2022-04',
          },
  },
  {
    source: 'de_ba_entgeltatlas_2023_2024',
    label: 'BA Entgeltatlas',
    skip: (r) => r.breakdown !== 'all',
    skipReason: 'a regional figure',
  },
  // Denmark: DST standardised monthly earnings incl. pension, republished by CEPOS and others.
  {
    source: 'dk_cepos_dst_maanedsfortjeneste_jobtyper_2022_2024',
    label: 'DST (CEPOS)',
    total: () => ({ source: 'dk_dst_altdk_gennemsnitsloen_2022', refPeriod: '2022' }),
    // CEPOS lists employees without managerial responsibility, the bulk of each occupation.
    breakdown: /^employees without managerial responsibility/,
    extraVariance: 0.04 ** 2,
  },
  {
    source: 'dk_dst_bemlo_sosu_assistenter_2023',
    label: 'DST',
    total: () => ({ source: 'dk_dst_altdk_gennemsnitsloen_2022', refPeriod: '2022' }),
    sector: true,
  },
  {
    source: 'dk_dst_cepos_sygeplejersker_maanedsloen',
    label: 'DST',
    total: () => ({ source: 'dk_dst_altdk_gennemsnitsloen_2022', refPeriod: '2022' }),
    sector: true,
  },
  {
    source: 'dk_dst_finans_lonstruktur_hoejeste_loen_2018',
    label: 'DST 2018',
    total: () => ({ source: 'dk_dst_altdk_gennemsnitsloen_2022', refPeriod: '2022' }),
    extraVariance: 0.05 ** 2,
  },
  // Estonia: register-based medians of full-time employees (Statistics Estonia's pay app).
  {
    source: 'ee_statistikaamet_palgarakendus_ametid_2020_2021',
    label: 'Statistics Estonia',
    total: () => ({
      source: 'ee_statistikaamet_palgarakendus_ametid_2020_2021',
      refPeriod: '2020-Q2',
    }),
  },
  {
    source: 'ee_opetajate_tootasu_alammaar_2018_2025',
    label: 'Estonian Ministry of Education',
    total: () => ({ source: 'ee_statistikaamet_average_earnings_2017_2024', refPeriod: '2024' }),
    breakdown: /^observed average/,
  },
  // Spain: INE Encuesta de Estructura Salarial (per worker, part-time included).
  { source: 'es_ine_ees_salario_anual_cno11_2010', label: 'INE EES 2010' },
  { source: 'es_ine_ees_salario_bruto_mensual_cno11_2018', label: 'INE EES 2018' },
  {
    source: 'es_ine_ees_grupos_ocupacion_news_2017_2023',
    label: 'INE EES/EAES',
    total: (r) =>
      r.refPeriod === '2017'
        ? { source: 'es_ine_average_earnings_2014_2023', refPeriod: '2017' }
        : undefined,
  },
  // Finland: Statistics Finland, median monthly total earnings of full-time employees.
  {
    source: 'fi_tilastokeskus_suoluk_kokonaisansiot_ammatti_2017',
    label: 'Statistics Finland 2017',
  },
  {
    source: 'fi_tilastokeskus_suoluk_kokonaisansiot_ammatti_2018',
    label: 'Statistics Finland 2018',
  },
  {
    source: 'fi_tilastokeskus_suoluk_kokonaisansiot_ammatti_2019',
    label: 'Statistics Finland 2019',
  },
  {
    source: 'fi_tilastokeskus_suoluk_kokonaisansiot_ammatti_2020',
    label: 'Statistics Finland 2020',
  },
  {
    source: 'fi_tilastokeskus_kuntasektorin_palkat_2022',
    label: 'Statistics Finland, municipal sector 2022',
    sector: true,
    // The municipal median against the economy's: Statistics Finland's 2020 table (Kunnat).
    sectorShare: {
      source: 'fi_tilastokeskus_suoluk_kokonaisansiot_ammatti_2020',
      refPeriod: '2020-10',
      sector: /^Kunnat$/,
    },
  },
  // France: INSEE, net monthly pay per full-time equivalent, private sector.
  {
    source: 'fr_insee_deuxieme_ligne_metiers_2022',
    label: 'INSEE 2022 (net)',
    total: () => ({
      source: 'fr_insee_average_earnings_2014_2024',
      refPeriod: '2022',
      statistic: 'mean',
      bonuses: /^NET/,
      coverage: /^private sector$/,
    }),
  },
  { source: 'hu_ksh_atlagkereset_feor_2023_2024', label: 'KSH' },
  {
    source: 'hu_orvosi_bertabla_aeek_2018_2023',
    label: 'ÁEEK 2018',
    total: () => ({
      source: 'hu_ksh_average_earnings_2014_2024',
      refPeriod: '2018',
      statistic: 'mean',
      coverage: /excl\. public-works/,
    }),
    sector: true,
  },
  {
    source: 'it_rgs_istat_ssn_retribuzioni_medie_2009_2020',
    label: 'RGS/ISTAT, national health service',
    total: () => ({
      source: 'it_istat_inps_average_earnings_2010_2023',
      refPeriod: '2022',
      statistic: 'mean',
      coverage: /SES 2022/,
    }),
    sector: true,
    skip: (r) => r.year < 2014,
    skipReason: 'before the release’s first year',
  },
  {
    source: 'lt_sodra_pareigu_vidutines_pajamos_2025',
    label: 'Sodra 2025',
    total: () => ({ source: 'lt_vda_average_earnings_2018_2023', refPeriod: '2023' }),
    extraVariance: 0.05 ** 2,
  },
  {
    source: 'lt_uzimtumo_tarnyba_vidutines_darbo_pajamos_2019_2025',
    label: 'Užimtumo tarnyba',
    total: (r) => ({
      source: 'lt_vda_average_earnings_2018_2023',
      refPeriod: r.refPeriod === '2019' ? '2019' : '2023',
    }),
    extraVariance: 0.05 ** 2,
  },
  {
    source: 'lv_csp_ses_profesiju_grupas_2018',
    label: 'CSP SES 2018',
    total: () => ({ source: 'lv_csp_average_earnings_2014_2025', refPeriod: '2022' }),
  },
  { source: 'nl_cbs_85517ned_uurloon_beroep_2022', label: 'CBS 2022' },
  { source: 'nl_cbs_85517ned_uurloon_beroep_2021_2023', label: 'CBS' },
  {
    source: 'pl_gus_struktura_wynagrodzen_kzis3_2024',
    label: 'GUS October 2024',
    total: () => ({ source: 'pl_gus_struktura_wynagrodzen_total_2016_2022', refPeriod: '2022-10' }),
  },
  { source: 'pl_gus_health_occupations_oct2020_pln_month', label: 'GUS October 2020' },
  { source: 'pt_pordata_gep_quadros_pessoal_profissoes_2021', label: 'Quadros de Pessoal 2021' },
  {
    source: 'pt_fjn_brighterfuture_quadros_pessoal_medianas_2023',
    label: 'Quadros de Pessoal 2023',
  },
  {
    source: 'se_scb_lonestruktur_hela_ekonomin_2016_2022',
    label: 'SCB',
    total: (r) =>
      r.refPeriod === '2016'
        ? { source: SE_MI, refPeriod: '2021', statistic: 'median' }
        : undefined,
  },
  {
    source: 'se_scb_lonestruktur_regioner_yrke_2019',
    label: 'SCB, regions 2019',
    total: seEconomy,
    sector: true,
    // Doctors are published by kind only (specialists, residents, interns, others), never together.
    skip: (r) => r.jobs.includes('physician'),
    skipReason: 'one kind of doctor only',
  },
  {
    source: 'se_republications_ssyk2512_2022_2024',
    label: 'SCB (republished)',
    total: (r) => ({ source: SE_MI, refPeriod: r.refPeriod, statistic: 'mean' }),
    skip: (r) => !/^all sectors/.test(r.coverage),
    skipReason: 'one county only',
  },
  {
    source: 'si_mju_portal_plac_javni_sektor_2018',
    label: 'Public-sector pay portal 2018',
    total: () => ({
      source: 'si_surs_average_earnings_2014_2025',
      refPeriod: '2018',
      statistic: 'mean',
      coverage: /^Slovenia total/,
    }),
    sector: true,
  },
]);
