import { COUNTRIES } from '../../src/catalog/countries.js';
import { JOBS, LEVELS, iscoMajorGroup } from '../../src/catalog/jobs.js';
import type { ReleaseHeader, ReleaseRecord } from '../../src/releases/format.js';
import type { Model } from './model.js';
import { mean } from './math.js';

/**
 * Validation of the served figures (the records as the API serves them, not the model's
 * internals): every table row the release uses against its served counterpart, leave-one-country-
 * out error on served medians, and country means against Eurostat. Printed by every build and
 * written to docs/validation.md; test/data/validation.test.ts fails on a regression.
 */

/** Level whose records are compared (what a customer reads first); ratios are the same at every level. */
export const VALIDATION_LEVEL = 'mid';

export interface TableRow {
  readonly country: string;
  readonly table: string;
  readonly row: string;
  readonly statistic: 'mean' | 'median';
  readonly year: number;
  /** Row value over the geometric mean of the table's rows used. */
  readonly published: number;
  readonly served: number;
}

export interface LooJob {
  readonly job: string;
  readonly n: number;
  readonly model: number;
  readonly prior: number;
}

export interface CountryMeanRow {
  readonly country: string;
  readonly year: number;
  readonly published: number;
  readonly served: number;
}

export interface PairRow {
  readonly country: string;
  readonly servedMedian: number;
  readonly servedMean: number;
  readonly published: number | undefined;
  readonly source: string;
}

export interface ValidationReport {
  readonly tableRows: readonly TableRow[];
  readonly looJobs: readonly LooJob[];
  readonly looOverall: { readonly n: number; readonly model: number; readonly prior: number };
  readonly countryMeans: readonly CountryMeanRow[];
  readonly physicianNurse: readonly PairRow[];
  readonly confidence: Readonly<Record<string, number>>;
}

const clampYear = (y: number, header: ReleaseHeader) =>
  Math.min(header.last_published_year, Math.max(header.first_year, y));

