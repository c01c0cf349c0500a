// The dashboard's SLA page shows the figures GET /api/v1/sla shows, to plans with an SLA.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { accountOnPlan } from '../helpers/accounts.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';

describe('dashboard SLA page', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({
      now: '2026-10-31T12:00:00Z',
      env: { SLA_HEARTBEAT_SECONDS: '0', BILLING_INTERVAL_SECONDS: '86400' },
    });
  });
  after(() => t.close());

  const page = (session: string) =>
    t.app.inject({ url: '/dashboard/sla', headers: { cookie: `salary_session=${session}` } });

  it('Business: target, this month so far, the down interval, as the API computes them', async () => {
    const business = await accountOnPlan(t, 'business');
    t.clock.set('2026-11-02T08:01:00Z');
    // One request served and one failed in the 08:00 interval: 50 %.
    t.sla.counter.count(business.accountId, 200, t.clock.now());
    t.sla.counter.count(business.accountId, 503, t.clock.now());
    await t.sla.counter.flush();
    t.clock.set('2026-11-03T00:00:00Z');
    const api = await t.app.inject({
      url: '/api/v1/sla',
      headers: { authorization: `Bearer ${business.apiKey!}` },
    });
    const uptime = api.json<{ current_month: { uptime_percent: number } }>().current_month
      .uptime_percent;
    const res = await page(business.session);
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /aria-current="page"\s*>Uptime SLA/);
    assert.match(res.body, /Guaranteed uptime<\/dt>\s*<dd class="figure">99\.5 %/);
    // 100 − 50/576 = 99.913… → printed rounded down as the API's 99.9131 is.
    assert.equal(Math.floor(uptime * 100) / 100, 99.91);
    assert.match(res.body, /2026-11 so far<\/dt>\s*<dd class="figure">99\.91 %/);
    assert.match(
      res.body,
      /failed requests<\/td>\s*<td data-label="Error rate">50 %<\/td>\s*<td data-label="Served">1<\/td>\s*<td data-label="Failed">1<\/td>/,
    );
    assert.match(res.body, /No month closed yet/);
  });

  it('Developer: no SLA link in the menu, and the page says which plans have one', async () => {
    const developer = await accountOnPlan(t, 'developer');
    const overview = await t.app.inject({
      url: '/dashboard',
      headers: { cookie: `salary_session=${developer.session}` },
    });
    const menu = /<nav[\s\S]*?<\/nav>/.exec(overview.body)?.[0];
    assert.ok(menu !== undefined, 'the page has a menu');
    assert.doesNotMatch(menu, /href="\/dashboard\/sla"/);
    const res = await page(developer.session);
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /comes with the Business plan/);
  });
});
