import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { JOB_SLUGS, LEVELS } from '../../src/catalog/jobs.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { accountOnPlan, ENTERPRISE_CONTRACT } from '../helpers/accounts.js';

/**
 * Each parameter a custom endpoint may leave open narrows within the saved values only: a value
 * inside them answers those figures alone, a value outside them is 400 naming the saved ones,
 * a parameter left closed is 400 naming the open ones, and the account's OpenAPI document
 * lists as `enum` exactly what is served.
 */

interface Row {
  country: string;
  job: string;
  level: string;
  year: number;
}

interface InvalidParam {
  name: string;
  reason: string;
  allowed: (string | number)[];
}

const SAVED = {
  countries: ['PT', 'AT'],
  jobs: ['software-engineer', 'electrician'],
  levels: ['senior', 'lead'],
  years: { from: 2021, to: 2023 },
};

/** Per parameter: the record field it narrows, the saved values, one inside and one outside. */
const PARAMETERS = [
  {
    name: 'country',
    field: 'country',
    saved: ['AT', 'PT'],
    inside: 'PT',
    outside: ['DE', 'US'],
  },
  {
    name: 'job',
    field: 'job',
    saved: ['electrician', 'software-engineer'],
    inside: 'electrician',
    outside: ['nurse', 'astronaut'],
  },
  {
    name: 'level',
    field: 'level',
    saved: ['lead', 'senior'],
    inside: 'lead',
    outside: ['junior', 'mid'],
  },
  {
    name: 'year',
    field: 'year',
    saved: [2021, 2022, 2023],
    inside: '2022',
    outside: ['2020', '2024', '1999'],
  },
] as const;

/** Records the saved query answers when nothing narrows it: 2 countries, jobs and levels, 3 years. */
const ALL_ROWS = 2 * 2 * 2 * 3;

const distinct = (rows: Row[], field: keyof Row): (string | number)[] =>
  [...new Set(rows.map((r) => r[field]))].sort();
const sorted = (values: readonly (string | number)[]): (string | number)[] => [...values].sort();

