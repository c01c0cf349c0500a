import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Spectral, Document } from '@stoplight/spectral-core';
import { oas } from '@stoplight/spectral-rulesets';
import spectralParsers from '@stoplight/spectral-parsers';
import { buildTestApp, type TestApp } from '../helpers/app.js';

describe('catalogue, operations and API description', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(() => t.close());

  it('lists the 27 EU countries with names, native names and currencies', async () => {
    const res = await t.app.inject('/api/v1/countries');
    assert.equal(res.statusCode, 200);
    const { data } = res.json();
    assert.equal(data.length, 27);
    const byCode = new Map(data.map((c: { code: string }) => [c.code, c]));
    assert.deepEqual(byCode.get('AT'), {
      code: 'AT',
      name: 'Austria',
      native_name: 'Österreich',
      currency: 'EUR',
      eurostat_code: 'AT',
    });
    assert.equal((byCode.get('GR') as { eurostat_code: string }).eurostat_code, 'EL');
    assert.equal((byCode.get('BG') as { currency: string }).currency, 'EUR');
    assert.equal((byCode.get('SE') as { currency: string }).currency, 'SEK');
    assert.ok(res.headers['x-ratelimit-remaining'] !== undefined, 'core endpoints are limited');
  });

  it('lists the 21 jobs with ISCO-08 codes, covering every major group, and the levels', async () => {
    const { data, levels } = (await t.app.inject('/api/v1/jobs')).json();
    assert.equal(data.length, 21);
    assert.deepEqual(
      new Set(data.map((j: { isco_major_group: number }) => j.isco_major_group)),
      new Set([1, 2, 3, 4, 5, 6, 7, 8, 9]),
    );
    for (const job of data) assert.match(job.isco_code, /^[1-9]\d{3}$/);
    assert.deepEqual(
      levels.map((l: { id: string }) => l.id),
      ['junior', 'mid', 'senior', 'lead'],
    );
  });

  it('reports health and readiness', async () => {
    assert.deepEqual((await t.app.inject('/health')).json(), { status: 'ok' });
    const ready = (await t.app.inject('/ready')).json();
    assert.equal(ready.status, 'ready');
    assert.equal(ready.release, '2026.11.8');
  });

  it('serves the methodology as Markdown', async () => {
    const res = await t.app.inject('/methodology.md');
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^text\/markdown/);
    assert.match(res.body, /modelled/i);
  });

  it('serves an OpenAPI 3.1 document generated from the route schemas, clean under spectral:oas', async () => {
    const res = await t.app.inject('/api/v1/openapi.json');
    assert.equal(res.statusCode, 200);
    const spec = res.json();
    assert.equal(spec.openapi, '3.1.0');
    const params = spec.paths['/api/v1/salary'].get.parameters.map((p: { name: string }) => p.name);
    assert.deepEqual(params.sort(), [
      'as_of',
      'country',
      'fields',
      'format',
      'job',
      'level',
      'release',
      'year',
    ]);
    const level = spec.paths['/api/v1/salary'].get.parameters.find(
      (p: { name: string }) => p.name === 'level',
    );
    assert.deepEqual(level.schema.enum, ['junior', 'mid', 'senior', 'lead']);
    const spectral = new Spectral();
    spectral.setRuleset(oas as never);
    const results = await spectral.run(
      new Document(res.body, spectralParsers.Json, 'openapi.json'),
    );
    const problems = results
      .filter((r) => Number(r.severity) <= 1)
      .map((r) => `${r.code}: ${r.message} at ${r.path.join('.')}`);
    assert.deepEqual(problems, []);
  });

  it('serves the interactive docs page', async () => {
    const res = await t.app.inject('/docs/');
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /API reference/);
  });
});
