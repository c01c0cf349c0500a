import { num, readCsv, text, type CsvRow } from './csv.js';

/**
 * National occupation tables: for each evidence country, the pay of the catalogue jobs its table
 * covers relative to the country's all-employee pay in the same table (same pay concept, same
 * period). docs/data.md §4.7 lists the mapping of each job to the table row and its caveats.
 */

export interface JobEvidence {
  readonly country: string;
  readonly job: string;
  /** Job pay / all-employee pay of the same table (or of the same table's anchor, see below). */
  readonly ratio: number;
  /** The table row used, as printed in the source. */
  readonly row: string;
  readonly source: string;
  readonly concept: string;
  /** Year the row refers to. */
  readonly year: number;
}

export interface CountryEvidence {
  readonly country: string;
  readonly source: string;
  /** Short name for notes and validation tables, e.g. "Destatis 2022/23". */
  readonly label: string;
  readonly concept: string;
  /** Whether the table publishes means or medians: the release reproduces the same statistic. */
  readonly statistic: 'mean' | 'median';
  /**
   * `total`: ratios are to the table's all-employee figure. `covered`: the table has no
   * all-employee figure, so only the ratios between its jobs are evidence (see §4.7).
   */
  readonly anchor: 'total' | 'covered';
  readonly jobs: ReadonlyMap<string, JobEvidence>;
}

/** Per-job spread of log pay within an occupation, from published quantiles. */
export interface JobSpread {
  readonly job: string;
  readonly country: string;
  readonly sigma: number;
  /** The table row and the quantiles used. */
  readonly row: string;
}

export interface OccupationEvidence {
  readonly countries: readonly CountryEvidence[];
  readonly spreads: readonly JobSpread[];
  /** geo (ISO) → year → statutory monthly minimum wage, EUR (latest January value ≤ year). */
  readonly minimumWage: ReadonlyMap<string, ReadonlyMap<number, number>>;
}

export const DE_FILE = 'de_destatis_verdiensterhebung_selected_occupations_eur_month_2022_2023';
export const PL_FILE = 'pl_gus_wages_by_occupation_kzis3_oct2024_pln_month';
export const SE_FILE = 'se_scb_lonestruktur_monthly_salary_by_ssyk_selected_sek';
export const CZ_FILE = 'cz_csu_structure_of_earnings_by_occupation_czk_month_2017_2023';
export const DK_FILE = 'dk_dst_earnings_by_occupation_selected_dkk';
export const NL_FILE = 'nl_cbs_85517ned_hourly_wage_quartiles_by_occupation_2022_eur';
export const ES_FILE = 'es_ine_ees_gross_earnings_by_cno11_subgroup_eur';
export const MW_FILE = 'eurostat_earn_mw_cur_monthly_minimum_wage_eur_2018_2025';

/** Catalogue job → row label of each table (docs/data.md §4.7 gives the ISCO reasoning). */
const DE_ROWS: Readonly<Record<string, string>> = {
  physician: 'Medical doctor',
  'software-engineer': 'Software developer',
  'administrative-assistant': 'Office clerk (skilled)',
  'care-worker': 'Elderly care (all skill levels)',
  'motor-mechanic': 'Motor vehicle mechatronics technician',
  nurse: 'Nursing (skilled level; Fachkraft)',
  'truck-driver': 'Professional (truck) drivers',
  'crop-farmer': 'Agriculture (skilled)',
  'shop-sales-assistant': 'Food sales (no specialisation)',
};
const PL_ROWS: Readonly<Record<string, string>> = {
  'software-engineer': '251',
  'civil-engineer': '214',
  physician: '221',
  nurse: '222',
  'secondary-teacher': '233',
  accountant: '241',
  'financial-analyst': '241',
  'hr-specialist': '242',
  'it-support-technician': '351',
  chef: '512',
  electrician: '741',
  'motor-mechanic': '723',
};
const SE_ROWS: Readonly<Record<string, readonly [number, string]>> = {
  physician: [2022, 'Specialist physicians'],
  nurse: [2020, 'Registered nurses (no specialisation)'],
  electrician: [2020, 'Building and service electricians'],
  cleaner: [2022, 'Cleaners'],
};
const CZ_ROWS: Readonly<Record<string, string>> = {
  physician: 'Medical doctors (employees)',
  nurse: 'General nurses (employees)',
};
const DK_ROWS: Readonly<Record<string, string>> = {
  physician: 'Medical doctor',
  'software-engineer': 'Software developer',
};
const NL_ROWS: Readonly<Record<string, string>> = {
  'marketing-manager': '0522',
  'software-engineer': '0811',
  'civil-engineer': '0712',
  physician: '1011',
  nurse: '1012',
  'secondary-teacher': '0113',
  accountant: '0411',
  'financial-analyst': '0412',
  'hr-specialist': '0415',
  'it-support-technician': '0821',
  'administrative-assistant': '0431',
  'customer-service-agent': '0334',
  'shop-sales-assistant': '0332',
  chef: '1112',
  waiter: '1113',
  'care-worker': '1051',
  'crop-farmer': '0912',
  electrician: '0761',
  'motor-mechanic': '0743',
  'truck-driver': '1214',
  cleaner: '1121',
};