describe('custom endpoints: narrowing by each open parameter', () => {
  let t: TestApp;
  let ent: Awaited<ReturnType<typeof accountOnPlan>>;

  before(async () => {
    t = await buildTestApp();
    ent = await accountOnPlan(t, 'enterprise', { ...ENTERPRISE_CONTRACT, request_limit: 10_000 });
    const define = async (body: Record<string, unknown>) => {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/custom-endpoints',
        headers: { authorization: `Bearer ${ent.session}` },
        payload: body,
      });
      assert.equal(res.statusCode, 201, res.body);
    };
    await define({
      slug: 'open',
      query: SAVED,
      parameters: ['country', 'job', 'level', 'year', 'format'],
    });
    await define({ slug: 'closed', query: SAVED, parameters: [] });
    // Every country, job and level (nothing saved): any real value narrows.
    await define({ slug: 'unbounded', query: {}, parameters: ['country', 'job', 'level'] });
  });
  after(() => t.close());

  const get = (url: string, headers: Record<string, string> = {}) =>
    t.app.inject({
      method: 'GET',
      url,
      headers: { authorization: `Bearer ${ent.apiKey}`, ...headers },
    });

  async function rows(url: string): Promise<Row[]> {
    const res = await get(url);
    assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
    return res.json<{ data: Row[] }>().data;
  }

  async function refused(url: string): Promise<InvalidParam> {
    const res = await get(url);
    assert.equal(res.statusCode, 400, `${url}: ${res.body.slice(0, 300)}`);
    assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
    const params = res.json<{ invalid_params: InvalidParam[] }>().invalid_params;
    assert.equal(params.length, 1, res.body);
    return params[0]!;
  }

  it('answers the saved values alone when no parameter is passed', async () => {
    const all = await rows('/api/v1/custom/open');
    assert.equal(all.length, ALL_ROWS);
    for (const p of PARAMETERS) assert.deepEqual(distinct(all, p.field), p.saved, p.name);
  });

  for (const p of PARAMETERS) {
    describe(`${p.name}`, () => {
      it(`${p.name} inside the saved values answers that ${p.name} only, the rest as saved`, async () => {
        const got = await rows(`/api/v1/custom/open?${p.name}=${p.inside}`);
        assert.deepEqual(distinct(got, p.field), [p.name === 'year' ? 2022 : p.inside]);
        assert.equal(got.length, ALL_ROWS / p.saved.length);
        for (const other of PARAMETERS.filter((o) => o !== p))
          assert.deepEqual(distinct(got, other.field), other.saved, other.name);
      });

      it(`${p.name} outside the saved values is 400 naming the saved ones`, async () => {
        for (const value of p.outside) {
          const param = await refused(`/api/v1/custom/open?${p.name}=${value}`);
          assert.equal(param.name, p.name, value);
          assert.match(param.reason, /outside what this endpoint serves/, value);
          assert.deepEqual(sorted(param.allowed), p.saved, value);
        }
      });

      it(`${p.name} on an endpoint that does not leave it open is 400 naming the open ones`, async () => {
        const param = await refused(`/api/v1/custom/closed?${p.name}=${p.inside}`);
        assert.equal(param.name, p.name);
        assert.deepEqual(param.allowed, []);
      });

      it(`the OpenAPI document lists the saved ${p.name} values as its enum`, async () => {
        const doc = (await get('/api/v1/custom/openapi.json')).json<{
          paths: Record<string, { get: { parameters: { name: string; schema: Json }[] } }>;
        }>();
        const open = doc.paths['/api/v1/custom/open']!.get.parameters;
        const schema = open.find((o) => o.name === p.name)?.schema;
        assert.deepEqual(sorted(schema?.enum ?? []), p.saved);
        // A closed saved query takes only the release it is answered from.
        assert.deepEqual(
          doc.paths['/api/v1/custom/closed']!.get.parameters.map((o) => o.name),
          ['release', 'as_of'],
        );
      });
    });
  }

  it('with nothing saved, any real job and level narrows; an unknown job is 400 naming them all', async () => {
    const junior = await rows('/api/v1/custom/unbounded?country=DE&job=nurse&level=junior');
    assert.deepEqual(
      junior.map((r) => [r.country, r.job, r.level]),
      [['DE', 'nurse', 'junior']],
    );
    const unknown = await refused('/api/v1/custom/unbounded?job=astronaut');
    assert.equal(unknown.name, 'job');
    assert.deepEqual(unknown.allowed, JOB_SLUGS);
    const levels = await rows('/api/v1/custom/unbounded?country=DE&job=nurse');
    assert.deepEqual(distinct(levels, 'level'), sorted(LEVELS));
  });

  it('parameters narrow together: one record for one value of each', async () => {
    const one = await rows(
      '/api/v1/custom/open?country=at&job=software-engineer&level=senior&year=2023',
    );
    assert.deepEqual(
      one.map((r) => [r.country, r.job, r.level, r.year]),
      [['AT', 'software-engineer', 'senior', 2023]],
    );
  });

  it('format open: format= or Accept chooses, the saved format (JSON) by default; an unknown one is 400', async () => {
    const csv = await get('/api/v1/custom/open?country=AT&format=csv');
    assert.equal(csv.statusCode, 200, csv.body);
    assert.match(String(csv.headers['content-type']), /^text\/csv/);
    const accept = await get('/api/v1/custom/open?country=AT', { accept: 'application/xml' });
    assert.match(String(accept.headers['content-type']), /^application\/xml/);
    const plain = await get('/api/v1/custom/open?country=AT', { accept: '*/*' });
    assert.match(String(plain.headers['content-type']), /^application\/json/);
    assert.equal((await get('/api/v1/custom/open?format=pdf')).statusCode, 400);
    const closed = await refused('/api/v1/custom/closed?format=csv');
    assert.equal(closed.name, 'format');
  });
});

type Json = { enum?: (string | number)[] } & Record<string, unknown>;
