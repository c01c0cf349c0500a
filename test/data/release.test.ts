import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { Value } from '@sinclair/typebox/value';
import { COUNTRIES } from '../../src/catalog/countries.js';
import { JOBS, LEVELS } from '../../src/catalog/jobs.js';
import {
  ReleaseHeaderSchema,
  ReleaseRecordSchema,
  type ReleaseHeader,
  type ReleaseRecord,
} from '../../src/releases/format.js';
import { registerFormats, writeRelease } from '../../scripts/build-release.js';
import { loadOccupationEvidence } from '../../scripts/release-model/occupation-evidence.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const sourcesDir = join(root, 'sources');
const releasePath = join(root, 'releases', 'salary-2026.11.3.jsonl.gz');

const committed = readFileSync(releasePath);
const lines = gunzipSync(committed).toString('utf8').trimEnd().split('\n');
const header = JSON.parse(lines[0] ?? '{}') as ReleaseHeader;
const records = lines.slice(1).map((line) => JSON.parse(line) as ReleaseRecord);
const key = (r: Pick<ReleaseRecord, 'country' | 'job' | 'level' | 'year'>) => `${r.country}|${r.job}|${r.level}|${r.year}`;
const byKey = new Map(records.map((r) => [key(r), r]));
const years = Array.from({ length: 2026 - 2014 + 1 }, (_, i) => 2014 + i);

/**
 * Latest-vintage nama_10_fte means, read here independently of the build script. The first
 * five columns hold no commas; the 2021 rows are the first vintage and are not used.
 */
