import { COUNTRIES } from '../../src/catalog/countries.js';
import { JOBS, LEVELS } from '../../src/catalog/jobs.js';
import type { ReleaseRecord } from '../../src/releases/format.js';
import type { Confidence } from './confidence.js';
import type { Model } from './model.js';

/**
 * Human-readable dump of the model's numbers (`--explain`), the source of the figures quoted in
 * docs/data.md, and the sanity lines printed after every build.
 */

const f = (x: number, d = 3) => x.toFixed(d);
const pct = (x: number, d = 1) => `${(x * 100).toFixed(d)} %`;
const n0 = (x: number) => Math.round(x).toLocaleString('en-GB');
const table = (head: readonly string[], rows: readonly (readonly string[])[]) =>
  [
    `| ${head.join(' | ')} |`,
    `| ${head.map(() => '---').join(' | ')} |`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ].join('\n');

export function explain(model: Model, confidence: Confidence): string {
  const out: string[] = [];
  const years = [2014, 2018, 2021, 2022, 2023, 2024, 2025, 2026];
  out.push('## Country means (model currency; * = not a published level)');
  out.push(
    table(
      ['country', 'currency', ...years.map(String), 'national series', 'projected growth'],
      [...COUNTRIES]
        .sort((a, b) => a.code.localeCompare(b.code))
        .map((c) => {
          const s = model.series.byCountry.get(c.code);
          const p = model.series.projection.get(c.code);
          const nat = model.series.national.get(c.code);
          return [
            c.code,
            c.code === 'BG' ? 'BGN' : (c.currencies.at(-1)?.currency ?? ''),
            ...years.map(
              (y) => `${n0(s?.get(y)?.mean ?? NaN)}${s?.get(y)?.basis === 'published' ? '' : '*'}`,
            ),
            nat ? `${nat.years[0] ?? ''}–${nat.years.at(-1) ?? ''}` : '–',
            p ? `${pct(p.applied)} (own ${pct(p.own)})` : '',
          ];
        }),
    ),
  );

  out.push('\n## Annual full-time minimum wage (model currency)');
  out.push(
    table(
      ['country', ...years.map(String)],
      [...model.minimumWages.annual]
        .sort((a, b) => a[0].localeCompare(b[0]))
        .map(([c, byYear]) => [
          c,
          ...years.map((y) => (byYear.has(y) ? n0(byYear.get(y) ?? NaN) : '–')),
        ]),
    ),
  );

  out.push('\n## Job levels: pooled model (offset within the ISCO group)');
  out.push(
    table(
      ['job', 'a', 'b (per ln pay level)', 'between-country sd', 'countries'],
      JOBS.map((j) => {
        const p = model.levels.pooled.get(j.slug);
        return [
          j.slug,
          f(p?.a ?? NaN),
          f(p?.b ?? NaN),
          f(Math.sqrt(p?.tau2 ?? NaN)),
          String(p?.countries ?? 0),
        ];
      }),
    ),
  );
  out.push(
    `country effects u_c: ${[...model.levels.countryEffect]
      .filter(([, v]) => v !== 0)
      .map(([c, v]) => `${c} ${f(v)}`)
      .join(', ')}`,
  );

  out.push('\n## Seniority (level pay over the job mean, before country scaling)');
  out.push(
    table(
      ['job', ...LEVELS, 'lead/junior', 'from'],
      JOBS.map((j) => {
        const r = model.seniority.ratio.get(j.slug);
        return [
          j.slug,
          ...LEVELS.map((l) => f(r?.[l] ?? NaN)),
          f(model.seniority.spread.get(j.slug)?.leadOverJunior ?? NaN, 2),
          model.seniority.spread.get(j.slug)?.from ?? '',
        ];
      }),
    ),
  );
  out.push(
    `shape (share of the junior-to-lead gap): ${LEVELS.map((l) => `${l} ${f(model.seniority.shape[l])}`).join(', ')}`,
  );
  out.push(
    table(
      ['job', 'country', 'scale', 'entry', 'top', 'top / entry'],
      model.seniority.scales.map((s) => [
        s.job,
        s.country,
        s.source,
        s.entry,
        s.top,
        f(s.ratio, 2),
      ]),
    ),
  );

  out.push('\n## Spread');
  out.push(
    table(
      ['job', 'm_j', 'tables'],
      JOBS.map((j) => [
        j.slug,
        f(model.spread.relative.get(j.slug)?.m ?? NaN, 2),
        String(model.spread.relative.get(j.slug)?.tables ?? 0),
      ]),
    ),
  );
  out.push(
    `λ_c: ${[...model.spread.scale]
      .map(([c, s]) => `${c} ${f(s.lambda, 2)}${s.fitted ? '' : '*'}`)
      .join(', ')} (* median, no published ratio)`,
  );
  out.push(`own job spreads: ${[...model.spread.own.keys()].join(', ')}`);

  out.push('\n## Confidence calibration');
  out.push(
    `class errors: ${Object.entries(confidence.classError)
      .map(([k, v]) => {
        const cls = k as keyof typeof confidence.classCount;
        return `${k} ${pct(v)} (measured ${pct(confidence.classMeasured[cls])}, n=${confidence.classCount[cls]})`;
      })
      .join(', ')}; time errors: ${Object.entries(confidence.timeError)
      .map(([k, v]) => `${k} ${pct(v)}`)
      .join(', ')}`,
  );
  out.push(
    `pooled cell error by job: ${[...confidence.pooledJob].map(([j, v]) => `${j} ${pct(v)}`).join(', ')}`,
  );
  out.push(
    `\n## Evidence rows: ${model.fitRows.length} fitted, ${model.heldOutRows.length} held out, ${model.evidence.skipped.length} left out`,
  );
  for (const [table, s] of model.evidence.sectorShares)
    out.push(`- sector share: ${table} × ${f(s.share, 3)} (${s.from})`);
  for (const s of model.evidence.skipped)
    out.push(
      `- left out: ${s.row.source} ${s.row.refPeriod} ${s.row.rowLabel} (${s.row.jobs.join(', ')}): ${s.reason}`,
    );
  return out.join('\n');
}

function show(r: ReleaseRecord): string {
  return `${r.country} ${r.job} ${r.level} ${r.year} (${r.basis}, ${r.confidence}): p10 ${n0(r.p10)}, median ${n0(r.median)}, p90 ${n0(r.p90)}, mean ${n0(r.mean)} EUR`;
}

export function sanityLines(records: readonly ReleaseRecord[]): string[] {
  const pick = (country: string, job: string, level: string, year: number) =>
    records.find(
      (r) => r.country === country && r.job === job && r.level === level && r.year === year,
    );
  const lines = [
    pick('DE', 'software-engineer', 'senior', 2024),
    pick('PL', 'physician', 'mid', 2024),
    pick('BG', 'cleaner', 'junior', 2024),
    pick('LU', 'physician', 'lead', 2026),
  ]
    .filter((r): r is ReleaseRecord => r !== undefined)
    .map(show);
  const byMedian = [...records].sort((a, b) => a.median - b.median);
  const [lo, hi] = [byMedian[0], byMedian.at(-1)];
  if (lo && hi) lines.push(`lowest median: ${show(lo)}`, `highest median: ${show(hi)}`);
  return lines;
}
