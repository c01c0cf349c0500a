import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import type { ReleaseHeader, ReleaseRecord } from '../../src/releases/format.js';
import { buildRelease, DEFAULT_OUT, withValidationSection } from '../../scripts/build-release.js';
import { gap, validateRelease, validationMarkdown } from '../../scripts/release-model/validation.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const lines = gunzipSync(readFileSync(DEFAULT_OUT)).toString('utf8').trimEnd().split('\n');
const header = JSON.parse(lines[0] ?? '{}') as ReleaseHeader;
const records = lines.slice(1).map((line) => JSON.parse(line) as ReleaseRecord);
// The tables and the leave-one-out come from a fresh build; the served figures from the bundled file.
const { model } = buildRelease();
const report = validateRelease(header, records, model);

/** Leave-one-out error of the release before this one (its docs/validation.md figure). */
const baseline = JSON.parse(readFileSync(join(root, 'test/data/loo-baseline.json'), 'utf8')) as {
  release: string;
  loo_mean_abs_error: number;
};

describe('validation of the bundled release against the tables it uses', () => {
  it('serves every table row within 15 % of the published ratio, in the statistic the table publishes', () => {
    assert.ok(report.tableRows.length >= 250, `only ${report.tableRows.length} rows`);
    const off = report.tableRows.filter((r) => Math.abs(gap(r)) > 0.15);
    assert.deepEqual(
      off.map((r) => `${r.country} ${r.table} ${r.row}: ${r.published.toFixed(3)} vs ${r.served.toFixed(3)}`),
      [],
    );
    for (const statistic of ['mean', 'median']) assert.ok(report.tableRows.some((r) => r.statistic === statistic));
  });

  it('serves every ratio between two rows of a table within 15 % of the published ratio', () => {
    // Stricter than the rows one by one: physician / nurse in NL read as means gives 18 % here.
    const tables = new Map<string, (typeof report.tableRows)[number][]>();
    for (const r of report.tableRows) {
      const name = `${r.country} ${r.table}`;
      tables.set(name, [...(tables.get(name) ?? []), r]);
    }
    const off: string[] = [];
    for (const [table, rows] of tables)
      for (const a of rows)
        for (const b of rows) {
          const ratio = a.served / b.served / (a.published / b.published);
          if (Math.abs(ratio - 1) > 0.15) off.push(`${table}: ${a.row} / ${b.row} ${ratio.toFixed(3)}`);
        }
    assert.deepEqual(off, []);
  });

  it('has a leave-one-country-out error no worse than the previous release', () => {
    assert.ok(report.looOverall.n >= 50);
    assert.ok(
      report.looOverall.model <= baseline.loo_mean_abs_error,
      `${(100 * report.looOverall.model).toFixed(1)} % against ${(100 * baseline.loo_mean_abs_error).toFixed(1)} % in ${baseline.release}`,
    );
    assert.ok(report.looOverall.model < report.looOverall.prior, 'the pooled model must beat the group structure alone');
  });

  it('keeps the served country means within 2 % of Eurostat', () => {
    assert.equal(report.countryMeans.length, 26 * 3);
    for (const r of report.countryMeans) assert.ok(Math.abs(gap(r)) < 0.02, `${r.country} ${r.year}`);
  });

  it('publishes the same validation in docs/validation.md', () => {
    const doc = readFileSync(join(root, 'docs/validation.md'), 'utf8');
    assert.equal(doc, validationMarkdown(header, report), 'docs/validation.md is stale: run npm run data:build');
    assert.doesNotMatch(doc, /scripts\/|sources\/|npm |npx /, 'no repository paths or commands');
    const data = readFileSync(join(root, 'docs/data.md'), 'utf8');
    assert.equal(data, withValidationSection(data, doc), 'the copy in docs/data.md is stale: run npm run data:build');
  });
});