function publishedMeans(): { country: string; year: number; value: number }[] {
  const rows = readFileSync(join(sourcesDir, 'eurostat_nama_10_fte_avg_fulltime_salary_eur_2021_2024.csv'), 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((line) => line.split(','));
  const iso = new Map(COUNTRIES.map((c) => [c.eurostatCode, c.code]));
  return rows
    .filter(([, year, , unit, vintage]) => unit === 'EUR' && Number(year) >= 2022 && !vintage?.includes('first release'))
    .flatMap(([geo, year, value]) => {
      const country = iso.get(geo ?? '');
      return country ? [{ country, year: Number(year), value: Number(value) }] : [];
    });
}

describe('bundled data release', () => {
  it('covers every country, job, level and year exactly once', () => {
    assert.equal(records.length, 27 * 21 * 4 * 13);
    assert.equal(records.length, 29_484);
    assert.equal(header.record_count, records.length);
    assert.equal(byKey.size, records.length, 'duplicate (country, job, level, year)');
    for (const c of COUNTRIES)
      for (const j of JOBS)
        for (const level of LEVELS)
          for (const year of years) assert.ok(byKey.has(key({ country: c.code, job: j.slug, level, year })), `${c.code} ${j.slug} ${level} ${year}`);
  });

  it('validates against the release schemas', () => {
    registerFormats();
    assert.deepEqual([...Value.Errors(ReleaseHeaderSchema, header)].map((e) => `${e.path}: ${e.message}`), []);
    const invalid = records.filter((r) => !Value.Check(ReleaseRecordSchema, r));
    assert.deepEqual(invalid.slice(0, 3), []);
    assert.equal(header.first_year, 2014);
    assert.equal(header.current_year, 2026);
    assert.equal(header.last_published_year, 2024);
  });

  it('has weights that sum to 1 over the catalogue jobs and levels', () => {
    assert.deepEqual(Object.keys(header.job_weights), JOBS.map((j) => j.slug));
    assert.deepEqual(Object.keys(header.level_weights), [...LEVELS]);
    const sum = (o: Record<string, number>) => Object.values(o).reduce((s, w) => s + w, 0);
    assert.ok(Math.abs(sum(header.job_weights) - 1) < 1e-9);
    assert.ok(Math.abs(sum(header.level_weights) - 1) < 1e-9);
  });

  it('lists every file in sources/ as a source', () => {
    const files = readdirSync(sourcesDir).filter((f) => f.endsWith('.csv')).map((f) => f.replace(/\.csv$/, ''));
    assert.deepEqual(header.sources.map((s) => s.id).sort(), files.sort());
    for (const s of header.sources) assert.ok(readdirSync(sourcesDir).includes(`${s.id}.source.md`), s.id);
  });

  it('reproduces every published nama_10_fte country mean within 2 %', () => {
    const published = publishedMeans();
    assert.equal(published.length, 26 * 3, 'expected 26 countries × 2022-2024');
    for (const p of published) {
      let average = 0;
      for (const j of JOBS) {
        for (const level of LEVELS) {
          const r = byKey.get(key({ country: p.country, job: j.slug, level, year: p.year }));
          assert.ok(r);
          average += (header.job_weights[j.slug] ?? NaN) * (header.level_weights[level] ?? NaN) * r.mean;
        }
      }
      const diff = Math.abs(average / p.value - 1);
      assert.ok(diff < 0.02, `${p.country} ${p.year}: release ${average.toFixed(0)} vs published ${p.value}`);
    }
  });

  it('orders percentiles and keeps the median below the mean', () => {
    for (const r of records) {
      assert.ok(r.p10 < r.p25 && r.p25 < r.median && r.median < r.p75 && r.p75 < r.p90, key(r));
      assert.ok(r.median < r.mean, key(r));
    }
  });

  it('marks published years as published and later years as projected', () => {
    const published = new Set(publishedMeans().map((p) => `${p.country}|${p.year}`));
    for (const r of records) {
      if (r.year > header.last_published_year) {
        assert.equal(r.basis, 'projected', key(r));
        assert.notEqual(r.confidence, 'high', key(r));
      }
      if (r.year >= header.last_published_year + 2) assert.equal(r.confidence, 'low', key(r));
      assert.equal(r.basis === 'published', published.has(`${r.country}|${r.year}`), key(r));
    }
  });

  it('uses the currency of the year and 1 for the euro', () => {
    for (const r of records) if (r.local_currency === 'EUR') assert.equal(r.fx_rate, 1, key(r));
    assert.equal(byKey.get('BG|nurse|mid|2025')?.local_currency, 'BGN');
    assert.equal(byKey.get('BG|nurse|mid|2026')?.local_currency, 'EUR');
    assert.equal(byKey.get('HR|nurse|mid|2022')?.local_currency, 'HRK');
    assert.equal(byKey.get('HR|nurse|mid|2023')?.local_currency, 'EUR');
  });

  it('keeps the Destatis physician / nurse ratio of means in the served means', () => {
    // Read straight from the Destatis figures: physician 7,706 (April 2022), nurse 4,067 (April
    // 2023, moved to 2022 with nama growth); the served means must keep their ratio.
    const namaDe = (y: number) => publishedMeans().find((m) => m.country === 'DE' && m.year === y)?.value ?? NaN;
    const published = 7706 / (4067 / (namaDe(2023) / namaDe(2022)));
    const de = (j: string) => byKey.get(key({ country: 'DE', job: j, level: 'mid', year: 2026 }))?.mean ?? NaN;
    assert.ok(Math.abs(de('physician') / de('nurse') / published - 1) < 0.01, `DE physician/nurse ${de('physician') / de('nurse')}`);
    assert.ok(de('physician') > de('software-engineer') * 1.3);
  });

  it('keeps the CBS physician / nurse ratio of medians in the served medians', () => {
    // CBS 85517NED 2022: Artsen (1011) median 34.2 EUR an hour, gespecialiseerd verpleegkundigen (1012) 29.2.
    for (const level of LEVELS) {
      const nl = (j: string) => byKey.get(key({ country: 'NL', job: j, level, year: 2024 }))?.median ?? NaN;
      assert.ok(Math.abs(nl('physician') / nl('nurse') / (34.2 / 29.2) - 1) < 0.01, `NL ${level} ${nl('physician') / nl('nurse')}`);
    }
  });

  it('sets confidence by the evidence behind the record and names it', () => {
    const at = (country: string, job: string, year = 2024) => byKey.get(key({ country, job, level: 'mid', year }));
    assert.equal(at('DE', 'physician')?.confidence, 'high');
    assert.match(at('DE', 'physician')?.confidence_note ?? '', /Destatis.*Medical doctor.*published/);
    assert.equal(at('DE', 'physician', 2025)?.confidence, 'medium');
    assert.equal(at('DE', 'physician', 2026)?.confidence, 'low');
    assert.equal(at('DE', 'marketing-manager')?.confidence, 'medium');
    assert.match(at('DE', 'marketing-manager')?.confidence_note ?? '', /Eurostat SES 2022 ISCO group 1/);
    assert.equal(at('FR', 'physician')?.confidence, 'medium');
    assert.equal(at('PL', 'software-engineer')?.confidence, 'high');
    assert.match(at('AT', 'nurse')?.confidence_note ?? '', /Statistik Austria/);
    assert.equal(at('AT', 'crop-farmer')?.confidence, 'low', 'AT has no group 6 figure: borrowed from EU27');
    assert.match(at('AT', 'crop-farmer')?.confidence_note ?? '', /borrowed from EU27/);
    assert.equal(at('NL', 'nurse', 2022)?.confidence, 'medium', 'NL mean is converted from CBS pay per job, never published');
    for (const r of records.filter((x) => x.year < 2018)) assert.equal(r.confidence, 'low', key(r));
    for (const r of records) assert.ok(r.confidence_note.length > 20, key(r));
  });

  it('keeps full-time p10 at or above the statutory minimum wage of the year', () => {
    const evidence = loadOccupationEvidence(sourcesDir, 1, years);
    let checked = 0;
    for (const r of records) {
      const mw = evidence.minimumWage.get(r.country)?.get(r.year);
      if (mw === undefined) continue;
      assert.ok(r.p10 >= Math.floor(12 * mw), `${key(r)}: p10 ${r.p10} < 12 × ${mw}`);
      checked++;
    }
    assert.ok(checked > 15_000, `only ${checked} records have a minimum wage`);
    assert.equal(evidence.minimumWage.get('DE')?.get(2026), 2161);
    assert.equal(evidence.minimumWage.get('DE')?.get(2017), undefined);
  });

  it('is rebuilt byte for byte from sources/', () => {
    const dir = mkdtempSync(join(tmpdir(), 'salary-release-'));
    try {
      const first = join(dir, 'a.jsonl.gz');
      const second = join(dir, 'b.jsonl.gz');
      writeRelease(sourcesDir, first);
      writeRelease(sourcesDir, second);
      const a = readFileSync(first);
      assert.ok(a.equals(readFileSync(second)), 'two builds differ');
      assert.equal(gunzipSync(a).toString('utf8'), gunzipSync(committed).toString('utf8'), 'content drifted: rebuild the release');
      assert.ok(a.equals(committed), 'same content, different gzip bytes (zlib changed?): rebuild the release');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