/**
 * Spain, INE EES by CNO-11 sub-major group (the two-digit level of ISCO-08): [survey year, code].
 * Each value is set against the all-occupation figure of the same survey. Sub-group 21 (health
 * professionals) mixes doctors and nurses and is shown as a cross-check only (docs/data.md §4.7).
 */
const ES_ROWS: Readonly<Record<string, readonly [number, string]>> = {
  'software-engineer': [2010, '27'],
  'civil-engineer': [2018, '24'],
  'secondary-teacher': [2018, '22'],
  accountant: [2010, '26'],
  'financial-analyst': [2010, '26'],
  'hr-specialist': [2010, '26'],
  cleaner: [2022, 'CNO-11 group as named'],
};

/** z of the 75th and 90th percentiles of the standard normal. */
const Z75 = 0.6744897501960817;
const Z90 = 1.2815515655446004;

function find(rows: readonly CsvRow[], pick: (r: CsvRow) => boolean, what: string): CsvRow {
  const row = rows.find(pick);
  if (!row) throw new Error(`occupation evidence: ${what} not found`);
  return row;
}

function country(
  code: string,
  table: { source: string; label: string; concept: string; statistic: 'mean' | 'median' },
  anchor: 'total' | 'covered',
  entries: readonly (readonly [string, number, string, number])[],
): CountryEvidence {
  return {
    country: code,
    ...table,
    anchor,
    jobs: new Map(
      entries.map(([job, ratio, row, year]) => [
        job,
        { country: code, job, ratio, row, year, source: table.source, concept: table.concept },
      ]),
    ),
  };
}

/**
 * Germany: Destatis April 2022 means; the 2023 rows (skilled-level shortage occupations) have no
 * all-employee figure of their own and are set against April 2022's, moved to April 2023 with the
 * nama_10_fte growth of German mean pay 2022 → 2023 (`deGrowth2023`).
 */
function germany(dir: string, deGrowth2023: number): CountryEvidence {
  const rows = readCsv(dir, `${DE_FILE}.csv`);
  const value = (r: CsvRow) =>
    num(r, 'avg_gross_monthly_earnings_fulltime_excl_special_payments_eur');
  const total = value(
    find(rows, (r) => text(r, 'occupation_en') === 'All full-time employees', 'DE total'),
  );
  const entries = Object.entries(DE_ROWS).map(([job, label]) => {
    const r = find(rows, (x) => text(x, 'occupation_en') === label, `DE ${label}`);
    const month = text(r, 'reference_month');
    const base = month === '2022-04' ? total : total * deGrowth2023;
    return [job, value(r) / base, `${month} ${label}`, Number(month.slice(0, 4))] as const;
  });
  return country(
    'DE',
    {
      source: DE_FILE,
      label: 'Destatis 2022/23',
      concept: 'mean gross monthly, full-time, excl. special payments',
      statistic: 'mean',
    },
    'total',
    entries,
  );
}

