import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parse } from 'csv-parse/sync';
import { accountOnPlan } from '../helpers/accounts.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { listenHttp, type HttpCall } from '../helpers/http.js';

const CELL = 'country=DE&job=software-engineer&level=senior';

describe('GET /api/v1/salary/position', () => {
  let t: TestApp;
  let call: HttpCall;
  let developer: string;
  let business: string;
  let served: { p25: number; median: number; p75: number; confidence: string };
  const position = (query: string, token = developer) =>
    call('GET', `/api/v1/salary/position?${query}`, { token });

  before(async () => {
    t = await buildTestApp();
    ({ call } = await listenHttp(t));
    developer = (await accountOnPlan(t, 'developer')).apiKey!;
    business = (await accountOnPlan(t, 'business')).apiKey!;
    served = (await call('GET', `/api/v1/salary?${CELL}`, { token: developer })).json().data[0];
  });
  after(() => t.close());

  it('places the served median at 50, p25 at 25 and p75 at 75', async () => {
    for (const [field, expected] of [
      ['median', 50],
      ['p25', 25],
      ['p75', 75],
    ] as const) {
      const res = await position(`${CELL}&salary=${served[field]}`);
      assert.equal(res.status, 200, res.body);
      const { data } = res.json();
      assert.ok(Math.abs(data.percentile - expected) <= 0.5, `${field}: ${data.percentile}`);
      assert.equal(data.distribution[field], served[field]);
    }
  });

  it('answers the band, the distribution used, the confidence and the meta of a lookup', async () => {
    const res = await position(`${CELL}&salary=${served.median + 1}`);
    const { data, meta } = res.json();
    assert.equal(data.band, 'p50_p75');
    assert.equal(data.currency, 'EUR');
    assert.equal(data.salary_eur, served.median + 1);
    assert.equal(data.distribution.tails, 'log-normal fitted to p10 and p90');
    assert.ok(data.distribution.p10 < data.distribution.p25);
    assert.equal(data.confidence, served.confidence);
    assert.ok(['high', 'medium', 'low'].includes(data.confidence));
    assert.equal(meta.country.code, 'DE');
    assert.equal(meta.release.version, '2026.11.8');
    assert.equal(meta.methodology_url, '/methodology');
  });

  it('names the fitted log-normal: exp(log_mean ± 1.2816 log_sd) gives back p10 and p90', async () => {
    const res = await position(`${CELL}&salary=${served.median}`);
    const d = res.json().data.distribution;
    // 1.2816 is the standard normal's 90th percentile: the tails are fitted to p10 and p90.
    const z90 = 1.2815515655446004;
    assert.ok(d.log_sd > 0 && d.log_sd < 2, `log_sd ${d.log_sd}`);
    assert.ok(Math.abs(Math.exp(d.log_mean - z90 * d.log_sd) / d.p10 - 1) < 1e-4, `${d.p10}`);
    assert.ok(Math.abs(Math.exp(d.log_mean + z90 * d.log_sd) / d.p90 - 1) < 1e-4, `${d.p90}`);
  });

  it('is monotonic in the salary, from below p10 to above p90', async () => {
    let last = 0;
    const bands: string[] = [];
    for (const salary of [
      5_000, 20_000, 40_000, 60_000, 80_000, 100_000, 150_000, 250_000, 900_000,
    ]) {
      const { data } = (await position(`${CELL}&salary=${salary}`)).json();
      assert.ok(data.percentile >= last, `${salary}: ${data.percentile} after ${last}`);
      last = data.percentile;
      bands.push(data.band);
    }
    assert.equal(bands[0], 'below_p10');
    assert.equal(bands.at(-1), 'above_p90');
  });

  it('takes a salary in the local currency and converts it at the year rate', async () => {
    const pl = 'country=PL&job=nurse&level=mid';
    const eur = (await position(`${pl}&salary=20000`)).json().data;
    const pln = (await position(`${pl}&salary=${20000 * eur.fx_rate}&currency=pln`)).json().data;
    assert.equal(pln.currency, 'PLN');
    assert.equal(pln.salary_eur, 20000);
    assert.equal(pln.percentile, eur.percentile);
    const wrong = await position(`${pl}&salary=20000&currency=SEK`);
    assert.equal(wrong.status, 400);
    assert.equal(wrong.json().invalid_params[0].name, 'currency');
    assert.deepEqual(wrong.json().invalid_params[0].allowed, ['EUR', 'PLN']);
  });

  it('answers 400 naming salary when it is negative, zero, not a number or missing', async () => {
    for (const bad of ['&salary=-5', '&salary=0', '&salary=abc', '&salary=', '']) {
      const res = await position(`${CELL}${bad}`);
      assert.equal(res.status, 400, bad);
      assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
      const names = res.json().invalid_params.map((p: { name: string }) => p.name);
      assert.deepEqual(names, ['salary'], `${bad}: ${res.body}`);
    }
    const level = await position('country=DE&job=software-engineer&salary=50000');
    assert.equal(level.status, 400);
    assert.equal(level.json().invalid_params[0].name, 'level');
  });

  it('refuses the Free plan naming Developer, and spends no quota on refusals', async () => {
    const res = await call('GET', `/api/v1/salary/position?${CELL}&salary=50000`);
    assert.equal(res.status, 403);
    assert.equal(res.json().code, 'FEATURE_NOT_IN_PLAN');
    assert.equal(res.json().required_plan, 'developer');
  });

  it('counts like a lookup: one unit of the quota per answer', async () => {
    const before = Number(
      (await position(`${CELL}&salary=50000`)).headers.get('x-ratelimit-remaining'),
    );
    const after = Number(
      (await position(`${CELL}&salary=50000`)).headers.get('x-ratelimit-remaining'),
    );
    assert.equal(before - after, 1);
    const refused = await position(`${CELL}&salary=-1`);
    assert.equal(refused.headers.get('x-ratelimit-remaining'), null);
    const next = Number(
      (await position(`${CELL}&salary=50000`)).headers.get('x-ratelimit-remaining'),
    );
    assert.equal(after - next, 1);
  });

  it("answers in the plan's formats: CSV for Developer, Excel for Business, 403 beyond", async () => {
    const csv = await position(`${CELL}&salary=${served.median}&format=csv`);
    assert.equal(csv.status, 200);
    assert.match(
      csv.headers.get('content-disposition') ?? '',
      /salary-position-DE-software-engineer-senior-\d{4}\.csv/,
    );
    const row = parse<Record<string, string>>(csv.body, { columns: true })[0]!;
    assert.equal(row.percentile, '50');
    assert.equal(row.band, 'p50_p75');
    const xlsx = await position(`${CELL}&salary=50000&format=xlsx`);
    assert.equal(xlsx.status, 403);
    assert.equal(xlsx.json().required_plan, 'business');
    const excel = await position(`${CELL}&salary=50000`, business);
    assert.equal(excel.status, 200);
    const file = await call('GET', `/api/v1/salary/position?${CELL}&salary=50000`, {
      token: business,
      headers: { accept: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet' },
    });
    assert.equal(file.status, 200);
    assert.match(file.headers.get('content-type') ?? '', /spreadsheetml/);
  });

  it('is described in the OpenAPI document', async () => {
    const doc = (await call('GET', '/api/v1/openapi.json')).json();
    const op = doc.paths['/api/v1/salary/position'].get;
    assert.equal(op.operationId, 'getPayPosition');
    const names = op.parameters.map((p: { name: string }) => p.name);
    for (const name of ['country', 'job', 'level', 'year', 'salary', 'currency', 'format'])
      assert.ok(names.includes(name), name);
    assert.ok(op.responses['200'].content['text/csv']);
  });
});
