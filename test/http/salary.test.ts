import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { COUNTRY_CODES } from '../../src/catalog/index.js';
import { accountOnPlan } from '../helpers/accounts.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { changedRelease } from '../helpers/webhooks.js';

interface Problem {
  type: string;
  status: number;
  code: string;
  detail: string;
  request_id: string;
  invalid_params?: { name: string; reason: string; allowed?: (string | number)[] }[];
  required_plan?: string;
  available_years?: number[];
}

describe('GET /api/v1/salary (Free, no credential)', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(() => t.close());

  const get = (query: string, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'GET', url: `/api/v1/salary?${query}`, headers });

  it('returns the record for one country, job and level in the current year', async () => {
    const res = await get('country=DE&job=software-engineer&level=senior');
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    const body = res.json();
    assert.equal(body.data.length, 1);
    const [record] = body.data;
    assert.equal(record.country, 'DE');
    assert.equal(record.job, 'software-engineer');
    assert.equal(record.level, 'senior');
    assert.equal(record.year, 2026);
    assert.equal(record.currency, 'EUR');
    assert.equal(record.period, 'annual');
    assert.ok(record.p25 < record.median && record.median < record.p75);
    assert.equal(record.projected, true);
    assert.equal(record.basis, 'projected');
    assert.equal(body.meta.release.version, '2026.11.8');
    assert.equal(body.meta.modelled, true);
    assert.match(body.meta.source, /Eurostat/);
    assert.equal(body.meta.methodology_url, '/methodology');
    assert.deepEqual(Object.keys(record).sort(), [
      'basis',
      'confidence',
      'confidence_note',
      'country',
      'currency',
      'job',
      'level',
      'local_currency',
      'local_median',
      'median',
      'p25',
      'p75',
      'period',
      'projected',
      'year',
    ]);
  });

  it('carries the local currency and median by default, for euro and non-euro countries', async () => {
    const pl = (await t.app.inject({ url: '/api/v1/salary?country=PL&job=nurse&level=mid' })).json()
      .data[0];
    assert.equal(pl.currency, 'EUR');
    assert.equal(pl.local_currency, 'PLN');
    assert.ok(pl.local_median > pl.median * 4 && pl.local_median < pl.median * 5, 'about 4.3 PLN');
    const se = (await t.app.inject({ url: '/api/v1/salary?country=SE&job=nurse&level=mid' })).json()
      .data[0];
    assert.equal(se.local_currency, 'SEK');
    const it_ = (
      await t.app.inject({ url: '/api/v1/salary?country=IT&job=nurse&level=mid' })
    ).json().data[0];
    assert.deepEqual([it_.local_currency, it_.local_median], ['EUR', it_.median]);
  });

  it('returns every level in order when level is omitted', async () => {
    const body = (await get('country=FR&job=nurse')).json();
    assert.deepEqual(
      body.data.map((r: { level: string }) => r.level),
      ['junior', 'mid', 'senior', 'lead'],
    );
    const medians = body.data.map((r: { median: number }) => r.median);
    assert.deepEqual(
      [...medians].sort((a, b) => a - b),
      medians,
      'pay rises with seniority',
    );
  });

  it("accepts lower-case codes and Eurostat's EL for Greece, answering in ISO upper case", async () => {
    const lower = (await get('country=de&job=nurse&level=mid')).json();
    assert.equal(lower.data[0].country, 'DE');
    const greece = (await get('country=EL&job=nurse&level=mid')).json();
    assert.equal(greece.data[0].country, 'GR');
    assert.equal(greece.meta.country.name, 'Greece');
  });

  it('serves the current year when asked explicitly', async () => {
    const res = await get('country=DE&job=nurse&year=2026');
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().data[0].year, 2026);
  });

  const badRequests: { name: string; query: string; param: string; allowedIncludes?: string }[] = [
    {
      name: 'unknown country',
      query: 'country=XX&job=nurse',
      param: 'country',
      allowedIncludes: 'SE',
    },
    {
      name: 'non-EU country',
      query: 'country=GB&job=nurse',
      param: 'country',
      allowedIncludes: 'AT',
    },
    { name: 'malformed country', query: 'country=DEU&job=nurse', param: 'country' },
    {
      name: 'unknown job',
      query: 'country=DE&job=astronaut',
      param: 'job',
      allowedIncludes: 'nurse',
    },
    { name: 'malformed job', query: 'country=DE&job=Nurse!', param: 'job' },
    {
      name: 'unknown level',
      query: 'country=DE&job=nurse&level=intern',
      param: 'level',
      allowedIncludes: 'senior',
    },
    { name: 'year not a number', query: 'country=DE&job=nurse&year=last', param: 'year' },
    { name: 'year out of range', query: 'country=DE&job=nurse&year=1850', param: 'year' },
    {
      name: 'unknown format',
      query: 'country=DE&job=nurse&format=pdf',
      param: 'format',
      allowedIncludes: 'parquet',
    },
    { name: 'missing country', query: 'job=nurse', param: 'country' },
    { name: 'missing job', query: 'country=DE', param: 'job' },
    { name: 'repeated parameter', query: 'country=DE&country=FR&job=nurse', param: 'country' },
    { name: 'over-long value', query: `country=DE&job=${'a'.repeat(500)}`, param: 'job' },
    { name: 'control character', query: 'country=DE&job=nurse%00', param: 'job' },
    {
      name: 'unknown parameter',
      query: 'country=DE&job=nurse&currency=USD',
      param: 'currency',
      allowedIncludes: 'level',
    },
    { name: 'empty value', query: 'country=&job=nurse', param: 'country' },
  ];
  for (const c of badRequests) {
    it(`answers 400 problem+json naming the parameter: ${c.name}`, async () => {
      const res = await get(c.query);
      assert.equal(res.statusCode, 400, res.body);
      assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
      const problem = res.json<Problem>();
      assert.equal(problem.code, 'INVALID_PARAMETER');
      assert.equal(problem.status, 400);
      assert.equal(problem.request_id, res.headers['x-request-id']);
      const named = problem.invalid_params?.find((p) => p.name === c.param);
      assert.ok(named, `invalid_params names ${c.param}: ${res.body}`);
      if (c.allowedIncludes !== undefined) {
        assert.ok(named.allowed?.includes(c.allowedIncludes), `allowed lists ${c.allowedIncludes}`);
      }
    });
  }

  it('a year not written in decimal digits is a 400, not the number JavaScript reads', async () => {
    // 0x7E6 is 2022, 1e3 1000, +2024 and " 2024" 2024 to JavaScript's Number().
    for (const year of ['0x7E6', '1e3', '%2B2026', '%202026', '2026.0', 'Infinity', '1e309']) {
      const res = await get(`country=DE&job=nurse&year=${year}`);
      assert.equal(res.statusCode, 400, `${year}: ${res.body}`);
      const [param] = res.json<Problem>().invalid_params ?? [];
      assert.equal(param?.name, 'year');
      assert.match(String(param?.reason), /is not a whole number written in decimal digits/);
    }
    const plain = await get('country=DE&job=nurse&year=2026');
    assert.equal(plain.statusCode, 200, plain.body);
  });

  it('lists all 27 codes when the country is unknown', async () => {
    const problem = (await get('country=XX&job=nurse')).json<Problem>();
    assert.deepEqual(problem.invalid_params?.[0]?.allowed, [...COUNTRY_CODES]);
    assert.equal(COUNTRY_CODES.length, 27);
  });

  it('refuses a past year on Free with 403 naming the plan that reaches it', async () => {
    const oneBack = (await get('country=DE&job=nurse&year=2025')).json<Problem>();
    assert.equal(oneBack.status, 403);
    assert.equal(oneBack.code, 'FEATURE_NOT_IN_PLAN');
    assert.equal(oneBack.required_plan, 'developer');
    assert.equal(
      (await get('country=DE&job=nurse&year=2023')).json<Problem>().required_plan,
      'business',
    );
    assert.equal(
      (await get('country=DE&job=nurse&year=2014')).json<Problem>().required_plan,
      'enterprise',
    );
  });

  it('answers 404 listing the years that exist for a year without data', async () => {
    const res = await get('country=DE&job=nurse&year=2030');
    assert.equal(res.statusCode, 404);
    const problem = res.json<Problem>();
    assert.equal(problem.code, 'NO_DATA');
    assert.equal(problem.available_years?.[0], 2014);
    assert.equal(problem.available_years?.at(-1), 2026);
  });

  for (const format of ['csv', 'xlsx', 'xml', 'parquet']) {
    it(`refuses format=${format} on Free with 403 naming the lowest plan`, async () => {
      const problem = (await get(`country=DE&job=nurse&format=${format}`)).json<Problem>();
      assert.equal(problem.status, 403);
      const expected = {
        csv: 'developer',
        xlsx: 'business',
        xml: 'enterprise',
        parquet: 'enterprise',
      }[format];
      assert.equal(problem.required_plan, expected);
    });
  }

  it('chooses the format from Accept when format is absent; format wins over Accept', async () => {
    assert.equal((await get('country=DE&job=nurse', { accept: 'text/csv' })).statusCode, 403);
    assert.equal(
      (await get('country=DE&job=nurse&format=json', { accept: 'text/csv' })).statusCode,
      200,
    );
    assert.equal(
      (await get('country=DE&job=nurse', { accept: 'application/json, */*;q=0.1' })).statusCode,
      200,
    );
    assert.equal((await get('country=DE&job=nurse', { accept: '*/*' })).statusCode, 200);
    const unacceptable = await get('country=DE&job=nurse', { accept: 'image/png' });
    assert.equal(unacceptable.statusCode, 406);
    assert.equal(unacceptable.json<Problem>().code, 'NOT_ACCEPTABLE');
  });

  it('answers 401 for a credential that is not a valid key, never serving it as Free', async () => {
    for (const authorization of [
      'Bearer sk_live_unknown',
      'Bearer ',
      'Basic dXNlcjpwYXNz',
      'sk_live_x',
    ]) {
      const res = await get('country=DE&job=nurse', { authorization });
      assert.equal(res.statusCode, 401, authorization);
      assert.equal(res.json<Problem>().code, 'UNAUTHENTICATED');
      assert.match(String(res.headers['www-authenticate']), /^Bearer /);
    }
  });
});

