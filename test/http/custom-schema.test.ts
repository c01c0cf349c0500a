import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parse } from 'csv-parse/sync';
import { parquetReadObjects } from 'hyparquet';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { accountOnPlan } from '../helpers/accounts.js';

describe('custom response schemas (Enterprise)', () => {
  let t: TestApp;
  let ent: Awaited<ReturnType<typeof accountOnPlan>>;
  let biz: Awaited<ReturnType<typeof accountOnPlan>>;
  before(async () => {
    t = await buildTestApp();
    ent = await accountOnPlan(t, 'enterprise');
    biz = await accountOnPlan(t, 'business');
  });
  after(() => t.close());

  const call = (method: 'GET' | 'PUT' | 'DELETE', url: string, token: string, payload?: object) =>
    t.app.inject({ method, url, payload, headers: { authorization: `Bearer ${token}` } });
  const schema = {
    fields: [
      { field: 'country', name: 'Land' },
      { field: 'job_title', name: 'Beruf' },
      { field: 'level', name: 'Stufe' },
      { field: 'median', name: 'Median_EUR' },
      { field: 'local_median', name: 'Median_local' },
    ],
  };

  it('is Enterprise only; Business gets 403 naming it', async () => {
    const res = await call('PUT', '/api/v1/account/schema', biz.session, schema);
    assert.equal(res.statusCode, 403);
    assert.equal(res.json().required_plan, 'enterprise');
  });

  it('rejects unknown fields and bad or duplicate names, listing what may be chosen', async () => {
    const bad = await call('PUT', '/api/v1/account/schema', ent.session, {
      fields: [
        { field: 'salary', name: 'x' },
        { field: 'median', name: '1bad' },
        { field: 'p25', name: 'x' },
      ],
    });
    assert.equal(bad.statusCode, 400);
    assert.match(bad.json().detail, /unknown field salary/);
    assert.ok(bad.json().invalid_params[0].allowed.includes('median'));
  });

  it('renames and chooses the fields in JSON, CSV and Parquet; DELETE restores the standard', async () => {
    assert.equal(
      (await call('PUT', '/api/v1/account/schema', ent.session, schema)).statusCode,
      200,
    );
    const url = '/api/v1/salary?country=SE&job=electrician&level=lead';
    const json = (await call('GET', url, ent.apiKey!)).json();
    assert.deepEqual(Object.keys(json.data[0]), [
      'Land',
      'Beruf',
      'Stufe',
      'Median_EUR',
      'Median_local',
    ]);
    assert.equal(json.data[0].Land, 'SE');
    assert.equal(json.data[0].Beruf, 'Electrician');
    assert.ok(json.data[0].Median_local > json.data[0].Median_EUR * 9, 'SEK');
    assert.equal(json.meta.release.version, '2026.11.8');
    const csv: Record<string, string>[] = parse(
      (await call('GET', `${url}&format=csv`, ent.apiKey!)).body,
      { columns: true },
    );
    assert.deepEqual(Object.keys(csv[0]!), [
      'Land',
      'Beruf',
      'Stufe',
      'Median_EUR',
      'Median_local',
    ]);
    const pq = (await call('GET', `${url}&format=parquet`, ent.apiKey!)).rawPayload;
    const rows = await parquetReadObjects({
      file: pq.buffer.slice(pq.byteOffset, pq.byteOffset + pq.byteLength) as ArrayBuffer,
    });
    assert.equal(rows[0]!.Median_EUR, json.data[0].Median_EUR);
    const bulk = (
      await call('GET', '/api/v1/bulk/countries?job=electrician&level=lead', ent.apiKey!)
    ).json();
    assert.equal(bulk.data.length, 27);
    assert.deepEqual(Object.keys(bulk.data[0]), [
      'Land',
      'Beruf',
      'Stufe',
      'Median_EUR',
      'Median_local',
    ]);
    assert.equal((await call('DELETE', '/api/v1/account/schema', ent.session)).statusCode, 200);
    assert.equal((await call('GET', url, ent.apiKey!)).json().data[0].country, 'SE');
  });
});
