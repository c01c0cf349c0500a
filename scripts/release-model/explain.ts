import { COUNTRIES } from '../../src/catalog/countries.js';
import { JOBS, LEVELS, iscoMajorGroup } from '../../src/catalog/jobs.js';
import type { ReleaseRecord } from '../../src/releases/format.js';
import type { Model } from './model.js';
import { GROUPS, SECTOR_SHARE } from './occupation-profile.js';

/**
 * Human-readable dump of the model's numbers (`--explain`), the source of the figures quoted in
 * docs/data.md, and the sanity lines printed after every build.
 */

const f = (x: number, d = 3) => x.toFixed(d);
const pct = (x: number, d = 2) => `${(x * 100).toFixed(d)} %`;
const eur = (x: number) => Math.round(x).toLocaleString('en-GB');
const table = (head: readonly string[], rows: readonly (readonly string[])[]) =>
  [
    `| ${head.join(' | ')} |`,
    `|${head.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ].join('\n');

export function explain(model: Model): string {
  const { countryMeans: cm, occupations: occ, levels, dispersion: disp } = model;
  const out: string[] = [];
  const years = [2014, 2018, 2021, 2022, 2023, 2024, 2025, 2026];
  out.push('## Country means (EUR)');
  out.push(
    table(
      ['country', ...years.map(String), 'mean/SES-median 2022', 'own growth', 'applied growth'],
      [...COUNTRIES]
        .sort((a, b) => a.code.localeCompare(b.code))
        .map((c) => {
          const y = cm.byCountry.get(c.code);
          const g = cm.growth.get(c.code);
          return [
            c.code,
            ...years.map(
              (yr) =>
                `${eur(y?.get(yr)?.mean ?? NaN)}${y?.get(yr)?.basis === 'published' ? '' : '*'}`,
            ),
            f(cm.backcastRatio.get(c.eurostatCode) ?? NaN, 0),
            g ? `${pct(g.own)} (${g.from}-${g.to})` : '',
            g ? pct(g.applied) : '',
          ];
        }),
    ),
  );
  out.push(
    `EU27 growth 2022-2024: ${pct(cm.euGrowth)}; EU27 back-cast ratio ${f(cm.backcastRatio.get('EU27_2020') ?? NaN, 1)}`,
  );
  out.push('\n## 2021 back-cast vs first-vintage nama_10_fte');
  out.push(
    table(
      ['geo', 'first vintage', 'back-cast', 'diff'],
      cm.validation2021.map((v) => [v.geo, eur(v.firstVintage), eur(v.backcast), pct(v.diff, 1)]),
    ),
  );
  out.push('\n## Netherlands');
  out.push([...cm.nl.modelled].map(([y, v]) => `${y}: ${eur(v)}`).join(', '));
  out.push(
    `checks 2022: hourly x 38 h x 52.18 = ${eur(cm.nl.hourlyCheck2022)}; OECD via BE/DE = ${eur(cm.nl.oecdCheck2022)}`,
  );

  out.push('\n## Occupation profile');
  out.push(
    `EU fill fit: ln m_EU = ${f(occ.euFill.intercept)} + ${f(occ.euFill.slope)} ln r_BG2018`,
  );
  out.push(
    table(
      ['group', 'share (BG 2022)', 'EU hourly 2018', 'EU ratio', 'BG 2018', 'BG 2022'],
      GROUPS.map((g) => [
        String(g),
        pct(occ.groupShare.get(g) ?? NaN),
        occ.euFill.filled.has(g)
          ? `${f(occ.euFill.filled.get(g) ?? NaN, 2)} (filled)`
          : 'published',
        f(occ.euProfile.get(g) ?? NaN),
        f(occ.bgProfile.get(2018)?.get(g) ?? NaN),
        f(occ.bgProfile.get(2022)?.get(g) ?? NaN),
      ]),
    ),
  );
  out.push(
    `dispersion exponents: ${[...occ.dispersion].map(([geo, d]) => `${geo} d=${f(d.d)} (groups ${d.groups.join(',')})`).join('; ')}`,
  );
  out.push(
    table(
      ['job', 'country', 'sector', 'sector ratio', 'group ratio', 'premium', 'own factor'],
      occ.evidence.map((e) => [
        e.job,
        e.country,
        e.sector,
        f(e.sectorRatio),
        f(e.groupRatio),
        f(e.sectorRatio / e.groupRatio),
        f(Math.pow(e.sectorRatio / e.groupRatio, SECTOR_SHARE)),
      ]),
    ),
  );
  const shown = ['DE', 'BG', 'CY', 'DK', 'EE', 'NL', 'RO'];
  out.push(
    table(
      ['job', 'ISCO', 'weight', 'factor', ...shown],
      JOBS.map((j) => [
        j.slug,
        String(iscoMajorGroup(j)),
        f(occ.jobWeights[j.slug] ?? NaN, 6),
        f(occ.jobFactor.get(j.slug) ?? NaN),
        ...shown.map((c) => f(occ.jobRatio.get(c)?.get(j.slug) ?? NaN)),
      ]),
    ),
  );

  out.push('\n## Group levels (own major-group table; * = bridged from the next table, ! = EU27)');
  out.push(
    table(
      ['country', 'table', ...GROUPS.map(String)],
      [...model.jobModel.groupLevels].map(([c, levels]) => {
        const first = [...levels.values()][0]?.table;
        return [
          c,
          first?.label ?? '',
          ...GROUPS.map((g) => {
            const l = levels.get(g);
            const mark = !l?.table ? '!' : l.table === first ? '' : '*';
            return `${f(l?.level ?? NaN)}${mark}`;
          }),
        ];
      }),
    ),
  );
  out.push(
    `pooled within-group fits: ${[...model.jobModel.pooled].map(([j, p]) => `${j} a=${f(p.intercept)} b=${f(p.slope)} (${p.countries.join(',')})`).join('; ')}`,
  );

  out.push('\n## Levels');
  out.push(
    table(
      ['level', 'CBS hourly', 'ratio'],
      LEVELS.map((l) => [l, f(levels.hourly[l], 3), f(levels.ratio[l], 4)]),
    ),
  );

  out.push('\n## Dispersion');
  for (const [c, s] of disp.observed)
    out.push(`${c}: ${s.source}: ratio ${f(s.meanMedianRatio, 4)}, sigma ${f(s.sigma)}`);
  out.push(
    `default sigma ${f(disp.defaultSigma)}; kappa ${f(disp.kappa)}; level variance ${f(disp.levelVariance, 4)}`,
  );
  for (const [y, k] of disp.kappaByYear)
    out.push(`BG ${y}: within ${f(k.within)} + between ${f(k.between)} vs aggregate ${f(k.total)}`);
  out.push(
    table(
      ['country', 'sigma country', 'job variance', 'sigma cell'],
      [...disp.cells].map(([c, s]) => [c, f(s.sigmaCountry), f(s.jobVariance, 4), f(s.sigmaCell)]),
    ),
  );
  return out.join('\n');
}

const show = (r: ReleaseRecord) =>
  `${r.country} ${r.job} ${r.level} ${r.year} [${r.basis}/${r.confidence}]: p10 ${r.p10} p25 ${r.p25} median ${r.median} p75 ${r.p75} p90 ${r.p90} mean ${r.mean} EUR (${r.local_currency} ${r.fx_rate})`;

export function sanityLines(records: readonly ReleaseRecord[]): string[] {
  const pick = (country: string, job: string, level: string, year: number) =>
    records.find(
      (r) => r.country === country && r.job === job && r.level === level && r.year === year,
    );
  const lines = [
    pick('DE', 'software-engineer', 'senior', 2024),
    pick('BG', 'cleaner', 'junior', 2024),
    pick('LU', 'physician', 'lead', 2026),
  ]
    .filter((r): r is ReleaseRecord => r !== undefined)
    .map(show);
  const byMedian = [...records].sort((a, b) => a.median - b.median);
  const [lo, hi] = [byMedian[0], byMedian.at(-1)];
  if (lo && hi) lines.push(`min median: ${show(lo)}`, `max median: ${show(hi)}`);
  return lines;
}
