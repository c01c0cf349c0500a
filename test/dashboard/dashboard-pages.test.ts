import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { accountOnPlan } from '../helpers/accounts.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { DashboardClient } from './client.js';

describe('dashboard billing, webhooks and account pages', () => {
  let t: TestApp;
  let receiver: Receiver;
  before(async () => {
    t = await buildTestApp({
      now: '2026-11-10T12:00:00Z',
      env: { OUTBOUND_ALLOW_PRIVATE_TARGETS: 'true' },
    });
    receiver = await startReceiver();
  });
  after(async () => {
    await receiver.close();
    await t.close();
  });

  const api = (url: string, token: string) =>
    t.app.inject({ url, headers: { authorization: `Bearer ${token}` } });

  it('shows the prorated upgrade before confirming, and charges exactly that', async () => {
    const { email, session } = await accountOnPlan(t, 'developer');
    t.clock.set('2026-11-25T12:00:00Z'); // half of the period is left
    const client = new DashboardClient(t);
    await client.signIn(email);
    const billing = await client.get('/dashboard/billing');
    const preview = await client.post(
      '/dashboard/billing/plan',
      { plan: 'business' },
      billing.body,
    );
    assert.equal(preview.statusCode, 200);
    const net = /id="due-net">€([\d.]+)/.exec(preview.body)?.[1];
    const due = /id="due-now">€([\d.]+)/.exec(preview.body)?.[1];
    assert.ok(net !== undefined && due !== undefined, 'the amounts are shown');
    assert.match(preview.body, /upgrade, effective\s+now/);
    const before = (await api('/api/v1/invoices', session)).json().data.length;
    const done = await client.post(
      '/dashboard/billing/plan/confirm',
      { plan: 'business' },
      preview.body,
    );
    assert.equal(done.statusCode, 303);
    const invoices = (await api('/api/v1/invoices', session)).json().data;
    assert.equal(invoices.length, before + 1);
    assert.equal((invoices.at(-1).subtotal_cents / 100).toFixed(2), net);
    assert.equal((invoices.at(-1).total_cents / 100).toFixed(2), due);
    const page = await client.get('/dashboard/billing');
    assert.match(page.body, /id="billing-plan">\s*Business/);
    // A downgrade is free now and waits for the period end.
    const down = await client.post('/dashboard/billing/plan', { plan: 'developer' }, page.body);
    assert.match(down.body, /Charged now: €0\.00/);
    assert.match(down.body, /at the end of the period/);
    const unknown = await client.post('/dashboard/billing/plan', { plan: 'platinum' }, page.body);
    assert.equal(unknown.statusCode, 400);
    assert.match(unknown.body, /Choose one of the plans: free, developer, business/);
  });

  it('manages webhooks on Business: secret once, test event, rotation; refused below', async () => {
    const developer = await accountOnPlan(t, 'developer');
    const low = new DashboardClient(t);
    await low.signIn(developer.email);
    const refused = await low.get('/dashboard/webhooks');
    assert.equal(refused.statusCode, 200);
    assert.match(refused.body, /Webhooks come with the Business plan and above/);
    const form = await low.post('/dashboard/webhooks', { url: receiver.url }, refused.body);
    assert.equal(form.statusCode, 403);

    const { email } = await accountOnPlan(t, 'business');
    const client = new DashboardClient(t);
    await client.signIn(email);
    const page = await client.get('/dashboard/webhooks');
    const created = await client.post(
      '/dashboard/webhooks',
      { url: receiver.url, events: 'data.updated' },
      page.body,
    );
    assert.equal(created.statusCode, 200, created.body);
    const secret = /id="wh-secret"[^>]*value="(whsec_[^"]+)"/.exec(created.body)?.[1];
    assert.ok(secret);
    const listed = await client.get('/dashboard/webhooks');
    assert.ok(!listed.body.includes(secret), 'the secret is shown once');
    const id = /action="\/dashboard\/webhooks\/([^/]+)\/test"/.exec(listed.body)?.[1] as string;
    const tested = await client.post(`/dashboard/webhooks/${id}/test`, {}, listed.body);
    assert.match(tested.body, /The test event was accepted: HTTP 200/);
    assert.equal(receiver.received.length, 1);
    assert.ok(receiver.received[0]?.headers['webhook-signature']);
    const rotated = await client.post(`/dashboard/webhooks/${id}/rotate-secret`, {}, listed.body);
    const next = /id="wh-secret"[^>]*value="(whsec_[^"]+)"/.exec(rotated.body)?.[1];
    assert.ok(next !== undefined && next !== secret);
    const bad = await client.post(
      '/dashboard/webhooks',
      { url: 'ftp://example.com/x' },
      listed.body,
    );
    assert.equal(bad.statusCode, 400);
  });

  it('sets the account allowlist (audited, enforced on keys) and explains a wrong one', async () => {
    const { email, apiKey } = await accountOnPlan(t, 'business');
    const client = new DashboardClient(t);
    await client.signIn(email);
    const page = await client.get('/dashboard/account');
    const wrong = await client.post(
      '/dashboard/account/allowlist',
      { allowlist: 'not-an-address' },
      page.body,
    );
    assert.equal(wrong.statusCode, 400);
    assert.match(wrong.body, /allowlist/);
    const saved = await client.post(
      '/dashboard/account/allowlist',
      { allowlist: '203.0.113.0/24\n198.51.100.7' },
      page.body,
    );
    assert.equal(saved.statusCode, 303);
    const after = await client.get('/dashboard/account?done=allowlist');
    assert.match(after.body, /203\.0\.113\.0\/24\n198\.51\.100\.7/);
    assert.match(after.body, /accounts\.set_allowlist/);
    const refused = await api('/api/v1/salary?country=DE&job=nurse', apiKey as string);
    assert.equal(refused.statusCode, 403);
    assert.equal(refused.json().code, 'ADDRESS_NOT_ALLOWED');

    const developer = await accountOnPlan(t, 'developer');
    const low = new DashboardClient(t);
    await low.signIn(developer.email);
    const lowPage = await low.get('/dashboard/account');
    assert.match(lowPage.body, /IP allowlists come with the Business plan/);
    const forbidden = await low.post(
      '/dashboard/account/allowlist',
      { allowlist: '203.0.113.1' },
      lowPage.body,
    );
    assert.equal(forbidden.statusCode, 403);
  });
  it('renames a key with its allowlist, and rotates it: new secret once, the old one still works', async () => {
    const { email, apiKey, accountId } = await accountOnPlan(t, 'business');
    const client = new DashboardClient(t);
    await client.signIn(email);
    const page = await client.get('/dashboard/keys');
    assert.match(page.body, /1 of 5 live keys and 0 of 5 test keys in use on the\s+Business plan/);
    const [key] = await t.services.keys.list(accountId);
    const renamed = await client.post(
      `/dashboard/keys/${key!.id}/update`,
      { name: 'billing job', allowlist: '127.0.0.1, 10.0.0.0/8' },
      page.body,
    );
    assert.equal(renamed.statusCode, 303);
    const [after] = await t.services.keys.list(accountId);
    assert.equal(after!.name, 'billing job');
    assert.deepEqual(after!.allowlist, ['127.0.0.1', '10.0.0.0/8']);
    const rotated = await client.post(`/dashboard/keys/${key!.id}/rotate`, {}, page.body);
    assert.equal(rotated.statusCode, 201);
    const secret = /id="new-key"[^>]*value="(sk_live_[^"]+)"/.exec(rotated.body)?.[1];
    assert.ok(secret !== undefined && secret !== apiKey);
    assert.match(rotated.body, /old secret keeps working for 24 hours/);
    for (const token of [secret, apiKey as string])
      assert.equal((await api('/api/v1/salary?country=DE&job=nurse', token)).statusCode, 200);
  });
});