describe('GET /api/v1/salary, the same query again', () => {
  let t: TestApp;
  let developerKey: string;
  before(async () => {
    t = await buildTestApp({ env: { RELEASE_POLL_SECONDS: '1' } });
    developerKey = (await accountOnPlan(t, 'developer')).apiKey!;
  });
  after(() => t.close());

  const get = (query: string, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'GET', url: `/api/v1/salary?${query}`, headers });
  const developer = () => ({ authorization: `Bearer ${developerKey}` });

  it('answers the same bytes, and checks each plan for itself', async () => {
    const lastYear = 'country=DE&job=nurse&level=mid&year=2025';
    const first = await get(lastYear, developer());
    assert.equal(first.statusCode, 200);
    const again = await get(lastYear, developer());
    assert.equal(again.body, first.body);
    // Free reaches only the current year, whatever another plan was answered before.
    const free = await get(lastYear);
    assert.equal(free.statusCode, 403);
    assert.equal(free.json<Problem>().required_plan, 'developer');
    assert.equal((await get(lastYear, developer())).statusCode, 200);
  });

  it('tells an absent level and year from given ones', async () => {
    assert.equal((await get('country=FR&job=nurse&level=senior')).json().data.length, 1);
    assert.equal((await get('country=FR&job=nurse')).json().data.length, 4);
    assert.equal((await get('country=FR&job=nurse&year=2026')).json().data.length, 4);
    assert.equal((await get('country=FR&job=nurse&level=senior&year=2026')).json().data.length, 1);
    assert.equal((await get('country=fr&job=nurse&level=senior')).json().data[0].country, 'FR');
  });

  it('answers from the release loaded since', async () => {
    const query = 'country=AT&job=nurse&level=lead';
    assert.equal((await get(query)).json().meta.release.version, '2026.11.8');
    await t.releases.load(await changedRelease('2026.11.8-answer-test'));
    // The server takes up a release loaded elsewhere at its next poll (a second here).
    let version = '';
    for (const deadline = Date.now() + 5_000; Date.now() < deadline;) {
      version = (await get(query)).json().meta.release.version;
      if (version !== '2026.11.8') break;
      await sleep(100);
    }
    assert.equal(version, '2026.11.8-answer-test');
  });
});