export function validateRelease(
  header: ReleaseHeader,
  records: readonly ReleaseRecord[],
  model: Pick<Model, 'evidence' | 'jobModel' | 'countryMeans'>,
): ValidationReport {
  const byKey = new Map(records.map((r) => [`${r.country}|${r.job}|${r.level}|${r.year}`, r]));
  const cell = (c: string, j: string, y: number, level: string = VALIDATION_LEVEL) => {
    const r = byKey.get(`${c}|${j}|${level}|${y}`);
    if (!r) throw new Error(`validation: no record ${c} ${j} ${level} ${y}`);
    return r;
  };
  // Served pay relative to the country mean of its year, so rows of different years compare.
  const stat = (r: ReleaseRecord, s: 'mean' | 'median') =>
    (s === 'mean' ? r.mean : r.median) /
    (model.countryMeans.byCountry.get(r.country)?.get(r.year)?.mean ?? NaN);
  const indexed = (
    rows: Omit<TableRow, 'published' | 'served'>[],
    pub: number[],
    srv: number[],
  ) => {
    const gp = mean(pub.map(Math.log));
    const gs = mean(srv.map(Math.log));
    return rows.map((row, i) => ({
      ...row,
      published: Math.exp(Math.log(pub[i] ?? NaN) - gp),
      served: Math.exp(Math.log(srv[i] ?? NaN) - gs),
    }));
  };

  const tableRows: TableRow[] = [];
  for (const ev of model.evidence.countries) {
    const jobs = [...ev.jobs.values()];
    if (jobs.length < 2) continue;
    const rows = jobs.map((e) => ({
      country: ev.country,
      table: ev.label,
      row: `${e.row} → ${e.job}`,
      statistic: ev.statistic,
      year: e.year,
    }));
    tableRows.push(
      ...indexed(
        rows,
        jobs.map((e) => e.ratio),
        jobs.map((e) => stat(cell(ev.country, e.job, clampYear(e.year, header)), ev.statistic)),
      ),
    );
  }
  for (const c of COUNTRIES) {
    const levels = model.jobModel.groupLevels.get(c.code);
    const own = model.jobModel.own.get(c.code) ?? new Set<string>();
    const tables = new Set([...(levels?.values() ?? [])].map((l) => l.table).filter((t) => t));
    for (const t of tables) {
      if (!t) continue;
      const groups = [...(levels ?? [])]
        .filter(([, l]) => l.table === t)
        .map(([g]) => g)
        .filter((g) => JOBS.some((j) => iscoMajorGroup(j) === g && !own.has(j.slug)));
      if (groups.length < 2) continue;
      const y = clampYear(t.year, header);
      const served = groups.map((g) => {
        const free = JOBS.filter((j) => iscoMajorGroup(j) === g && !own.has(j.slug));
        const values = free.map((j) => stat(cell(c.code, j.slug, y), t.statistic));
        return t.statistic === 'mean' ? mean(values) : Math.exp(mean(values.map(Math.log)));
      });
      tableRows.push(
        ...indexed(
          groups.map((g) => ({
            country: c.code,
            table: t.label,
            row: `ISCO group ${g}`,
            statistic: t.statistic,
            year: t.year,
          })),
          groups.map((g) => t.groups.get(g) ?? NaN),
          served,
        ),
      );
    }
  }

  const loo = model.jobModel.loo;
  const err = (a: number, b: number) => Math.abs(a / b - 1);
  const looJobs = JOBS.map((j) => j.slug)
    .map((job) => {
      const of = loo.filter((r) => r.job === job);
      return {
        job,
        n: of.length,
        model: mean(of.map((r) => err(r.predicted, r.published))),
        prior: mean(of.map((r) => err(r.prior, r.published))),
      };
    })
    .filter((r) => r.n > 0);
  const looOverall = {
    n: loo.length,
    model: mean(loo.map((r) => err(r.predicted, r.published))),
    prior: mean(loo.map((r) => err(r.prior, r.published))),
  };

  const countryMeans: CountryMeanRow[] = [];
  for (const c of [...COUNTRIES].sort((a, b) => a.code.localeCompare(b.code))) {
    for (const [year, cy] of model.countryMeans.byCountry.get(c.code) ?? []) {
      if (cy.basis !== 'published') continue;
      let served = 0;
      for (const j of JOBS)
        for (const level of LEVELS)
          served +=
            (header.job_weights[j.slug] ?? NaN) *
            (header.level_weights[level] ?? NaN) *
            cell(c.code, j.slug, year, level).mean;
      countryMeans.push({ country: c.code, year, published: cy.mean, served });
    }
  }

  const year = header.last_published_year;
  const physicianNurse = [...COUNTRIES]
    .sort((a, b) => a.code.localeCompare(b.code))
    .map((c) => {
      const p = cell(c.code, 'physician', year);
      const n = cell(c.code, 'nurse', year);
      const ev = model.evidence.countries.find((e) => e.country === c.code);
      const pe = ev?.jobs.get('physician');
      const ne = ev?.jobs.get('nurse');
      return {
        country: c.code,
        servedMedian: p.median / n.median,
        servedMean: p.mean / n.mean,
        published: pe && ne ? pe.ratio / ne.ratio : undefined,
        source: ev && pe && ne ? `${ev.label}, ${ev.statistic}s` : '',
      };
    });

  const confidence: Record<string, number> = { high: 0, medium: 0, low: 0 };
  for (const r of records) confidence[r.confidence] = (confidence[r.confidence] ?? 0) + 1;
  return { tableRows, looJobs, looOverall, countryMeans, physicianNurse, confidence };
}

/** Relative difference of served against published. */
export const gap = (r: { published: number; served: number }) => r.served / r.published - 1;

const f2 = (x: number) => x.toFixed(2);
const pct = (x: number, d = 1) => `${x >= 0 ? '+' : '−'}${Math.abs(100 * x).toFixed(d)} %`;
const eur = (x: number) => Math.round(x).toLocaleString('en-GB');
const table = (head: readonly string[], rows: readonly (readonly string[])[]) =>
  [
    `| ${head.join(' | ')} |`,
    `| ${head.map(() => '---').join(' | ')} |`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ].join('\n');

