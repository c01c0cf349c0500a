/**
 * Examples in the API reference: real answers of the bundled release (test/http/reference-examples.test.ts
 * fails when the release changes them).
 */

/** What the `meta` of every answer below says of the release and its sources. */
const RELEASE_META = {
  release: {
    version: '2026.11.8',
    created_at: '2026-11-29T09:00:00.000Z',
    current_year: 2026,
    last_published_year: 2024,
  },
  source:
    'Modelled from published statistics (Federal law; Statistik Austria, Verdienststrukturerhebung 2022; Conseil National du Travail; Statbel; Council of Ministers; National Statistical Institute of Bulgaria; Council of Ministers decrees under the Minimum Wage Law; Český statistický úřad; Czech Statistical Office; Government of the Czech Republic; Ministry of Labour and Social Affairs of the Czech Republic; Bundesagentur für Arbeit; Statistisches Bundesamt; Bundesregierung; Collective agreements: Vereinigung der kommunalen Arbeitgeberverbände; CEPOS; Danmarks Statistik, quoted by alt.dk; Danmarks Statistik figures quoted by bemlo.dk; Danmarks Statistik; European Central Bank; Government of Estonia; Government of Estonia / Ministry of Education and Research; Statistics Estonia; INE — Encuesta Anual de Estructura Salarial; INE; INE, Encuesta Cuatrienal de Estructura Salarial 2014; INE, Encuesta Cuatrienal de Estructura Salarial 2010; Instituto Nacional de Estadística; Gobierno de España; Council of the European Union; Eurostat; Eurostat, dataset nama_10_fte "Average annual full-time adjusted salary per employee"; Eurostat, Structure of Earnings Survey, dataset earn_ses_pub2s; Statistics Finland; Statutory grids fixed by decree; INSEE; Government decrees; Ministry of Labour; Ministry of Finance / Ministry of Health; Government of Croatia; KSH; Központi Statisztikai Hivatal; Government; Irish Nurses and Midwives Organisation; Minister for Enterprise/Employment by statutory order; Department of Education salary circulars, as republished by the Teachers\' Union of Ireland; International Labour Organization, ILOSTAT, indicator EES_TEES_SEX_OCU_NB; ISTAT; Ragioneria Generale dello Stato; Government of Lithuania resolutions; Sodra; Užimtumo tarnyba; Statistics Lithuania / State Data Agency; Law; Central Statistical Bureau of Latvia; Cabinet of Ministers; Government of Malta — National Minimum Wage National Standard Order; CBS; Statistics Netherlands; Ministerie van Sociale Zaken en Werkgelegenheid; GUS; Statistics Poland; Główny Urząd Statystyczny; Minister Edukacji; Rada Ministrów; Fundação José Neves; Governo de Portugal, Decreto-Lei each year; Pordata; Parliament of Romania — Legea-cadru nr. 153/2017 privind salarizarea personalului plătit din fonduri publice, Anexa II; Government of Romania; Medlingsinstitutet; SCB wage structure statistics, republished by facket.net; Statistics Sweden; Ministrstvo za javno upravo; Statistični urad RS; Government of the Slovak Republic; Štatistický úrad SR); not survey microdata. Release 2026.11.8.',
  methodology_url: '/methodology',
  modelled: true,
};

/** The cell the answers below describe. */
const CELL = {
  country: {
    code: 'DE',
    name: 'Germany',
  },
  job: {
    slug: 'software-engineer',
    title: 'Software engineer',
    isco_code: '2512',
  },
};

/** The `meta` of the lookup and the pay position: one record of the current year. */
const META = { count: 1, ...RELEASE_META, ...CELL, year: 2026 };

/** The record of the lookup: senior software engineers in Germany, current year. */
const SENIOR_2026 = {
  country: 'DE',
  job: 'software-engineer',
  level: 'senior',
  year: 2026,
  currency: 'EUR',
  period: 'annual',
  p25: 73127,
  median: 89945,
  p75: 110631,
  local_currency: 'EUR',
  local_median: 89945,
  basis: 'projected',
  projected: true,
  confidence: 'high',
  confidence_note:
    'own table Destatis April 2022 (Software-Entwickler*in), KldB occupation, all requirement levels; mean projected to 2026 from 2024 (Eurostat nama_10_fte) at +5.8 % a year; typical error 7 %',
};

/** GET /api/v1/salary?country=DE&job=software-engineer&level=senior */
export const LOOKUP_EXAMPLE = { data: [SENIOR_2026], meta: META };

/** GET /api/v1/salary/position?country=DE&job=software-engineer&level=senior&salary=72000 */
export const POSITION_EXAMPLE = {
  data: {
    country: 'DE',
    job: 'software-engineer',
    level: 'senior',
    year: 2026,
    salary: 72000,
    currency: 'EUR',
    salary_eur: 72000,
    percentile: 23.4,
    band: 'p10_p25',
    distribution: {
      currency: 'EUR',
      p10: 60697,
      p25: 73127,
      median: 89945,
      p75: 110631,
      p90: 133287,
      interpolation: 'log-normal between published percentiles',
      tails: 'log-normal fitted to p10 and p90',
      log_mean: 11.406955,
      log_sd: 0.306898,
    },
    local_currency: 'EUR',
    fx_rate: 1,
    basis: 'projected',
    projected: true,
    confidence: 'high',
  },
  meta: META,
};

/** GET /api/v1/salary/history?country=DE&job=software-engineer&level=senior with a Developer key (1 year back). */
export const HISTORY_EXAMPLE = {
  data: [
    {
      ...SENIOR_2026,
      year: 2025,
      p25: 69123,
      median: 85020,
      p75: 104573,
      local_median: 85020,
      confidence_note:
        'own table Destatis April 2022 (Software-Entwickler*in), KldB occupation, all requirement levels; mean projected to 2025 from 2024 (Eurostat nama_10_fte) at +5.8 % a year; typical error 7 %',
    },
    SENIOR_2026,
  ],
  meta: { count: 2, ...RELEASE_META, ...CELL, years: [2025, 2026] },
};