function poland(dir: string): { evidence: CountryEvidence; spreads: JobSpread[] } {
  const rows = readCsv(dir, `${PL_FILE}.csv`);
  const row = (code: string) =>
    find(rows, (r) => text(r, 'kzis_isco_3digit') === code, `PL ${code}`);
  const entries = Object.entries(PL_ROWS).map(
    ([job, code]) => [job, num(row(code), 'mean_gross_monthly_pln'), `KZiS ${code}`, 2024] as const,
  );
  // No all-employee row in the copy read: the ratios between the covered jobs are the evidence.
  const spreads = Object.entries(PL_ROWS).map(([job, code]) => ({
    job,
    country: 'PL',
    sigma: Math.log(num(row(code), 'd9_pln') / num(row(code), 'd1_pln')) / (2 * Z90),
    row: `KZiS ${code} D9/D1`,
  }));
  return {
    evidence: country(
      'PL',
      {
        source: PL_FILE,
        label: 'GUS October 2024',
        concept: 'mean gross monthly, FTE, October 2024',
        statistic: 'mean',
      },
      'covered',
      entries,
    ),
    spreads,
  };
}

function sweden(dir: string): CountryEvidence {
  const rows = readCsv(dir, `${SE_FILE}.csv`).filter(
    (r) => text(r, 'sector_scope') === 'all sectors' && text(r, 'statistic') === 'mean',
  );
  const at = (year: number, label: string) =>
    num(
      find(
        rows,
        (r) => Number(text(r, 'year')) === year && text(r, 'occupation_en') === label,
        `SE ${year} ${label}`,
      ),
      'value_sek_month',
    );
  const entries = Object.entries(SE_ROWS).map(
    ([job, [year, label]]) =>
      [job, at(year, label) / at(year, 'All occupations'), `${year} ${label}`, year] as const,
  );
  return country(
    'SE',
    {
      source: SE_FILE,
      label: 'SCB 2020/22',
      concept: 'mean monthly salary, all sectors, FTE',
      statistic: 'mean',
    },
    'total',
    entries,
  );
}

/** One year of a table with English row labels: each mapped job over the all-employee row. */
function oneYearTable(
  dir: string,
  spec: {
    code: string;
    file: string;
    year: string;
    label: string;
    valueColumn: string;
    totalLabel: string;
    rows: Readonly<Record<string, string>>;
    concept: string;
  },
): CountryEvidence {
  const rows = readCsv(dir, `${spec.file}.csv`).filter((r) => text(r, 'year') === spec.year);
  const at = (label: string) =>
    num(
      find(rows, (r) => text(r, 'occupation_en') === label, `${spec.code} ${label}`),
      spec.valueColumn,
    );
  const total = at(spec.totalLabel);
  const entries = Object.entries(spec.rows).map(
    ([job, label]) => [job, at(label) / total, `${spec.year} ${label}`, Number(spec.year)] as const,
  );
  return country(
    spec.code,
    { source: spec.file, label: spec.label, concept: spec.concept, statistic: 'mean' },
    'total',
    entries,
  );
}

const czechia = (dir: string) =>
  oneYearTable(dir, {
    code: 'CZ',
    file: CZ_FILE,
    year: '2021',
    label: 'ČSÚ 2021',
    valueColumn: 'mean_gross_monthly_czk',
    totalLabel: 'All employees (average gross wage)',
    rows: CZ_ROWS,
    concept: 'mean gross monthly, 2021',
  });

const denmark = (dir: string) =>
  oneYearTable(dir, {
    code: 'DK',
    file: DK_FILE,
    year: '2022',
    label: 'DST 2022',
    valueColumn: 'value_dkk',
    totalLabel: 'All employees',
    rows: DK_ROWS,
    concept: 'standardised full-time monthly earnings, 2022',
  });

