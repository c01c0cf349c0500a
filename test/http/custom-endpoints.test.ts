import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Spectral, Document } from '@stoplight/spectral-core';
import { oas } from '@stoplight/spectral-rulesets';
import spectralParsers from '@stoplight/spectral-parsers';
import { parse } from 'csv-parse/sync';
import { parquetReadObjects } from 'hyparquet';
import ExcelJS from 'exceljs';
import { XMLParser } from 'fast-xml-parser';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { accountOnPlan, ENTERPRISE_CONTRACT } from '../helpers/accounts.js';
import { operatorPrincipal } from '../../src/billing/index.js';

describe('custom endpoints (Enterprise)', () => {
  let t: TestApp;
  let ent: Awaited<ReturnType<typeof accountOnPlan>>;
  let other: Awaited<ReturnType<typeof accountOnPlan>>;
  let biz: Awaited<ReturnType<typeof accountOnPlan>>;
  before(async () => {
    t = await buildTestApp();
    ent = await accountOnPlan(t, 'enterprise', { ...ENTERPRISE_CONTRACT, request_limit: 10_000 });
    other = await accountOnPlan(t, 'enterprise');
    biz = await accountOnPlan(t, 'business');
  });
  after(() => t.close());

  const call = (
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    url: string,
    token: string | null,
    payload?: object,
    headers: Record<string, string> = {},
  ) =>
    t.app.inject({
      method,
      url,
      ...(payload === undefined ? {} : { payload }),
      headers: { ...headers, ...(token === null ? {} : { authorization: `Bearer ${token}` }) },
    });

  const nordic = {
    slug: 'nordic-engineers',
    description: 'Engineers in the Nordic member states',
    query: {
      countries: ['SE', 'DK', 'FI'],
      jobs: ['software-engineer', 'electrician'],
      levels: ['senior', 'lead'],
      years: 'last 3',
      fields: ['hourly_median'],
    },
    parameters: ['country', 'job', 'year', 'format'],
  };
  let nordicId = '';

  it('is Enterprise only: Business gets 403 naming the plan', async () => {
    const res = await call('POST', '/api/v1/custom-endpoints', biz.session, nordic);
    assert.equal(res.statusCode, 403);
    assert.equal(res.json().required_plan, 'enterprise');
  });

  it('creates, lists and shows a saved query (201, audited)', async () => {
    const res = await call('POST', '/api/v1/custom-endpoints', ent.session, nordic);
    assert.equal(res.statusCode, 201, res.body);
    const created = res.json();
    nordicId = created.id;
    assert.equal(created.path, '/api/v1/custom/nordic-engineers');
    assert.deepEqual(created.query.countries, ['DK', 'FI', 'SE']);
    assert.deepEqual(created.parameters, ['country', 'job', 'year', 'format']);
    assert.equal(res.headers.location, `/api/v1/custom-endpoints/${created.id}`);
    const list = (await call('GET', '/api/v1/custom-endpoints', ent.apiKey)).json();
    assert.deepEqual(
      list.data.map((e: { slug: string }) => e.slug),
      ['nordic-engineers'],
    );
    const one = await call('GET', `/api/v1/custom-endpoints/${created.id}`, ent.apiKey);
    assert.equal(one.json().description, nordic.description);
    const audit = await t.db.query<{ action: string }>(
      "SELECT action FROM audit_log WHERE account_id = $1 AND action LIKE 'custom_endpoints.%'",
      [ent.accountId],
    );
    assert.deepEqual(
      audit.map((a) => a.action),
      ['custom_endpoints.create'],
    );
  });

  it('refuses bad slugs, unknown values (naming the allowed ones) and a slug twice', async () => {
    const badSlug = await call('POST', '/api/v1/custom-endpoints', ent.session, {
      ...nordic,
      slug: 'Nordic_Engineers',
    });
    assert.equal(badSlug.statusCode, 400);
    const badCountry = await call('POST', '/api/v1/custom-endpoints', ent.session, {
      ...nordic,
      slug: 'x',
      query: { countries: ['SE', 'US'] },
    });
    assert.equal(badCountry.statusCode, 400);
    const param = badCountry.json().invalid_params[0];
    assert.equal(param.name, 'query.countries');
    assert.ok(param.allowed.includes('DE'));
    const badYears = await call('POST', '/api/v1/custom-endpoints', ent.session, {
      slug: 'x',
      query: { years: { from: 2024, to: 2020 } },
    });
    assert.equal(badYears.statusCode, 400);
    const twice = await call('POST', '/api/v1/custom-endpoints', ent.session, nordic);
    assert.equal(twice.statusCode, 409);
    assert.equal(twice.json().slug, 'nordic-engineers');
  });

  it('answers the saved query only, and narrows within it per request', async () => {
    const res = await call('GET', '/api/v1/custom/nordic-engineers', ent.apiKey);
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    const rows: { country: string; job: string; level: string; year: number }[] = body.data;
    assert.deepEqual([...new Set(rows.map((r) => r.country))].sort(), ['DK', 'FI', 'SE']);
    assert.deepEqual([...new Set(rows.map((r) => r.job))].sort(), [
      'electrician',
      'software-engineer',
    ]);
    assert.deepEqual([...new Set(rows.map((r) => r.level))].sort(), ['lead', 'senior']);
    const years = [...new Set(rows.map((r) => r.year))].sort();
    assert.equal(years.length, 3);
    assert.equal(rows.length, 3 * 2 * 2 * 3);
    assert.ok('hourly_median' in rows[0]!, 'the saved extra field');
    const narrowed = await call(
      'GET',
      `/api/v1/custom/nordic-engineers?country=se&job=electrician&year=${years[0]}`,
      ent.apiKey,
    );
    assert.equal(narrowed.statusCode, 200, narrowed.body);
    const n = narrowed.json();
    assert.equal(n.data.length, 2);
    assert.equal(n.meta.country.code, 'SE');
    assert.equal(n.meta.year, years[0]);
  });

  it('400 naming the allowed values for a value outside the saved ones, or a closed parameter', async () => {
    const outside = await call('GET', '/api/v1/custom/nordic-engineers?country=FR', ent.apiKey);
    assert.equal(outside.statusCode, 400);
    assert.deepEqual(outside.json().invalid_params[0].allowed, ['DK', 'FI', 'SE']);
    assert.match(outside.json().detail, /country=FR.*DK, FI, SE/);
    const year = await call('GET', '/api/v1/custom/nordic-engineers?year=2014', ent.apiKey);
    assert.equal(year.statusCode, 400);
    assert.equal(year.json().invalid_params[0].allowed.length, 3);
    const closed = await call('GET', '/api/v1/custom/nordic-engineers?level=lead', ent.apiKey);
    assert.equal(closed.statusCode, 400);
    assert.equal(closed.json().invalid_params[0].name, 'level');
    assert.deepEqual(closed.json().invalid_params[0].allowed, ['country', 'job', 'year', 'format']);
    const unknown = await call('GET', '/api/v1/custom/nordic-engineers?fields=x', ent.apiKey);
    assert.equal(unknown.statusCode, 400);
  });

  it('is 404 for another account, an anonymous caller and an unknown slug', async () => {
    const path = '/api/v1/custom/nordic-engineers';
    assert.equal((await call('GET', path, other.apiKey)).statusCode, 404);
    assert.equal((await call('GET', path, null)).statusCode, 404);
    assert.equal((await call('GET', '/api/v1/custom/nope', ent.apiKey)).statusCode, 404);
    assert.equal(
      (await call('GET', `/api/v1/custom-endpoints/${nordicId}`, other.apiKey)).statusCode,
      404,
    );
    assert.equal(
      (await call('DELETE', `/api/v1/custom-endpoints/${nordicId}`, other.apiKey)).statusCode,
      404,
    );
  });

  it('answers in every format of the plan, with the custom schema applied', async () => {
    const schema = {
      fields: [
        { field: 'country', name: 'Land' },
        { field: 'job', name: 'Beruf' },
        { field: 'median', name: 'Median_EUR' },
      ],
    };
    assert.equal(
      (await call('PUT', '/api/v1/account/schema', ent.session, schema)).statusCode,
      200,
    );
    try {
      const base = '/api/v1/custom/nordic-engineers?country=DK';
      const json = (await call('GET', base, ent.apiKey)).json();
      assert.deepEqual(Object.keys(json.data[0]), ['Land', 'Beruf', 'Median_EUR']);
      const csvRes = await call('GET', `${base}&format=csv`, ent.apiKey);
      assert.match(String(csvRes.headers['content-type']), /^text\/csv/);
      assert.match(
        String(csvRes.headers['content-disposition']),
        /filename="nordic-engineers-DK-\d{4}-\d{4}\.csv"/,
      );
      const csv: Record<string, string>[] = parse(csvRes.body, { columns: true });
      assert.deepEqual(Object.keys(csv[0]!), ['Land', 'Beruf', 'Median_EUR']);
      assert.equal(csv.length, json.data.length);
      const viaAccept = await call('GET', base, ent.apiKey, undefined, { accept: 'text/csv' });
      assert.match(String(viaAccept.headers['content-type']), /^text\/csv/);
      const pq = (await call('GET', `${base}&format=parquet`, ent.apiKey)).rawPayload;
      const rows = await parquetReadObjects({
        file: pq.buffer.slice(pq.byteOffset, pq.byteOffset + pq.byteLength) as ArrayBuffer,
      });
      assert.deepEqual(Object.keys(rows[0]!), ['Land', 'Beruf', 'Median_EUR']);
      const xml = (await call('GET', `${base}&format=xml`, ent.apiKey)).body;
      const parsed = new XMLParser().parse(xml) as { salaries: { salary: unknown[] } };
      assert.equal(parsed.salaries.salary.length, json.data.length);
      const xlsx = (await call('GET', `${base}&format=xlsx`, ent.apiKey)).rawPayload;
      const book = new ExcelJS.Workbook();
      await book.xlsx.load(xlsx as unknown as ArrayBuffer);
      assert.equal(book.worksheets[0]!.getRow(1).getCell(1).value, 'Land');
    } finally {
      await call('DELETE', '/api/v1/account/schema', ent.session);
    }
  });

  it('a saved format without the format parameter is fixed', async () => {
    const res = await call('POST', '/api/v1/custom-endpoints', ent.session, {
      slug: 'de-csv',
      query: { countries: ['DE'], jobs: ['chef'], format: 'csv' },
    });
    assert.equal(res.statusCode, 201, res.body);
    const got = await call('GET', '/api/v1/custom/de-csv', ent.apiKey, undefined, {
      accept: 'application/json',
    });
    assert.match(String(got.headers['content-type']), /^text\/csv/);
    const asked = await call('GET', '/api/v1/custom/de-csv?format=json', ent.apiKey);
    assert.equal(asked.statusCode, 400);
    assert.deepEqual(asked.json().invalid_params[0].allowed, []);
  });

  it('streams a large result (the whole archive of a year range) and counts it', async () => {
    const res = await call('POST', '/api/v1/custom-endpoints', ent.session, {
      slug: 'everything',
      query: { years: { from: 2020, to: 2025 } },
      parameters: ['format'],
    });
    assert.equal(res.statusCode, 201, res.body);
    const json = await call('GET', '/api/v1/custom/everything', ent.apiKey);
    assert.equal(json.statusCode, 200);
    assert.equal(json.json().data.length, 27 * 21 * 4 * 6);
    assert.deepEqual(json.json().meta.years, [2020, 2021, 2022, 2023, 2024, 2025]);
    const csv = await call('GET', '/api/v1/custom/everything?format=csv', ent.apiKey);
    assert.equal(csv.statusCode, 200);
    assert.equal(parse(csv.body, { columns: true }).length, 27 * 21 * 4 * 6);
  });

  it('spends quota and counts usage under its own endpoint name', async () => {
    const first = await call('GET', '/api/v1/custom/de-csv', ent.apiKey);
    const second = await call('GET', '/api/v1/custom/de-csv', ent.apiKey);
    const remaining = (h: unknown): number => Number(/r=(\d+)/.exec(String(h))?.[1]);
    assert.ok(first.headers.ratelimit !== undefined, 'rate-limit headers sent');
    assert.equal(remaining(second.headers.ratelimit), remaining(first.headers.ratelimit) - 1);
    const report = (await call('GET', '/api/v1/usage?granularity=hour', ent.session)).json();
    assert.ok(report.by_endpoint['GET /api/v1/custom/de-csv'] >= 3);
    assert.ok(report.by_endpoint['GET /api/v1/custom/nordic-engineers'] >= 1);
  });

  it('PUT replaces the definition at once; DELETE makes the path 404', async () => {
    const put = await call('PUT', `/api/v1/custom-endpoints/${nordicId}`, ent.session, {
      ...nordic,
      query: { ...nordic.query, countries: ['SE'] },
    });
    assert.equal(put.statusCode, 200, put.body);
    const rows = (await call('GET', '/api/v1/custom/nordic-engineers', ent.apiKey)).json().data;
    assert.deepEqual([...new Set(rows.map((r: { country: string }) => r.country))], ['SE']);
    const taken = await call('PUT', `/api/v1/custom-endpoints/${nordicId}`, ent.session, {
      ...nordic,
      slug: 'de-csv',
    });
    assert.equal(taken.statusCode, 409);
    const del = await call('DELETE', `/api/v1/custom-endpoints/${nordicId}`, ent.session);
    assert.equal(del.statusCode, 204);
    assert.equal(
      (await call('GET', '/api/v1/custom/nordic-engineers', ent.apiKey)).statusCode,
      404,
    );
    // The slug is free again.
    const again = await call('POST', '/api/v1/custom-endpoints', ent.session, nordic);
    assert.equal(again.statusCode, 201);
    nordicId = again.json().id;
  });

  it('serves an account-specific OpenAPI document clean under spectral:oas', async () => {
    const res = await call('GET', '/api/v1/custom/openapi.json', ent.apiKey);
    assert.equal(res.statusCode, 200);
    const doc = res.json();
    assert.deepEqual(Object.keys(doc.paths).sort(), [
      '/api/v1/custom/de-csv',
      '/api/v1/custom/everything',
      '/api/v1/custom/nordic-engineers',
    ]);
    const op = doc.paths['/api/v1/custom/nordic-engineers'].get;
    assert.equal(op.operationId, 'nordicEngineers');
    const country = op.parameters.find((p: { name: string }) => p.name === 'country');
    assert.deepEqual(country.schema.enum, ['DK', 'FI', 'SE']);
    // A saved query without open parameters still takes the release it is answered from.
    assert.deepEqual(
      doc.paths['/api/v1/custom/de-csv'].get.parameters.map(
        (p: { name: string; schema: { pattern?: string; format?: string } }) => [
          p.name,
          p.schema.pattern ?? p.schema.format,
        ],
      ),
      [
        ['release', '^[0-9]{4}\\.[0-9]{2}\\.[0-9]+$'],
        ['as_of', 'date'],
      ],
    );
    const spectral = new Spectral();
    spectral.setRuleset(oas as never);
    const results = await spectral.run(
      new Document(res.body, spectralParsers.Json, 'openapi.json'),
    );
    const problems = results
      .filter((r) => Number(r.severity) <= 1)
      .map((r) => `${r.code}: ${r.message} at ${r.path.join('.')}`);
    assert.deepEqual(problems, []);
    const otherDoc = (await call('GET', '/api/v1/custom/openapi.json', other.apiKey)).json();
    assert.deepEqual(otherDoc.paths, {});
    assert.equal((await call('GET', '/api/v1/custom/openapi.json', null)).statusCode, 401);
  });

  it('a retried create with the same Idempotency-Key replays the first answer', async () => {
    const body = { slug: 'retried', query: { countries: ['PT'] } };
    const headers = { 'idempotency-key': 'create-retried-1' };
    const first = await call('POST', '/api/v1/custom-endpoints', ent.session, body, headers);
    const again = await call('POST', '/api/v1/custom-endpoints', ent.session, body, headers);
    assert.equal(first.statusCode, 201, first.body);
    assert.equal(again.statusCode, 201);
    assert.equal(again.json().id, first.json().id);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal((await call('GET', '/api/v1/custom/retried', ent.apiKey)).statusCode, 200);
  });

  it('holds at most 100 per account', async () => {
    const have = (await call('GET', '/api/v1/custom-endpoints', ent.session)).json().data.length;
    for (let i = have; i < 100; i++) {
      const res = await call('POST', '/api/v1/custom-endpoints', ent.session, {
        slug: `e-${i}`,
        query: {},
      });
      assert.equal(res.statusCode, 201);
    }
    const over = await call('POST', '/api/v1/custom-endpoints', ent.session, {
      slug: 'one-too-many',
      query: {},
    });
    assert.equal(over.statusCode, 409);
    assert.equal(over.json().code, 'CUSTOM_ENDPOINT_LIMIT_REACHED');
  });

  it('an account that leaves Enterprise keeps its definitions, but they answer 403', async () => {
    await t.services.subscriptions.change(
      operatorPrincipal(ent.accountId, t.services.plans.enterprise),
      'business',
      null,
    );
    // A downgrade takes effect at the period's end, applied by the billing run.
    t.clock.advance(32 * 24 * 3600 * 1000);
    await t.services.billing();
    const login = await call('POST', '/api/v1/sessions', null, {
      email: ent.email,
      password: 'a long enough passphrase',
    });
    assert.equal(login.statusCode, 201, login.body);
    const res = await call('GET', '/api/v1/custom/de-csv', login.json().token);
    assert.equal(res.statusCode, 403);
    assert.equal(res.json().required_plan, 'enterprise');
    const rows = await t.db.query(
      'SELECT 1 FROM custom_endpoints WHERE account_id = $1 AND deleted_at IS NULL',
      [ent.accountId],
    );
    assert.equal(rows.length, 100);
  });
});
