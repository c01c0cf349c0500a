import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { COUNTRIES } from '../../src/catalog/countries.js';
import type { ReleaseHeader } from '../../src/releases/format.js';
import { NAMA_FILE, NL_FILE, SES_MEDIAN_FILE } from './country-series.js';
import { FX_DAILY_FILE } from './fx-rates.js';
import { BG_FILE, ILO_EMPLOYEES_FILE, SES22_FILE } from './groups.js';
import { HELD_OUT } from './holdout.js';
import { EUROSTAT_MW_FILE } from './minimum-wage.js';
import { FIXED_RATES_FILE, type Model } from './model.js';
import { NATIONAL_SERIES } from './national-series.js';
import { SCALE_PAIRS, TENURE_FILE } from './seniority.js';
import { SES_DISTRIBUTION_FILE } from './spread.js';

type ReleaseSource = ReleaseHeader['sources'][number];

/**
 * The release header's list of sources: every file in sources/ (`<id>.csv` with `<id>.source.md`
 * beside it), its title, publisher and URL read from the .source.md, and what the build used it
 * for. A file the build does not use is an error: sources/ holds what the release is made of.
 */
export function sourceList(dir: string, model: Model): ReleaseSource[] {
  const roles = new Map<string, string[]>();
  const add = (id: string, role: string) => {
    const list = roles.get(id) ?? [];
    if (!list.includes(role)) list.push(role);
    roles.set(id, list);
  };
  const name = (iso: string) => COUNTRIES.find((c) => c.code === iso)?.name ?? iso;

  add(
    NAMA_FILE,
    'country mean full-time pay 2022-2024 (basis "published"); the first 2021 figures check the series',
  );
  add(
    SES_MEDIAN_FILE,
    'years between the 2014, 2018 and 2022 surveys where no national series is published',
  );
  add(NL_FILE, 'mean full-time pay of the Netherlands (pay per job at a 38-hour week)');
  add(SES22_FILE, 'level of every ISCO major group in every country');
  add(BG_FILE, 'employment weights of the jobs (the release’s one set)');
  add(ILO_EMPLOYEES_FILE, 'each country’s employment weights of the jobs');
  add(FX_DAILY_FILE, 'ECB annual average rates: EUR amounts and fx_rate of non-euro countries');
  add(FIXED_RATES_FILE, 'fixed euro conversion rates of the litas, kuna and lev');
  add(
    EUROSTAT_MW_FILE,
    'statutory minimum wages where the national file lacks an amount; hours of hourly rates',
  );
  add(SES_DISTRIBUTION_FILE, 'published decile ratios D9/D1 (spread of pay)');
  add(TENURE_FILE, 'seniority levels: pay by years of service');
  for (const [iso, s] of Object.entries(NATIONAL_SERIES))
    add(s.file, `years between published means of ${name(iso)}`);
  for (const [iso, points] of model.minimumWages.timeline)
    for (const p of points)
      if (p.source !== EUROSTAT_MW_FILE)
        add(p.source, `statutory minimum wage of ${name(iso)}: floor of every percentile`);
  for (const r of model.evidence.rows) {
    const jobs = model.evidence.rows
      .filter((x) => x.row.source === r.row.source)
      .map((x) => x.job)
      .filter((j, i, a) => a.indexOf(j) === i)
      .join(', ');
    add(
      r.row.source,
      HELD_OUT.has(r.row.source)
        ? `held-out set, never seen by the fit: ${jobs}`
        : `job levels: ${jobs}`,
    );
    if (r.total.source !== r.row.source)
      add(r.total.source, 'all-employee figure that converts an occupation table');
    const share = r.table.sectorShare;
    if (share)
      add(share.source, 'a sector’s median over the economy’s, placing a one-sector table');
  }
  for (const s of SCALE_PAIRS)
    add(s.source, `seniority levels of ${s.job.replace('-', ' ')}s (pay scale)`);
  for (const e of model.spread.evidence)
    add(e.source, 'spread of pay within occupations (quantiles)');
  for (const t of model.spread.targets.values()) {
    const id = t.from.split(' ')[0] ?? '';
    if (existsSync(join(dir, `${id}.csv`))) add(id, 'published decile ratio D9/D1 (spread of pay)');
  }

  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.csv'))
    .map((f) => f.slice(0, -4))
    .sort();
  const unused = files.filter((f) => !roles.has(f));
  if (unused.length > 0)
    throw new Error(`sources/ holds files the build does not use: ${unused.join(', ')}`);
  return files.map((id) => ({
    id,
    ...describe(dir, id),
    used_for: clip((roles.get(id) ?? []).join('; '), 500),
  }));
}

function clip(s: string, max: number): string {
  return s.length <= max ? s : `${s.slice(0, max - 1)}…`;
}

/** Title, publisher and URL of a source, from its .source.md. */
export function describe(
  dir: string,
  id: string,
): { title: string; publisher: string; url: string } {
  const path = join(dir, `${id}.source.md`);
  if (!existsSync(path)) throw new Error(`sources/${id}.csv has no ${id}.source.md`);
  const md = readFileSync(path, 'utf8');
  const heading = /^#\s+(.+)$/m.exec(md)?.[1]?.trim() ?? '';
  const field = (label: RegExp) =>
    md
      .split('\n')
      .map((l) => l.replace(/^\s*-\s*/, '').replace(/\*\*/g, ''))
      .find((l) => label.test(l))
      ?.replace(label, '')
      .trim();
  const publisher =
    field(/^(Original )?[Pp]ublisher( \(original\))?:\s*/) ?? field(/^Publisher[^:]*:\s*/) ?? '';
  const table = field(/^(Table|Dataset):\s*/);
  const title = heading && heading !== 'SOURCE' ? heading : (table ?? publisher ?? id);
  const url = /(https?:\/\/[^\s)>,;"']+)/.exec(md)?.[1] ?? '';
  if (!publisher) throw new Error(`${id}.source.md names no publisher`);
  return { title: clip(title, 300), publisher: clip(publisher, 200), url: clip(url, 500) };
}