/** The validation as Markdown (docs/validation.md, rendered on the public methodology page). */
export function validationMarkdown(header: ReleaseHeader, report: ValidationReport): string {
  const worst = Math.max(...report.tableRows.map((r) => Math.abs(gap(r))));
  const meanWorst = Math.max(...report.countryMeans.map((r) => Math.abs(gap(r))));
  const total = Object.values(report.confidence).reduce((s, n) => s + n, 0);
  return [
    `# Validation of release ${header.version}`,
    '',
    'Every figure below is computed from the records the API serves, at the mid level, and set ' +
      'against the published statistics they were built from.',
    '',
    '## Confidence of the records',
    '',
    'How many records rest on each level of evidence: `high` = the country’s own occupation ' +
      'table and a published country average; `medium` = the country’s own table for the ' +
      'occupation group, or a country average one year from a published one; `low` = a group ' +
      'borrowed from the EU average, or a country average two or more years from a published one.',
    '',
    table(
      ['confidence', 'records', 'share'],
      ['high', 'medium', 'low'].map((c) => [
        c,
        eur(report.confidence[c] ?? 0),
        `${((100 * (report.confidence[c] ?? 0)) / total).toFixed(1)} %`,
      ]),
    ),
    '',
    '## Physician against nurse',
    '',
    `Ratio of the served physician pay to the served nurse pay in ${header.last_published_year}, ` +
      'beside the ratio in the country’s own occupation table where it has one (in the statistic ' +
      'that table publishes).',
    '',
    table(
      ['country', 'served median ratio', 'served mean ratio', 'published ratio', 'table'],
      report.physicianNurse.map((r) => [
        r.country,
        f2(r.servedMedian),
        f2(r.servedMean),
        r.published === undefined ? '–' : f2(r.published),
        r.source || '–',
      ]),
    ),
    '',
    '## Every table row used',
    '',
    'Each row of a published table the release uses, as an index (1.00 = the average of the ' +
      'table’s rows used), beside the same index computed from the served figures in the ' +
      `statistic the table publishes. Largest gap: ${pct(worst)}.`,
    '',
    table(
      ['country', 'table', 'row', 'statistic', 'year', 'published', 'served', 'gap'],
      report.tableRows.map((r) => [
        r.country,
        r.table,
        r.row,
        r.statistic,
        String(r.year),
        f2(r.published),
        f2(r.served),
        pct(gap(r)),
      ]),
    ),
    '',
    '## Leave one country out',
    '',
    'For each country with its own occupation table, its occupations are predicted without that ' +
      'table, from its group structure and the other countries’ tables, and compared on served ' +
      'medians (occupation against the average of the table’s occupations). Prior: the group ' +
      'structure alone.',
    '',
    table(
      ['job', 'countries', 'model error', 'prior error'],
      [
        ...report.looJobs.map((r) => [
          r.job,
          String(r.n),
          pct(r.model).slice(1),
          pct(r.prior).slice(1),
        ]),
        [
          '**all**',
          String(report.looOverall.n),
          pct(report.looOverall.model).slice(1),
          pct(report.looOverall.prior).slice(1),
        ],
      ],
    ),
    '',
    '## Country averages against Eurostat',
    '',
    'The employment-weighted average of the served means against the published Eurostat ' +
      `average full-time pay (nama_10_fte). Largest gap: ${pct(meanWorst, 2)}.`,
    '',
    table(
      ['country', 'year', 'Eurostat (EUR)', 'served (EUR)', 'gap'],
      report.countryMeans.map((r) => [
        r.country,
        String(r.year),
        eur(r.published),
        eur(r.served),
        pct(gap(r), 2),
      ]),
    ),
    '',
  ].join('\n');
}

/** The validation as printed by every build: every table row, leave-one-out, country means. */
export function validationLines(report: ValidationReport): string[] {
  const worst = Math.max(...report.tableRows.map((r) => Math.abs(gap(r))));
  return [
    `confidence: ${Object.entries(report.confidence)
      .map(([c, n]) => `${c} ${n}`)
      .join(', ')}`,
    'physician / nurse (served median, served mean, published):',
    ...report.physicianNurse.map(
      (r) =>
        `  ${r.country} ${f2(r.servedMedian)} ${f2(r.servedMean)} ${r.published === undefined ? '-' : `${f2(r.published)} (${r.source})`}`,
    ),
    `table rows used (index over the table's rows used: published, served, gap), largest gap ${pct(worst)}:`,
    ...report.tableRows.map(
      (r) =>
        `  ${r.country} ${r.table} ${r.row} (${r.statistic} ${r.year}): ${f2(r.published)} ${f2(r.served)} ${pct(gap(r))}`,
    ),
    'leave-one-country-out on served medians (model, prior):',
    ...report.looJobs.map((r) => `  ${r.job} (n=${r.n}): ${pct(r.model)}, ${pct(r.prior)}`),
    `leave-one-out overall (n=${report.looOverall.n}): model ${pct(report.looOverall.model)}, prior ${pct(report.looOverall.prior)}`,
    'country means against Eurostat (published, served, gap):',
    ...report.countryMeans.map(
      (r) => `  ${r.country} ${r.year}: ${eur(r.published)} ${eur(r.served)} ${pct(gap(r), 2)}`,
    ),
  ];
}
