/**
 * Examples in the API reference: the bundled releases as the server describes them, each with the
 * first two of its sources (test/http/reference-examples.test.ts compares them with the served
 * answers, and fails when a new release changes them).
 */

const METHODOLOGY =
  "Modelled figures, not survey microdata. Each country's mean full-time gross pay is Eurostat nama_10_fte for 2022-2024 (the Netherlands: CBS pay per job at a 38-hour week); other years follow the national statistical office's annual average earnings where published, else the Eurostat SES surveys, and are projected after the last published year. Each job's level comes from the national occupation tables of its country (converted through each table's own all-employee figure), pooled across countries for jobs a country does not publish, within the country's own SES 2022 occupation-group structure. Levels follow pay scales (physicians, nurses, teachers, care workers) or pay by years of service; the spread within a cell comes from published quantiles by occupation, scaled to each country's published decile ratio; no percentile is below the statutory minimum wage. A held-out set of published figures the fit never sees measures the error; confidence labels are calibrated on it (high: at most 10 % typical error, medium: 20 %). Every step, number and caveat: docs/data.md and docs/validation.md in the salary-api repository.";

/** The first two sources of each release (every bundled release has them). */
const SOURCES = [
  {
    id: 'at_lehrer_entlohnung_pd_2025',
    title:
      'Austria — teacher pay scales: Pädagogischer Dienst (pd) and old L1 scheme, amounts valid until 30 June 2026',
    publisher:
      'Federal law (Vertragsbedienstetengesetz 1948, Entlohnungsschema pd; Gehaltsgesetz 1956 § 55 for L1). Page read: branchenblatt.at overview (republication).',
    years: [2025],
  },
  {
    id: 'at_statistik_austria_vse_oisco_2022',
    title:
      'Statistik Austria, Verdienststrukturerhebung 2022: median gross hourly earnings by ÖISCO-08 sub-major group',
    publisher:
      'Statistik Austria, Verdienststrukturerhebung 2022 (VSE, Austria\'s Structure of Earnings Survey 2022), open government data set OGD_veste403_Veste403_1 "Bruttostundenverdienste nach Beruf" (CC BY 4.0).',
    years: [2022],
  },
];

/** GET /api/v1/releases/2026.11.8 */
export const RELEASE_EXAMPLE = {
  version: '2026.11.8',
  active: true,
  published_at: '2026-11-29T09:00:00.000Z',
  loaded_at: '2026-11-29T09:11:31.370Z',
  first_year: 2014,
  current_year: 2026,
  last_published_year: 2024,
  methodology: METHODOLOGY,
  sources: SOURCES,
  counts: { records: 29484, countries: 27, jobs: 21, levels: 4, years: 13 },
  previous_release: '2026.11.7',
  changes_url: '/api/v1/releases/2026.11.8/changes?from=2026.11.7',
};

/** GET /api/v1/releases */
export const RELEASE_LIST_EXAMPLE = {
  data: [
    RELEASE_EXAMPLE,
    {
      ...RELEASE_EXAMPLE,
      version: '2026.11.7',
      active: false,
      published_at: '2026-11-29T05:30:00.000Z',
      loaded_at: '2026-11-29T09:11:28.898Z',
      previous_release: '2026.11.6',
      changes_url: '/api/v1/releases/2026.11.7/changes?from=2026.11.6',
    },
    {
      ...RELEASE_EXAMPLE,
      version: '2026.11.6',
      active: false,
      published_at: '2026-11-29T01:00:00.000Z',
      loaded_at: '2026-11-29T09:11:26.361Z',
      previous_release: null,
      changes_url: null,
    },
  ],
};

/** GET /api/v1/releases/2026.11.8/changes?from=2026.11.7&country=DE&job=software-engineer&level=senior&year=2026 */
export const CHANGES_EXAMPLE = {
  release: '2026.11.8',
  from: '2026.11.7',
  summary: {
    cells: 29484,
    changed: 1,
    added: 0,
    removed: 0,
    beyond: { '1': 0, '5': 0, '10': 0 },
    by_country: [
      {
        country: 'DE',
        changed: 1,
        beyond_1: 0,
        beyond_5: 0,
        beyond_10: 0,
        median_change_pct: 0.01,
      },
    ],
    by_job: [
      {
        job: 'software-engineer',
        changed: 1,
        beyond_1: 0,
        beyond_5: 0,
        beyond_10: 0,
        median_change_pct: 0.01,
      },
    ],
    by_reason: { new_source: 0, method: 0, fx: 0, revision: 1 },
  },
  reasons: [],
  data: [
    {
      country: 'DE',
      job: 'software-engineer',
      level: 'senior',
      year: 2026,
      old: { p10: 60778, p25: 73175, median: 89936, p75: 110536, p90: 133082, mean: 94240 },
      new: { p10: 60697, p25: 73127, median: 89945, p75: 110631, p90: 133287, mean: 94282 },
      change_pct: 0.01,
      reasons: ['revision'],
    },
  ],
  total: 1,
  limit: 1000,
  offset: 0,
};
