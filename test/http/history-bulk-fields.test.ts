import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parse } from 'csv-parse/sync';
import { FULL_TIME_HOURS_PER_YEAR } from '../../src/salary/index.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { accountOnPlan } from '../helpers/accounts.js';

describe('history, custom fields and bulk endpoints', () => {
  let t: TestApp;
  const key: Record<string, string> = {};
  before(async () => {
    t = await buildTestApp();
    for (const plan of ['developer', 'business', 'enterprise'] as const)
      key[plan] = (await accountOnPlan(t, plan)).apiKey!;
  });
  after(() => t.close());

  const get = (url: string, plan?: string) =>
    t.app.inject({
      url,
      headers: plan === undefined ? {} : { authorization: `Bearer ${key[plan]}` },
    });

  it('history reaches back as far as the plan: Free 1 year, Developer 2, Business 4, Enterprise 13', async () => {
    const url = '/api/v1/salary/history?country=NL&job=nurse&level=mid';
    const years = async (plan?: string) =>
      (await get(url, plan)).json().data.map((r: { year: number }) => r.year);
    assert.deepEqual(await years(), [2026]);
    assert.deepEqual(await years('developer'), [2025, 2026]);
    assert.deepEqual(await years('business'), [2023, 2024, 2025, 2026]);
    const all = await years('enterprise');
    assert.equal(all.length, 13);
    assert.equal(all[0], 2014);
  });

  it('custom fields: computed from the record, in every format; Free and Developer get 403', async () => {
    const url =
      '/api/v1/salary?country=PL&job=accountant&level=senior&year=2024&fields=p10,p90,mean,local_currency,local_median,monthly_median,hourly_median,yoy_median_pct';
    assert.equal((await get(url)).json().required_plan, 'business');
    assert.equal((await get(url, 'developer')).json().required_plan, 'business');
    const [r] = (await get(url, 'business')).json().data;
    assert.ok(r.p10 < r.p25 && r.p75 < r.p90);
    assert.ok(r.mean > r.median);
    assert.equal(r.local_currency, 'PLN');
    assert.ok(
      r.local_median > r.median * 4 && r.local_median < r.median * 5,
      'PLN at about 4.3 per EUR',
    );
    assert.equal(r.monthly_median, Math.round(r.median / 12));
    assert.equal(r.hourly_median, Math.round((r.median / FULL_TIME_HOURS_PER_YEAR) * 100) / 100);
    const [prev] = (
      await get('/api/v1/salary?country=PL&job=accountant&level=senior&year=2023', 'business')
    ).json().data;
    assert.equal(r.yoy_median_pct, Math.round((r.median / prev.median - 1) * 1000) / 10);
    const csv: Record<string, string>[] = parse((await get(`${url}&format=csv`, 'business')).body, {
      columns: true,
    });
    assert.equal(Number(csv[0]!.local_median), r.local_median);
    // local_currency and local_median are standard fields now; naming them in fields= is harmless.
    assert.equal(csv[0]!.local_currency, 'PLN');
    assert.deepEqual(Object.keys(csv[0]!).slice(-6), [
      'p10',
      'p90',
      'mean',
      'monthly_median',
      'hourly_median',
      'yoy_median_pct',
    ]);
    const unknown = await get(
      '/api/v1/salary?country=PL&job=accountant&fields=p10,bonus',
      'business',
    );
    assert.equal(unknown.statusCode, 400);
    assert.ok(unknown.json().invalid_params[0].allowed.includes('p90'));
    const plain = (
      await get('/api/v1/salary?country=PL&job=accountant&level=senior', 'business')
    ).json().data[0];
    assert.equal(plain.p10, undefined, 'extra fields only when asked');
  });

  it('bulk: one job in all 27 countries, all jobs in one country; Business and above only', async () => {
    assert.equal(
      (await get('/api/v1/bulk/countries?job=nurse', 'developer')).json().required_plan,
      'business',
    );
    assert.equal((await get('/api/v1/bulk/jobs?country=DE')).json().required_plan, 'business');
    const countries = (await get('/api/v1/bulk/countries?job=nurse&level=mid', 'business')).json();
    assert.equal(countries.data.length, 27);
    assert.equal(countries.meta.count, 27);
    assert.equal(countries.meta.job.slug, 'nurse');
    const jobs = (await get('/api/v1/bulk/jobs?country=de', 'business')).json();
    assert.equal(jobs.data.length, 21 * 4);
    assert.equal(jobs.meta.country.code, 'DE');
    assert.equal(
      (await get('/api/v1/bulk/jobs?country=DE&year=2020', 'business')).json().required_plan,
      'enterprise',
    );
    const xlsx = await get('/api/v1/bulk/jobs?country=DE&format=xlsx', 'business');
    assert.equal(
      xlsx.headers['content-disposition'],
      'attachment; filename="salary-DE-all-jobs-2026.xlsx"',
    );
  });

  it('the Enterprise full archive (27 × 21 × 4 × 13) streams as JSON and as Parquet', async () => {
    const res = await get('/api/v1/bulk/archive?year=all', 'enterprise');
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.equal(body.data.length, 27 * 21 * 4 * 13);
    assert.equal(body.meta.count, 29_484);
    assert.equal(body.meta.years.length, 13);
    const parquet = await get('/api/v1/bulk/archive?year=all&format=parquet', 'enterprise');
    assert.equal(parquet.statusCode, 200);
    assert.ok(parquet.rawPayload.length > 100_000);
    const business = (await get('/api/v1/bulk/archive?year=all', 'business')).json();
    assert.deepEqual(
      business.meta.years,
      [2023, 2024, 2025, 2026],
      'year=all stops at the plan depth',
    );
  });
});
