/**
 * The held-out set (docs/data.md §9): whole tables the fit never sees, kept to measure the served
 * figures out of sample. They were chosen before any result was looked at, by one rule: a second
 * publisher, or another year, of occupations some table already covers, or a country's only
 * occupation table where several countries have one, so that the set spans cells with their own
 * evidence and cells served from the pooled model, in at least 12 countries.
 */
export const HELD_OUT_TABLES: readonly { readonly source: string; readonly why: string }[] =
  Object.freeze([
    { source: 'cz_csu_lekari_sestry_2017_2021', why: 'Czechia’s only physician and nurse rows' },
    {
      source: 'de_destatis_verdienste_berufe_2014_2023_2024',
      why: 'Destatis 2014, 2023 and 2024 beside the April 2022 table',
    },
    {
      source: 'dk_dst_finans_lonstruktur_hoejeste_loen_2018',
      why: 'DST 2018 beside the 2022–2023 figures',
    },
    { source: 'dk_dst_cepos_sygeplejersker_maanedsloen', why: 'a second source for nurses' },
    { source: 'ee_opetajate_tootasu_alammaar_2018_2025', why: 'Estonia’s only teacher figure' },
    {
      source: 'es_ine_ees_grupos_ocupacion_news_2017_2023',
      why: 'INE 2017, 2022 and 2023 beside the 2010 and 2018 tables',
    },
    {
      source: 'fi_tilastokeskus_suoluk_kokonaisansiot_ammatti_2017',
      why: 'Statistics Finland 2017 beside 2018 and 2020',
    },
    {
      source: 'fi_tilastokeskus_suoluk_kokonaisansiot_ammatti_2019',
      why: 'Statistics Finland 2019 beside 2018 and 2020',
    },
    { source: 'hu_orvosi_bertabla_aeek_2018_2023', why: 'a second publisher for physicians' },
    {
      source: 'it_rgs_istat_ssn_retribuzioni_medie_2009_2020',
      why: 'Italy’s only physician and nurse figures',
    },
    { source: 'lt_sodra_pareigu_vidutines_pajamos_2025', why: 'Lithuania’s occupation figures' },
    {
      source: 'lt_uzimtumo_tarnyba_vidutines_darbo_pajamos_2019_2025',
      why: 'Lithuania’s occupation figures',
    },
    { source: 'lv_csp_ses_profesiju_grupas_2018', why: 'Latvia’s only occupation table' },
    {
      source: 'nl_cbs_85517ned_uurloon_beroep_2021_2023',
      why: 'CBS 2021 and 2023 beside the 2022 table',
    },
    {
      source: 'pl_gus_health_occupations_oct2020_pln_month',
      why: 'GUS October 2020 beside October 2024',
    },
    {
      source: 'pt_fjn_brighterfuture_quadros_pessoal_medianas_2023',
      why: 'Quadros de Pessoal 2023 beside 2021',
    },
    {
      source: 'se_scb_lonestruktur_regioner_yrke_2019',
      why: 'the regions sector beside the economy-wide SCB rows',
    },
    { source: 'si_mju_portal_plac_javni_sektor_2018', why: 'Slovenia’s only occupation figures' },
  ]);

export const HELD_OUT = new Set(HELD_OUT_TABLES.map((t) => t.source));

/**
 * Held-out figures the previous release (2026.11.7) was itself fitted on: its error on them would
 * not be out of sample, so the comparison with it leaves them out. It was built with this same
 * held-out set, so there are none.
 */
export const USED_BY_PREVIOUS_RELEASE: readonly {
  readonly source: string;
  readonly refPeriod: string;
}[] = Object.freeze([]);
