import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PLAN_IDS, type PlanId } from '../../src/plans/index.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { accountOnPlan } from '../helpers/accounts.js';

/**
 * Every cell of the plan matrix (service-spec §1) that the API serves today: formats,
 * history depth, usage analytics, API keys, allowlists, scopes and the request limit.
 * Expected: the status, and for 403 the lowest plan that has it.
 */
const FORMAT_CELLS: Record<string, Record<PlanId, number | PlanId>> = {
  json: { free: 200, developer: 200, business: 200, enterprise: 200 },
  csv: { free: 'developer', developer: 200, business: 200, enterprise: 200 },
  xlsx: { free: 'business', developer: 'business', business: 200, enterprise: 200 },
  xml: { free: 'enterprise', developer: 'enterprise', business: 'enterprise', enterprise: 200 },
  parquet: { free: 'enterprise', developer: 'enterprise', business: 'enterprise', enterprise: 200 },
};
const YEAR_CELLS: Record<number, Record<PlanId, number | PlanId>> = {
  2026: { free: 200, developer: 200, business: 200, enterprise: 200 },
  2025: { free: 'developer', developer: 200, business: 200, enterprise: 200 },
  2023: { free: 'business', developer: 'business', business: 200, enterprise: 200 },
  2022: { free: 'enterprise', developer: 'enterprise', business: 'enterprise', enterprise: 200 },
  2014: { free: 'enterprise', developer: 'enterprise', business: 'enterprise', enterprise: 200 },
};
const LIMITS: Record<PlanId, string | undefined> = {
  free: '"hourly";q=100;w=3600',
  developer: '"daily";q=10000;w=86400',
  business: '"daily";q=100000;w=86400',
  enterprise: undefined,
};

describe('plan matrix', () => {
  let t: TestApp;
  const keys = {} as Record<PlanId, string | undefined>;
  const sessions = {} as Record<PlanId, string>;
  before(async () => {
    t = await buildTestApp();
    for (const plan of PLAN_IDS) {
      const a = await accountOnPlan(t, plan);
      keys[plan] = a.apiKey ?? undefined;
      sessions[plan] = a.session;
    }
  });
  after(() => t.close());

  const call = (
    plan: PlanId,
    url: string,
    method: 'GET' | 'POST' | 'PUT' = 'GET',
    payload?: object,
  ) =>
    t.app.inject({
      method,
      url,
      payload,
      // Free: no credential on data endpoints, its session on account endpoints.
      headers:
        keys[plan] !== undefined
          ? { authorization: `Bearer ${keys[plan]}` }
          : url.includes('/salary') || url.includes('/bulk')
            ? {}
            : { authorization: `Bearer ${sessions[plan]}` },
    });

  const expectCell = (
    res: { statusCode: number; json: () => { required_plan?: string } },
    cell: number | PlanId,
    what: string,
  ) => {
    if (typeof cell === 'number') assert.equal(res.statusCode, cell, what);
    else {
      assert.equal(res.statusCode, 403, what);
      assert.equal(res.json().required_plan, cell, what);
    }
  };

  for (const plan of PLAN_IDS) {
    for (const [format, cells] of Object.entries(FORMAT_CELLS)) {
      it(`${plan} × format ${format}`, async () => {
        expectCell(
          await call(plan, `/api/v1/salary?country=PL&job=accountant&level=mid&format=${format}`),
          cells[plan],
          `${plan} ${format}`,
        );
      });
    }
    for (const [year, cells] of Object.entries(YEAR_CELLS)) {
      it(`${plan} × year ${year}`, async () => {
        expectCell(
          await call(plan, `/api/v1/salary?country=PL&job=accountant&level=mid&year=${year}`),
          cells[plan],
          `${plan} ${year}`,
        );
      });
    }
    it(`${plan} × request limit headers`, async () => {
      const res = await call(plan, '/api/v1/salary?country=PL&job=accountant');
      assert.equal(res.headers['ratelimit-policy'], LIMITS[plan]);
    });
    it(`${plan} × bulk endpoints`, async () => {
      for (const url of [
        '/api/v1/bulk/countries?job=nurse',
        '/api/v1/bulk/jobs?country=PL',
        '/api/v1/bulk/archive',
      ]) {
        expectCell(
          await call(plan, url),
          plan === 'free' || plan === 'developer' ? 'business' : 200,
          `${plan} ${url}`,
        );
      }
    });
    it(`${plan} × custom fields`, async () => {
      const res = await call(plan, '/api/v1/salary?country=PL&job=accountant&fields=p10,mean');
      expectCell(res, plan === 'free' || plan === 'developer' ? 'business' : 200, plan);
    });
    it(`${plan} × usage analytics`, async () => {
      expectCell(await call(plan, '/api/v1/usage'), plan === 'free' ? 'developer' : 200, plan);
    });
    it(`${plan} × IP allowlist`, async () => {
      const res = await call(plan, '/api/v1/account/allowlist', 'PUT', { allowlist: [] });
      expectCell(res, plan === 'free' || plan === 'developer' ? 'business' : 200, plan);
    });
    it(`${plan} × API keys (count per plan)`, async () => {
      const res = await call(plan, '/api/v1/keys', 'POST', { name: 'extra' });
      const expected = { free: 'developer', developer: 409, business: 201, enterprise: 201 }[
        plan
      ] as number | PlanId;
      expectCell(res, expected, plan);
    });
    it(`${plan} × scoped keys`, async () => {
      const res = await call(plan, '/api/v1/keys', 'POST', {
        name: 'scoped',
        scopes: ['salary:read'],
      });
      expectCell(res, plan === 'enterprise' ? 201 : 'enterprise', plan);
    });
  }

  it('Business allows five keys, the sixth is 409', async () => {
    const session = sessions.business;
    const codes: number[] = [];
    for (let i = 0; i < 5; i++) {
      codes.push(
        (
          await t.app.inject({
            method: 'POST',
            url: '/api/v1/keys',
            payload: { name: `k${i}` },
            headers: { authorization: `Bearer ${session}` },
          })
        ).statusCode,
      );
    }
    // One key from subscribing and one from the matrix test above: three more fit, then 409.
    assert.deepEqual(codes, [201, 201, 201, 409, 409]);
  });

  it('auth methods: none → Free, invalid key → 401, session → account plan', async () => {
    assert.equal(
      (await t.app.inject('/api/v1/salary?country=PL&job=nurse')).headers['x-ratelimit-limit'],
      '100',
    );
    assert.equal(
      (
        await t.app.inject({
          url: '/api/v1/salary?country=PL&job=nurse',
          headers: { authorization: 'Bearer sk_live_invalid' },
        })
      ).statusCode,
      401,
    );
    const bySession = await t.app.inject({
      url: '/api/v1/salary?country=PL&job=nurse&format=csv',
      headers: { authorization: `Bearer ${sessions.developer}` },
    });
    assert.equal(bySession.statusCode, 200);
  });
});