function spain(dir: string): CountryEvidence {
  const rows = readCsv(dir, `${ES_FILE}.csv`);
  const at = (year: number, code: string) =>
    find(
      rows,
      (r) =>
        text(r, 'reference_year').startsWith(String(year)) &&
        text(r, 'cno11_subgroup_code') === code,
      `ES ${year} ${code}`,
    );
  const entries = Object.entries(ES_ROWS).map(([job, [year, code]]) => {
    const row = at(year, code);
    const ratio = num(row, 'gross_earnings_eur') / num(at(year, 'TOTAL'), 'gross_earnings_eur');
    const label = code === 'CNO-11 group as named' ? '92' : code;
    return [job, ratio, `${year} CNO-11 ${label}`, year] as const;
  });
  return country(
    'ES',
    {
      source: ES_FILE,
      label: 'INE EES 2010/18/22',
      concept: 'mean gross earnings per worker (part-time included)',
      statistic: 'mean',
    },
    'total',
    entries,
  );
}

/** ES health professionals (CNO-11 21, 2018) over all occupations: doctors and nurses together. */
export function spainHealthProfessionals(dir: string): number {
  const rows = readCsv(dir, `${ES_FILE}.csv`).filter((r) =>
    text(r, 'reference_year').startsWith('2018'),
  );
  const value = (code: string) =>
    num(
      find(rows, (r) => text(r, 'cno11_subgroup_code') === code, `ES 2018 ${code}`),
      'gross_earnings_eur',
    );
  return value('21') / value('TOTAL');
}

function netherlands(dir: string): { evidence: CountryEvidence; spreads: JobSpread[] } {
  const rows = readCsv(dir, `${NL_FILE}.csv`);
  const row = (code: string) => find(rows, (r) => text(r, 'brc2014_code') === code, `NL ${code}`);
  const total = num(row('Totaal'), 'median_hourly_wage_eur');
  const entries = Object.entries(NL_ROWS).map(
    ([job, code]) =>
      [job, num(row(code), 'median_hourly_wage_eur') / total, `BRC ${code}`, 2022] as const,
  );
  const spreads = Object.entries(NL_ROWS).map(([job, code]) => ({
    job,
    country: 'NL',
    sigma:
      Math.log(num(row(code), 'p75_hourly_wage_eur') / num(row(code), 'p25_hourly_wage_eur')) /
      (2 * Z75),
    row: `BRC ${code} P75/P25`,
  }));
  return {
    // The all-employee median includes part-time students and young workers (hourly pay of all
    // jobs), unlike the full-time country mean: only the ratios between the jobs are used.
    evidence: country(
      'NL',
      {
        source: NL_FILE,
        label: 'CBS 2022',
        concept: 'median gross hourly wage, 2022',
        statistic: 'median',
      },
      'covered',
      entries,
    ),
    spreads,
  };
}

/** Latest January value at or before each year; no value before the first reading. */
function minimumWages(dir: string, years: readonly number[]): Map<string, Map<number, number>> {
  const out = new Map<string, Map<number, number>>();
  const readings = readCsv(dir, `${MW_FILE}.csv`).filter(
    (r) => text(r, 'monthly_minimum_wage_eur') !== '',
  );
  for (const r of readings) {
    const geo = text(r, 'country') === 'EL' ? 'GR' : text(r, 'country');
    const year = Number(text(r, 'reference_month').slice(0, 4));
    const value = num(r, 'monthly_minimum_wage_eur');
    const byYear = out.get(geo) ?? new Map<number, number>();
    for (const y of years) {
      if (y < year) continue;
      const previous = readings.some(
        (o) =>
          text(o, 'country') === text(r, 'country') &&
          Number(text(o, 'reference_month').slice(0, 4)) > year &&
          Number(text(o, 'reference_month').slice(0, 4)) <= y,
      );
      if (!previous) byYear.set(y, value);
    }
    out.set(geo, byYear);
  }
  return out;
}

export function loadOccupationEvidence(
  dir: string,
  deGrowth2023: number,
  years: readonly number[],
): OccupationEvidence {
  const pl = poland(dir);
  const nl = netherlands(dir);
  return {
    countries: [
      czechia(dir),
      germany(dir, deGrowth2023),
      denmark(dir),
      spain(dir),
      nl.evidence,
      pl.evidence,
      sweden(dir),
    ],
    spreads: [...nl.spreads, ...pl.spreads],
    minimumWage: minimumWages(dir, years),
  };
}
