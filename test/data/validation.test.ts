import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { COUNTRIES } from '../../src/catalog/countries.js';
import { JOBS, LEVELS } from '../../src/catalog/jobs.js';
import {
  buildRelease,
  DEFAULT_OUT,
  PREVIOUS_RELEASE,
  readRelease,
  withValidationSection,
} from '../../scripts/build-release.js';
import {
  CLASS_PRIOR_PREDICTIONS,
  EVIDENCE_CLASSES,
  HIGH_MAX_ERROR,
  MEDIUM_MAX_ERROR,
  classErrors,
} from '../../scripts/release-model/confidence.js';
import { EVIDENCE_TABLES } from '../../scripts/release-model/evidence-tables.js';
import { HELD_OUT } from '../../scripts/release-model/holdout.js';
import {
  DECILE_TOLERANCE,
  DECILE_UNREACHED,
  HELD_OUT_TARGET,
  ROW_TOLERANCE,
  asJobFigures,
  validateRelease,
  validationMarkdown,
} from '../../scripts/release-model/validation.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const { header, records } = readRelease(DEFAULT_OUT);
// The model comes from a fresh build; the served figures from the bundled file.
const { model, confidence } = buildRelease();
const report = validateRelease(header, records, model, confidence, readRelease(PREVIOUS_RELEASE));

describe('the bundled release against published figures the fit never saw', () => {
  it('keeps a held-out set of at least 40 figures from at least 12 countries, apart from the fit', () => {
    assert.ok(report.heldOut.length >= 40, `${report.heldOut.length} figures`);
    assert.ok(report.heldOutCountries >= 12, `${report.heldOutCountries} countries`);
    for (const r of model.fitRows) assert.ok(!HELD_OUT.has(r.row.source), `${r.id} is held out but fitted`);
    for (const r of model.heldOutRows) assert.ok(HELD_OUT.has(r.row.source), r.id);
  });

  it('serves the held-out figures within 10 % (median absolute error)', () => {
    assert.ok(report.heldOutError <= HELD_OUT_TARGET, `${(100 * report.heldOutError).toFixed(1)} %`);
  });

  it('keeps each confidence label’s promise on the held-out set and leaving each country out', () => {
    for (const l of report.labels) {
      const limit = l.label === 'high' ? HIGH_MAX_ERROR : l.label === 'medium' ? MEDIUM_MAX_ERROR : Infinity;
      if (l.heldOut.n > 0) assert.ok(l.heldOut.error <= limit, `${l.label}: held-out ${l.heldOut.error}`);
      if (l.loco.n > 0) assert.ok(l.loco.error <= limit, `${l.label}: leave one country out ${l.loco.error}`);
    }
    assert.ok(report.labels.some((l) => l.label === 'high' && l.heldOut.n >= 10));
    assert.ok(report.labels.some((l) => l.label === 'medium' && l.heldOut.n >= 10));
  });

  it('labels every record by the measured error of its evidence and year', () => {
    for (const r of records) {
      const cls = confidence.classOf(r.country, r.job);
      const time = confidence.timeOf(r.country, r.year);
      assert.equal(r.confidence, confidence.labelOf(cls, time, r.job), `${r.country} ${r.job} ${r.level} ${r.year}`);
      assert.match(r.confidence_note, /typical error \d+ %/);
    }
  });

  it('shrinks a class measured on few predictions towards the class below, and never states it less sure', () => {
    const k = CLASS_PRIOR_PREDICTIONS;
    const few = classErrors({ 'own-unit': 0.02, 'own-broad': 0.06, pooled: 0.1 }, { 'own-unit': 10, 'own-broad': 30, pooled: 150 });
    const broad = (30 * 0.06 + k * 0.1) / (30 + k);
    assert.ok(Math.abs(few['own-broad'] - broad) < 1e-12, String(few['own-broad']));
    assert.ok(Math.abs(few['own-unit'] - (10 * 0.02 + k * broad) / (10 + k)) < 1e-12, String(few['own-unit']));
    assert.equal(few.pooled, 0.1);
    // A class measured worse than the class below states the class below's error.
    const worse = classErrors({ 'own-unit': 0.12, 'own-broad': 0.15, pooled: 0.1 }, { 'own-unit': 40, 'own-broad': 9, pooled: 150 });
    assert.deepEqual(worse, { 'own-unit': 0.1, 'own-broad': 0.1, pooled: 0.1 });
    // Without predictions a class takes the class below's error; with many, nearly its own.
    const none = classErrors({ 'own-unit': NaN, 'own-broad': NaN, pooled: 0.1 }, { 'own-unit': 0, 'own-broad': 0, pooled: 150 });
    assert.deepEqual(none, { 'own-unit': 0.1, 'own-broad': 0.1, pooled: 0.1 });
    const many = classErrors({ 'own-unit': 0.03, 'own-broad': 0.1, pooled: 0.1 }, { 'own-unit': 2000, 'own-broad': 100, pooled: 150 });
    assert.ok(many['own-unit'] < 0.031, String(many['own-unit']));

    // The bundled release states what the rule gives for its own measurements.
    const stated = classErrors(confidence.classMeasured, confidence.classCount);
    for (const cls of EVIDENCE_CLASSES) assert.equal(confidence.classError[cls], stated[cls], cls);
    assert.ok(confidence.classError['own-unit'] <= confidence.classError['own-broad']);
    assert.ok(confidence.classError['own-broad'] <= confidence.classError.pooled);
    assert.ok(confidence.classCount['own-unit'] < 2 * k, 'own-unit is measured on few predictions');
    assert.ok(confidence.classError['own-unit'] > confidence.classMeasured['own-unit'] + 0.01, 'own-unit is not shrunk');
    const unit = records.find((r) => confidence.classOf(r.country, r.job) === 'own-unit' && confidence.timeOf(r.country, r.year) === 'published');
    assert.ok(unit);
    const typical = Math.round(100 * confidence.combined('own-unit', 'published'));
    assert.match(unit.confidence_note, new RegExp(`typical error ${typical} %$`));
  });

  it('counts distance from a published mean: a series year, then one and two projected years', () => {
    for (const c of COUNTRIES) {
      const last = model.series.lastPublishedYear.get(c.code) ?? NaN;
      assert.equal(confidence.timeOf(c.code, last + 1), 'projected-1', c.code);
      if (last + 2 <= header.current_year) assert.equal(confidence.timeOf(c.code, last + 2), 'projected-2', c.code);
      if (c.code !== 'NL') {
        assert.equal(confidence.timeOf(c.code, 2022), 'published', c.code);
        assert.equal(confidence.timeOf(c.code, 2016), 'series', c.code);
      }
    }
    const e = confidence.timeError;
    assert.ok(e.published === 0 && e.series > 0 && e['projected-1'] > 0 && e['projected-2'] >= e['projected-1'] * 0.5);
    // More distance never buys a better label.
    for (const cls of ['own-unit', 'own-broad', 'pooled'] as const) {
      const rank = { high: 0, medium: 1, low: 2 };
      assert.ok(rank[confidence.labelOf(cls, 'published')] <= rank[confidence.labelOf(cls, 'series')]);
      assert.ok(confidence.combined(cls, 'projected-2') >= confidence.combined(cls, 'published'));
    }
  });
});

