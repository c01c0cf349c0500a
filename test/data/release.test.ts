import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { Value } from '@sinclair/typebox/value';
import { COUNTRIES } from '../../src/catalog/countries.js';
import { JOBS, LEVELS } from '../../src/catalog/jobs.js';
import { ReleaseHeaderSchema, ReleaseRecordSchema, type ReleaseHeader, type ReleaseRecord } from '../../src/releases/format.js';
import { parseRelease } from '../../src/releases/parse.js';
import {
  DEFAULT_OUT,
  DEFAULT_SOURCES_DIR,
  readRelease,
  registerFormats,
  writeRelease,
} from '../../scripts/build-release.js';

const committed = readFileSync(DEFAULT_OUT);
const { header, records } = readRelease(DEFAULT_OUT);
const key = (r: Pick<ReleaseRecord, 'country' | 'job' | 'level' | 'year'>) => `${r.country}|${r.job}|${r.level}|${r.year}`;
const byKey = new Map(records.map((r) => [key(r), r]));
const years = Array.from({ length: 2026 - 2014 + 1 }, (_, i) => 2014 + i);

/** Latest-vintage nama_10_fte means, read here independently of the build script. */
function publishedMeans(): { country: string; year: number; value: number }[] {
  const rows = readFileSync(join(DEFAULT_SOURCES_DIR, 'eurostat_nama_10_fte_avg_fulltime_salary_eur_2021_2024.csv'), 'utf8')
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
  });

  it('has weights that sum to 1 over the catalogue jobs and levels', () => {
    assert.deepEqual(Object.keys(header.job_weights), JOBS.map((j) => j.slug));
    assert.deepEqual(Object.keys(header.level_weights), [...LEVELS]);
    const sum = (o: Record<string, number>) => Object.values(o).reduce((s, w) => s + w, 0);
    assert.ok(Math.abs(sum(header.job_weights) - 1) < 1e-9);
    assert.ok(Math.abs(sum(header.level_weights) - 1) < 1e-9);
    const countries = header.country_job_weights ?? {};
    assert.deepEqual(Object.keys(countries).sort(), COUNTRIES.map((c) => c.code).sort());
    for (const [country, weights] of Object.entries(countries)) {
      assert.deepEqual(Object.keys(weights), JOBS.map((j) => j.slug), country);
      assert.ok(Math.abs(sum(weights) - 1) < 1e-9, country);
    }
    // Each country weighs its jobs by its own employees: Finland and Portugal differ from Bulgaria.
    assert.notDeepEqual(countries.FI, header.job_weights);
    assert.notDeepEqual(countries.PT, countries.FI);
  });

  it('refuses a header whose country weights name other jobs or do not sum to 1', () => {
    const text = gunzipSync(readFileSync(DEFAULT_OUT)).toString('utf8');
    const lines = text.split('\n');
    const head = JSON.parse(lines[0]!) as ReleaseHeader;
    const broken = (weights: Record<string, number>) =>
      [JSON.stringify({ ...head, country_job_weights: { ...head.country_job_weights, FI: weights } }), ...lines.slice(1)].join('\n');
    const missing = Object.fromEntries(Object.entries(head.country_job_weights!.FI!).filter(([job]) => job !== 'cleaner'));
    assert.throws(() => parseRelease(broken(missing)), /country_job_weights\.FI" must have exactly the jobs/);
    const doubled = Object.fromEntries(Object.entries(head.country_job_weights!.FI!).map(([j, w]) => [j, w / 2]));
    assert.throws(() => parseRelease(broken(doubled)), /country_job_weights\.FI" must sum to 1/);
  });

  it('lists every file in sources/ as a source, each with its .source.md, publisher and use', () => {
    const files = readdirSync(DEFAULT_SOURCES_DIR).filter((f) => f.endsWith('.csv')).map((f) => f.replace(/\.csv$/, ''));
    assert.deepEqual(header.sources.map((s) => s.id).sort(), files.sort());
    for (const s of header.sources) {
      assert.ok(readdirSync(DEFAULT_SOURCES_DIR).includes(`${s.id}.source.md`), s.id);
      assert.ok(s.publisher.length > 3, `${s.id}: publisher`);
      assert.ok(s.used_for.length > 10, `${s.id}: used for`);
    }
  });

  it('orders percentiles, keeps the median below the mean and the levels of a job increasing', () => {
    for (const r of records) {
      assert.ok(r.p10 < r.p25 && r.p25 < r.median && r.median < r.p75 && r.p75 < r.p90, key(r));
      assert.ok(r.median < r.mean, key(r));
    }
    for (const c of COUNTRIES)
      for (const j of JOBS)
        for (const year of years) {
          const means = LEVELS.map((level) => byKey.get(key({ country: c.code, job: j.slug, level, year }))?.mean ?? NaN);
          for (let i = 1; i < means.length; i++) assert.ok((means[i] ?? NaN) > (means[i - 1] ?? NaN), `${c.code} ${j.slug} ${year}: ${means.join(' < ')}`);
        }
  });

  it('marks the years of a published country mean as published and later years as projected', () => {
    const published = new Set(publishedMeans().map((p) => `${p.country}|${p.year}`));
    assert.equal(published.size, 26 * 3);
    for (const r of records) {
      if (r.year > header.last_published_year) assert.equal(r.basis, 'projected', key(r));
      assert.equal(r.basis === 'published', published.has(`${r.country}|${r.year}`), key(r));
    }
  });

  it('says in the note of a projected year where it is projected from, by which series and growth', () => {
    const projected = records.filter((r) => r.basis === 'projected');
    assert.ok(projected.length >= 27 * 21 * 4, 'every current-year record is projected');
    const pattern = /; mean projected to (\d{4}) from (\d{4}) \((Eurostat nama_10_fte|CBS)\) at \+\d+\.\d % a year; typical error \d+ %$/;
    for (const r of projected) {
      const m = pattern.exec(r.confidence_note);
      assert.ok(m, `${key(r)}: ${r.confidence_note}`);
      assert.equal(Number(m[1]), r.year, key(r));
      assert.ok(Number(m[2]) < r.year, key(r));
      // The year projected from is the country's last published one: its records are not projected.
      assert.notEqual(byKey.get(key({ ...r, year: Number(m[2]) }))?.basis, 'projected', key(r));
      assert.equal(m[3] === 'CBS', r.country === 'NL', key(r));
    }
    const de = byKey.get('DE|software-engineer|mid|2026')!;
    assert.match(de.confidence_note, /mean projected to 2026 from 2024 \(Eurostat nama_10_fte\) at \+5\.8 % a year/);
  });

  it('uses the currency of the year and 1 for the euro', () => {
    for (const r of records) if (r.local_currency === 'EUR') assert.equal(r.fx_rate, 1, key(r));
    assert.equal(byKey.get('BG|nurse|mid|2025')?.local_currency, 'BGN');
    assert.equal(byKey.get('BG|nurse|mid|2025')?.fx_rate, 1.95583);
    assert.equal(byKey.get('BG|nurse|mid|2026')?.local_currency, 'EUR');
    assert.equal(byKey.get('HR|nurse|mid|2022')?.local_currency, 'HRK');
    assert.equal(byKey.get('HR|nurse|mid|2023')?.local_currency, 'EUR');
    assert.equal(byKey.get('LT|nurse|mid|2014')?.local_currency, 'LTL');
  });

  it('converts at the ECB average of each year: full years when finished, the current year to its last fixing', () => {
    // The ECB daily file, read here independently of the build script.
    const [head = '', ...lines] = readFileSync(join(DEFAULT_SOURCES_DIR, 'ecb_eurofxref_hist_2014_2026.csv'), 'utf8').trim().split('\n');
    const columns = head.split(',');
    const fixings = (currency: string, year: number) =>
      lines
        .map((line) => line.split(','))
        .filter((cells) => cells[0]?.startsWith(`${year}-`) && cells[columns.indexOf(currency)] !== 'N/A')
        .map((cells) => ({ date: cells[0] ?? '', rate: Number(cells[columns.indexOf(currency)]) }));
    const average = (xs: { rate: number }[]) => xs.reduce((sum, x) => sum + x.rate, 0) / xs.length;
    assert.equal(fixings('SEK', 2025).at(-1)?.date, '2025-12-31');
    assert.ok(fixings('SEK', 2026).length > 0);
    for (const [country, currency] of [
      ['CZ', 'CZK'],
      ['DK', 'DKK'],
      ['HU', 'HUF'],
      ['PL', 'PLN'],
      ['RO', 'RON'],
      ['SE', 'SEK'],
    ] as const) {
      for (const year of [2024, 2025, 2026]) {
        const served = byKey.get(`${country}|nurse|mid|${year}`)?.fx_rate ?? NaN;
        const expected = average(fixings(currency, year));
        assert.ok(Math.abs(served / expected - 1) < 1e-12, `${country} ${year}: ${served} against ${expected}`);
      }
      const [y25, y26] = [2025, 2026].map((y) => byKey.get(`${country}|nurse|mid|${y}`)?.fx_rate);
      assert.notEqual(y26, y25, `${country}: 2026 has its own average`);
    }
  });

  it('moves a local-currency series with its country, not with the exchange rate', () => {
    // Poland's złoty figures follow the national series; the EUR figures carry the rate.
    const pl = (y: number) => byKey.get(`PL|nurse|mid|${y}`);
    const a = pl(2021);
    const b = pl(2022);
    assert.ok(a && b);
    const localGrowth = (b.mean * b.fx_rate) / (a.mean * a.fx_rate);
    const eurGrowth = b.mean / a.mean;
    assert.notEqual(localGrowth.toFixed(3), eurGrowth.toFixed(3));
  });

  it('is rebuilt byte for byte from sources/', () => {
    const dir = mkdtempSync(join(tmpdir(), 'salary-release-'));
    try {
      const first = join(dir, 'a.jsonl.gz');
      const second = join(dir, 'b.jsonl.gz');
      writeRelease(DEFAULT_SOURCES_DIR, first);
      writeRelease(DEFAULT_SOURCES_DIR, second);
      const a = readFileSync(first);
      assert.ok(a.equals(readFileSync(second)), 'two builds differ');
      assert.equal(gunzipSync(a).toString('utf8'), gunzipSync(committed).toString('utf8'), 'content drifted: rebuild the release');
      assert.ok(a.equals(committed), 'same content, different gzip bytes (zlib changed?): rebuild the release');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
