// No invoice is made out to an account that has not said who it is: the changes that would
// issue one wait for the billing details; the changes that issue none do not.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { accountOnPlan, giveBillingDetails } from '../helpers/accounts.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { DUTCH_SELLER } from '../helpers/seller.js';
import { DashboardClient } from '../dashboard/client.js';

describe('billing details before an invoice', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({ env: DUTCH_SELLER });
  });
  after(() => t.close());

  const call = (session: string, method: 'GET' | 'POST', url: string, body?: unknown) =>
    t.app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${session}` },
      ...(body === undefined ? {} : { payload: body as Record<string, unknown> }),
    });

  it('subscribing without billing details is 409 BILLING_DETAILS_REQUIRED and invoices nothing', async () => {
    const a = await accountOnPlan(t, 'free');
    const refused = await call(a.session, 'POST', '/api/v1/subscription', { plan: 'developer' });
    assert.equal(refused.statusCode, 409, refused.body);
    assert.equal(refused.headers['content-type'], 'application/problem+json');
    assert.equal(refused.json().code, 'BILLING_DETAILS_REQUIRED');
    assert.match(refused.json().detail, /billing-details/);
    assert.deepEqual((await call(a.session, 'GET', '/api/v1/invoices')).json().data, []);
    assert.equal((await call(a.session, 'GET', '/api/v1/subscription')).json().plan, 'free');

    await giveBillingDetails(t, a.accountId);
    const ok = await call(a.session, 'POST', '/api/v1/subscription', { plan: 'developer' });
    assert.equal(ok.statusCode, 200, ok.body);
    assert.equal(ok.json().invoices[0].buyer.name, 'Jan de Vries');
  });

  it('an upgrade that charges waits for the details; a downgrade, which charges nothing, does not', async () => {
    const a = await accountOnPlan(t, 'developer');
    // An account subscribed before the details were asked for.
    await t.db.query('DELETE FROM billing_details WHERE account_id = $1', [a.accountId]);
    const before = (await call(a.session, 'GET', '/api/v1/invoices')).json().data.length;
    const up = await call(a.session, 'POST', '/api/v1/subscription', { plan: 'business' });
    assert.equal(up.statusCode, 409, up.body);
    assert.equal(up.json().code, 'BILLING_DETAILS_REQUIRED');
    assert.equal((await call(a.session, 'GET', '/api/v1/invoices')).json().data.length, before);
    const cancel = await call(a.session, 'POST', '/api/v1/subscription', { plan: 'free' });
    assert.equal(cancel.statusCode, 200, cancel.body);
  });

  it('the dashboard’s plan change names the missing details instead of invoicing', async () => {
    const a = await accountOnPlan(t, 'free');
    const client = new DashboardClient(t);
    await client.signIn(a.email);
    const billing = await client.get('/dashboard/billing');
    const res = await client.post(
      '/dashboard/billing/plan/confirm',
      { plan: 'developer' },
      billing.body,
    );
    assert.equal(res.statusCode, 409, res.body);
    assert.match(res.body, /no billing details/);
    assert.deepEqual((await call(a.session, 'GET', '/api/v1/invoices')).json().data, []);
  });
});