describe('the bundled release against the tables it was fitted on', () => {
  it('lands within 5 % of nearly every job figure of the tables used, in the table’s own statistic, and within 10 % of all', () => {
    assert.ok(report.tableRows.length >= 100, `only ${report.tableRows.length} rows`);
    const within = report.jobFigures.filter((r) => Math.abs(r.error) <= ROW_TOLERANCE).length;
    assert.ok(within / report.jobFigures.length >= 0.98, `${within} of ${report.jobFigures.length}`);
    const far = report.jobFigures.filter((r) => Math.abs(r.error) > 2 * ROW_TOLERANCE);
    assert.deepEqual(far.map((r) => `${r.country} ${r.job} ${r.table} ${r.refPeriod}`), []);
  });

  it('gives one job figure per job, table, period and statistic: the geometric mean of a job’s parts', () => {
    const base = { source: 'cz_ispv', country: 'CZ', job: 'software-engineer', table: 'T', refPeriod: '2025-H1', statistic: 'median' };
    const figures = asJobFigures([
      { ...base, row: '2512', published: 100, served: 96, error: -0.04 },
      { ...base, row: '2514', published: 81, served: 96, error: 96 / 81 - 1 },
      { ...base, statistic: 'mean', row: '2512', published: 110, served: 105, error: 105 / 110 - 1 },
    ]);
    assert.equal(figures.length, 2);
    assert.equal(figures[0]?.row, '2512 + 2514');
    assert.ok(Math.abs((figures[0]?.published ?? 0) - 90) < 1e-9);
    assert.ok(Math.abs((figures[0]?.error ?? 0) - (96 / 90 - 1)) < 1e-9);
    assert.equal(figures[1]?.row, '2512');
    assert.ok(report.jobFigures.length < report.tableRows.length, 'the bundled release has split jobs');
  });

  it('converts a table of one sector through that sector’s place in the economy, as the economy’s own table publishes it', () => {
    const linked = EVIDENCE_TABLES.filter((t) => t.sectorShare);
    assert.ok(linked.some((t) => t.source === 'fi_tilastokeskus_kuntasektorin_palkat_2022'));
    for (const t of linked) {
      const link = t.sectorShare!;
      const of = model.rows.filter((r) => r.source === link.source && r.refPeriod === link.refPeriod && r.statistic === 'median');
      const sector = of.find((r) => link.sector.test(r.rowLabel));
      const economy = of.find((r) => r.jobs.includes('total'));
      assert.ok(sector && economy, t.source);
      const rows = model.evidence.rows.filter((r) => r.table === t);
      assert.ok(rows.length > 0, t.source);
      for (const r of rows) {
        const rho = model.evidence.medianRatio.get(r.row.country)?.ratio ?? NaN;
        const ownTotalOnly = model.series.lnMeanAt(r.total.country, r.total.time) + Math.log(rho) - Math.log(r.total.value);
        assert.ok(Math.abs(r.lnFactor - ownTotalOnly - Math.log(sector.value / economy.value)) < 1e-12, r.id);
      }
    }
    // Finland's municipalities sit below the economy's median (2,960 against 3,217 in 2020).
    const fi = model.evidence.sectorShares.get('fi_tilastokeskus_kuntasektorin_palkat_2022 median');
    assert.ok(fi && Math.abs(fi.share - 2960 / 3217) < 1e-12, JSON.stringify(fi));
  });

  it('maps every row it uses to its job’s ISCO-08 definition', () => {
    for (const r of model.evidence.rows) {
      const job = JOBS.find((j) => j.slug === r.job);
      assert.ok(job, r.id);
      if (r.row.isco.length > 0) assert.ok(r.row.isco.some((c) => c.startsWith(job.iscoCode[0] ?? '')), `${r.id}: ${r.row.isco.join(';')}`);
    }
    for (const j of JOBS) assert.equal(j.iscoCodes[0], j.iscoCode);
    for (const t of EVIDENCE_TABLES) assert.ok(model.rows.some((r) => r.source === t.source), t.source);
  });

  it('keeps every full-time percentile at or above the statutory minimum wage, which rises with the law', () => {
    assert.deepEqual(report.minimumWage.below, []);
    assert.deepEqual(report.minimumWage.flat, []);
    assert.ok(report.minimumWage.checked > 20_000, `${report.minimumWage.checked} records checked`);
    const statutory = COUNTRIES.filter((c) => !['AT', 'DK', 'FI', 'IT', 'SE'].includes(c.code));
    for (const c of statutory) {
      const from = c.code === 'DE' ? 2015 : c.code === 'CY' ? 2023 : 2014;
      for (let y = from; y <= header.current_year; y++)
        assert.ok(model.minimumWages.annual.get(c.code)?.has(y), `${c.code} ${y}: no minimum wage`);
    }
    // Germany's minimum wage rose on 1 October 2022: 2022 weighs it by months.
    const de = model.minimumWages.annual.get('DE');
    assert.ok(de && (de.get(2022) ?? 0) > (de.get(2021) ?? 0) && (de.get(2023) ?? 0) > (de.get(2022) ?? 0));
  });

  it('reproduces each published decile ratio D9/D1 within 10 %, each country’s grid weighed by its own employees, except where the sources say it cannot', () => {
    assert.ok(report.deciles.length >= 13);
    const off = report.deciles.filter((d) => Math.abs(d.served / d.published - 1) > DECILE_TOLERANCE).map((d) => d.country);
    assert.deepEqual(off.sort(), Object.keys(DECILE_UNREACHED).sort());
  });

  it('publishes a seniority profile per job, increasing from junior to lead', () => {
    const spreads = new Set<string>();
    for (const s of report.seniority) {
      for (let i = 1; i < LEVELS.length; i++)
        assert.ok((s.ratios[LEVELS[i] ?? ''] ?? 0) > (s.ratios[LEVELS[i - 1] ?? ''] ?? 0), s.job);
      spreads.add(((s.ratios.lead ?? 0) / (s.ratios.junior ?? 1)).toFixed(2));
    }
    assert.ok(spreads.size >= 8, 'jobs share one seniority profile');
    const ratio = (job: string) => {
      const s = report.seniority.find((x) => x.job === job);
      return (s?.ratios.lead ?? NaN) / (s?.ratios.junior ?? NaN);
    };
    assert.ok(ratio('physician') > ratio('nurse'), 'doctors climb further than nurses');
  });

  it('serves jobs in the order their countries’ own tables publish them', () => {
    for (const o of report.order) {
      if (Math.abs(o.published - 1) < 0.1) continue;
      assert.equal(o.served > 1, o.published > 1, `${o.country} ${o.pair}: published ${o.published}, served ${o.served}`);
    }
  });

  it('publishes the same validation in docs/validation.md', () => {
    const doc = readFileSync(join(root, 'docs/validation.md'), 'utf8');
    assert.equal(doc, validationMarkdown(header, report), 'docs/validation.md is stale: run npm run data:build');
    assert.doesNotMatch(doc, /scripts\/|sources\/|npm |npx /, 'no repository paths or commands');
    const data = readFileSync(join(root, 'docs/data.md'), 'utf8');
    assert.equal(data, withValidationSection(data, doc), 'the copy in docs/data.md is stale: run npm run data:build');
  });
});
