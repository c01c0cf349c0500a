import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { exportJWK, generateKeyPair } from 'jose';
import { createDocumentStore } from '../../src/compliance/index.js';
import { bytes } from '../../src/dashboard/layout.js';
import { accountOnPlan } from '../helpers/accounts.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { pageTexts, samplePdf } from '../helpers/pdf.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { DashboardClient } from './client.js';

type Account = Awaited<ReturnType<typeof accountOnPlan>>;

const EXPORT_FORM = {
  name: 'Nurses weekly',
  schedule: '0 6 * * 1',
  timezone: 'Europe/Berlin',
  kind: 'job',
  job: 'nurse',
  country: '',
  years: 'current',
  fields: '',
  format: 'csv',
  destination: 'webhook',
};

const idIn = (body: string, pattern: RegExp): string => {
  const id = pattern.exec(body)?.[1];
  assert.ok(id, `${String(pattern)} in the page`);
  return id;
};

describe('dashboard pages of the plan features over HTTP', () => {
  let t: TestApp;
  let receiver: Receiver;
  let ent: Account;
  let other: Account;
  let client: DashboardClient;
  let intruder: DashboardClient;

  before(async () => {
    t = await buildTestApp({
      now: '2026-11-25T14:05:00Z',
      env: { OUTBOUND_ALLOW_PRIVATE_TARGETS: 'true' },
    });
    receiver = await startReceiver();
    ent = await accountOnPlan(t, 'enterprise');
    other = await accountOnPlan(t, 'enterprise');
    client = new DashboardClient(t);
    await client.signIn(ent.email);
    intruder = new DashboardClient(t);
    await intruder.signIn(other.email);
  });
  after(async () => {
    await receiver.close();
    await t.close();
  });

  /** The `data` list of an API read with the account's key: what the dashboard's forms did. */
  async function listed<T = Record<string, unknown>>(path: string): Promise<T[]> {
    const res = await t.app.inject({
      url: path,
      headers: { authorization: `Bearer ${ent.apiKey}` },
    });
    assert.equal(res.statusCode, 200, res.body);
    return res.json<{ data: T[] }>().data;
  }

  describe('exports', () => {
    let exportId = '';

    it('creates an export from the form, its webhook secret shown once', async () => {
      const page = await client.get('/dashboard/exports');
      assert.match(page.body, /0 of 50 exports/);
      const created = await client.post(
        '/dashboard/exports',
        { ...EXPORT_FORM, url: receiver.url },
        page.body,
      );
      assert.equal(created.statusCode, 201, created.body);
      const secret = idIn(created.body, /id="export-secret"[^>]*value="(whsec_[^"]+)"/);
      exportId = idIn(created.body, /action="\/dashboard\/exports\/(exp_[^/"]+)\/run"/);
      const again = await client.get(`/dashboard/exports/${exportId}`);
      assert.equal(again.statusCode, 200);
      assert.ok(!again.body.includes(secret), 'the secret is shown once');
      const [stored] = await listed<{ name: string; query: unknown }>('/api/v1/exports');
      assert.equal(stored?.name, 'Nurses weekly');
      assert.deepEqual(stored?.query, { kind: 'job', job: 'nurse', years: 'current' });
    });

    it('names each wrong field of the form and keeps the account unchanged', async () => {
      const page = await client.get('/dashboard/exports');
      const bad = await client.post(
        '/dashboard/exports',
        { ...EXPORT_FORM, name: '', destination: 'sftp', host_key_sha256: 'nope' },
        page.body,
      );
      assert.equal(bad.statusCode, 400);
      assert.match(bad.body, /<a href="#new-name">Name<\/a>: is required/);
      assert.match(bad.body, /Server host key fingerprint<\/a>: must be SHA256:/);
      assert.equal((await listed('/api/v1/exports')).length, 1);
    });

    it('changes, runs now (history with status, size and sha256) and downloads the file', async () => {
      const page = await client.get(`/dashboard/exports/${exportId}`);
      const saved = await client.post(
        `/dashboard/exports/${exportId}`,
        { ...EXPORT_FORM, name: 'Nurses on Mondays', destination: 'keep' },
        page.body,
      );
      assert.equal(saved.statusCode, 303, saved.body);
      const run = await client.post(`/dashboard/exports/${exportId}/run`, {}, page.body);
      assert.equal(run.statusCode, 303);
      assert.equal(run.headers.location, `/dashboard/exports/${exportId}?done=queued`);
      await t.exportWorker.runOnce();
      const history = await client.get(`/dashboard/exports/${exportId}?done=queued`);
      assert.match(history.body, /<h1>Nurses on Mondays<\/h1>/);
      assert.match(history.body, /A run is queued/);
      assert.match(history.body, /succeeded/);
      const sha = idIn(history.body, /<span class="sha">([0-9a-f]{64})<\/span>/);
      const runId = idIn(history.body, /href="\/dashboard\/exports\/runs\/(run_[^/]+)\/file"/);
      const file = await client.get(`/dashboard/exports/runs/${runId}/file`);
      assert.equal(file.statusCode, 200);
      assert.match(String(file.headers['content-disposition']), /^attachment/);
      assert.equal(createHash('sha256').update(file.rawPayload).digest('hex'), sha);
      const size = bytes(file.rawPayload.length);
      assert.match(size, /^\d+(\.\d)? kB$/);
      assert.ok(history.body.includes(`>${size}</td>`), `the size ${size} in the history`);

      // Another account sees none of it, and cannot act on it.
      assert.equal((await intruder.get(`/dashboard/exports/runs/${runId}/file`)).statusCode, 404);
      const theirs = await intruder.get('/dashboard/exports');
      assert.equal((await intruder.get(`/dashboard/exports/${exportId}`)).statusCode, 404);
      for (const action of ['run', 'delete'])
        assert.equal(
          (await intruder.post(`/dashboard/exports/${exportId}/${action}`, {}, theirs.body))
            .statusCode,
          404,
        );
      assert.equal((await listed(`/api/v1/exports/${exportId}/runs`)).length, 1);
    });

    it('refuses a form without its CSRF token, and deletes with it', async () => {
      const page = await client.get(`/dashboard/exports/${exportId}`);
      const forged = await client.post(`/dashboard/exports/${exportId}/delete`, {});
      assert.equal(forged.statusCode, 403);
      assert.equal((await listed('/api/v1/exports')).length, 1);
      const deleted = await client.post(`/dashboard/exports/${exportId}/delete`, {}, page.body);
      assert.equal(deleted.statusCode, 303);
      assert.equal((await listed('/api/v1/exports')).length, 0);
    });
  });

  describe('OAuth clients', () => {
    it('creates a client with its secret shown once, rotates it, deletes it; CSRF and other accounts refused', async () => {
      const page = await client.get('/dashboard/oauth-clients');
      const form = { name: 'reporting', scopes: 'salary:read', method: 'client_secret_basic' };
      assert.equal((await client.post('/dashboard/oauth-clients', form)).statusCode, 403);
      const created = await client.post('/dashboard/oauth-clients', form, page.body);
      assert.equal(created.statusCode, 201, created.body);
      const secret = idIn(created.body, /id="client-secret"[^>]*value="(ocs_[^"]+)"/);
      const id = idIn(created.body, /action="\/dashboard\/oauth-clients\/(ocl_[^/]+)\/rotate"/);
      const again = await client.get('/dashboard/oauth-clients');
      assert.ok(!again.body.includes(secret));
      const rotated = await client.post(`/dashboard/oauth-clients/${id}/rotate`, {}, page.body);
      const next = idIn(rotated.body, /id="client-secret"[^>]*value="(ocs_[^"]+)"/);
      assert.notEqual(next, secret);
      assert.match(rotated.body, /Previous secret/);

      const theirs = await intruder.get('/dashboard/oauth-clients');
      for (const action of ['rotate', 'delete'])
        assert.equal(
          (await intruder.post(`/dashboard/oauth-clients/${id}/${action}`, {}, theirs.body))
            .statusCode,
          404,
        );
      const deleted = await client.post(`/dashboard/oauth-clients/${id}/delete`, {}, page.body);
      assert.equal(deleted.statusCode, 303);
      assert.equal((await listed('/api/v1/oauth/clients')).length, 0);
    });

    it('keeps the public keys of a private_key_jwt client (no secret) and replaces them', async () => {
      const jwk = async (kid: string) => ({
        ...(await exportJWK((await generateKeyPair('ES256')).publicKey)),
        kid,
      });
      const page = await client.get('/dashboard/oauth-clients');
      const created = await client.post(
        '/dashboard/oauth-clients',
        {
          name: 'signed',
          scopes: 'salary:read',
          method: 'private_key_jwt',
          jwks: JSON.stringify({ keys: [await jwk('k1')] }),
        },
        page.body,
      );
      assert.equal(created.statusCode, 201, created.body);
      assert.doesNotMatch(created.body, /id="client-secret"/);
      assert.doesNotMatch(created.body, /Rotate the secret/);
      const id = idIn(created.body, /action="\/dashboard\/oauth-clients\/(ocl_[^/]+)\/keys"/);
      const bad = await client.post(
        `/dashboard/oauth-clients/${id}/keys`,
        { jwks: '{"keys": [{"kty": "oct", "k": "c2VjcmV0"}]}' },
        page.body,
      );
      assert.equal(bad.statusCode, 400);
      assert.match(bad.body, /must be a public key/);
      const saved = await client.post(
        `/dashboard/oauth-clients/${id}/keys`,
        { jwks: JSON.stringify({ keys: [await jwk('k2')] }) },
        page.body,
      );
      assert.equal(saved.statusCode, 303, saved.body);
      const [stored] = await listed<{ jwks: { keys: { kid?: string }[] } | null }>(
        '/api/v1/oauth/clients',
      );
      assert.equal(stored?.jwks?.keys[0]?.kid, 'k2');
    });
  });

  describe('custom endpoints', () => {
    it('creates one from the form, tries it as the account, and serves its OpenAPI document', async () => {
      const page = await client.get('/dashboard/custom-endpoints');
      const created = await client.post(
        '/dashboard/custom-endpoints',
        {
          slug: 'nordic-nurses',
          countries: 'dk, FI SE',
          jobs: 'nurse',
          years: 'current',
          format: 'json',
          parameters: 'country',
        },
        page.body,
      );
      assert.equal(created.statusCode, 303, created.body);
      const id = idIn(String(created.headers.location), /\/custom-endpoints\/(cep_.+)$/);
      const detail = await client.get(`/dashboard/custom-endpoints/${id}`);
      assert.match(detail.body, /countries: DK, FI, SE/);
      const tried = await client.post(
        `/dashboard/custom-endpoints/${id}/try`,
        { country: 'FI' },
        detail.body,
      );
      assert.equal(tried.statusCode, 200);
      assert.match(tried.body, /nordic-nurses\?country=FI<\/code>: HTTP 200/);
      assert.match(tried.body, /&quot;country&quot;: &quot;FI&quot;/);
      assert.doesNotMatch(tried.body, /&quot;country&quot;: &quot;SE&quot;/);
      const usage = await t.app.inject({
        url: '/api/v1/usage',
        headers: { authorization: `Bearer ${ent.apiKey}` },
      });
      assert.equal(
        usage.json<{ by_endpoint: Record<string, number> }>().by_endpoint[
          'GET /api/v1/custom/nordic-nurses'
        ],
        1,
        'a try counts in the account’s usage',
      );
      const openapi = await client.get('/dashboard/custom-endpoints/openapi.json');
      assert.equal(openapi.statusCode, 200);
      const doc = openapi.json<{ paths: Record<string, unknown> }>();
      assert.ok(doc.paths['/api/v1/custom/nordic-nurses']);

      const theirs = await intruder.get('/dashboard/custom-endpoints');
      assert.doesNotMatch(theirs.body, /nordic-nurses/);
      assert.equal(
        (await intruder.post(`/dashboard/custom-endpoints/${id}/try`, {}, theirs.body)).statusCode,
        404,
      );
      assert.equal(
        (await intruder.post(`/dashboard/custom-endpoints/${id}/delete`, {}, theirs.body))
          .statusCode,
        404,
      );
      const bad = await client.post(
        '/dashboard/custom-endpoints',
        { slug: 'Not A Slug' },
        page.body,
      );
      assert.equal(bad.statusCode, 400);
      assert.equal(
        (await client.post(`/dashboard/custom-endpoints/${id}/delete`, {})).statusCode,
        403,
      );
      const deleted = await client.post(`/dashboard/custom-endpoints/${id}/delete`, {}, page.body);
      assert.equal(deleted.statusCode, 303);
      assert.equal((await listed('/api/v1/custom-endpoints')).length, 0);
    });
  });

  describe('compliance', () => {
    it('downloads a copy stamped for the account, never another account’s document; reviews access as CSV and PDF', async () => {
      const store = createDocumentStore({ db: t.db, clock: t.clock });
      const shared = await store.add({
        content: await samplePdf(2, 'SOC2'),
        fileName: 'soc2.pdf',
        title: 'SOC 2 Type II report',
        periodStart: '2025-10-01',
        periodEnd: '2026-09-30',
      });
      const private_ = await store.add({
        content: await samplePdf(1, 'Bridge'),
        fileName: 'bridge.pdf',
        title: 'Bridge letter for the other account',
        periodStart: '2026-10-01',
        periodEnd: '2026-11-30',
        accountEmail: other.email,
      });
      const page = await client.get('/dashboard/compliance');
      assert.match(page.body, /SOC 2 Type II report/);
      assert.match(page.body, /2025-10-01<\/time> to <time[^>]*>2026-09-30/);
      assert.doesNotMatch(page.body, /Bridge letter/);
      const copy = await client.get(`/dashboard/compliance/documents/${shared.id}`);
      assert.equal(copy.statusCode, 200);
      assert.equal(copy.headers['content-type'], 'application/pdf');
      const texts = await pageTexts(copy.rawPayload);
      assert.match(texts[0] ?? '', new RegExp(`provided to ${ent.email}`));
      assert.equal(
        (await client.get(`/dashboard/compliance/documents/${private_.id}`)).statusCode,
        404,
      );

      t.clock.advance(60_000);
      const csv = await client.post(
        '/dashboard/compliance/access-review',
        { format: 'csv', from: '2026-11-01', to: '' },
        page.body,
      );
      assert.equal(csv.statusCode, 200);
      assert.match(String(csv.headers['content-type']), /^text\/csv/);
      assert.match(csv.body, /^type,id,name/);
      assert.match(csv.body, /api_key,/);
      const pdf = await client.post(
        '/dashboard/compliance/access-review',
        { format: 'pdf', from: '2026-11-01' },
        page.body,
      );
      assert.equal(pdf.headers['content-type'], 'application/pdf');
      const shown = await client.post(
        '/dashboard/compliance/access-review',
        { format: 'html', from: '2026-11-01' },
        page.body,
      );
      assert.match(shown.body, /hash chain\s*<strong>verified<\/strong>/);
      const wrong = await client.post(
        '/dashboard/compliance/access-review',
        { format: 'html', from: 'yesterday' },
        page.body,
      );
      assert.equal(wrong.statusCode, 400);
      assert.match(wrong.body, /not a date or time/);
      assert.equal(
        (await client.post('/dashboard/compliance/access-review', { format: 'csv' })).statusCode,
        403,
      );
    });
  });

  describe('plans and limits', () => {
    it('shows each feature page to a lower plan as the plan that has it, and refuses its forms', async () => {
      const business = await accountOnPlan(t, 'business');
      const low = new DashboardClient(t);
      await low.signIn(business.email);
      for (const [path, text] of [
        ['/exports', /Scheduled bulk exports come with the Enterprise plan/],
        ['/oauth-clients', /OAuth clients come with the Enterprise plan/],
        ['/custom-endpoints', /Custom endpoints come with the Enterprise plan/],
        ['/compliance', /Compliance documents and the access review come with the Enterprise plan/],
      ] as const) {
        const res = await low.get(`/dashboard${path}`);
        assert.equal(res.statusCode, 200, path);
        assert.match(res.body, text);
        assert.doesNotMatch(res.body, new RegExp(`<a href="/dashboard${path}"`), 'not in the menu');
        const refused = await low.post(`/dashboard${path}`, { name: 'x' }, res.body);
        assert.equal(refused.statusCode, 403, path);
      }
      const free = await accountOnPlan(t, 'free');
      const lowest = new DashboardClient(t);
      await lowest.signIn(free.email);
      const webhooks = await lowest.get('/dashboard/webhooks');
      assert.equal(webhooks.statusCode, 200);
      assert.match(webhooks.body, /Webhooks come with the Business plan and above/);
    });

    it('disables "Create key" at the plan’s limit and says why', async () => {
      const business = await accountOnPlan(t, 'business');
      const c = new DashboardClient(t);
      await c.signIn(business.email);
      let page = await c.get('/dashboard/keys');
      assert.doesNotMatch(page.body, /id="key-full"/);
      for (let i = 2; i <= 5; i++)
        assert.equal(
          (await c.post('/dashboard/keys', { name: `k${i}` }, page.body)).statusCode,
          201,
        );
      page = await c.get('/dashboard/keys');
      assert.match(page.body, /5 of 5 live keys and 0 of 5 test keys in use/);
      // The live keys are all in use: only a test key can still be made.
      assert.match(page.body, /<input type="radio" name="mode" value="live" disabled\s*\/>/);
      assert.match(page.body, /<input type="radio" name="mode" value="test" checked\s*\/>/);
      assert.doesNotMatch(page.body, /key-full/);
    });

    it('starts the plan selector on the current plan, and writes money as €1,500.00', async () => {
      const business = await accountOnPlan(t, 'business');
      const c = new DashboardClient(t);
      await c.signIn(business.email);
      const page = await c.get('/dashboard/billing');
      assert.match(page.body, /<option value="business" selected>/);
      const same = await c.post('/dashboard/billing/plan', { plan: 'business' }, page.body);
      assert.equal(same.statusCode, 400);
      assert.match(same.body, /You are on the Business plan already/);
      const enterprise = await client.get('/dashboard/billing');
      assert.match(enterprise.body, /€1,500\.00 per month/);
    });

    it('writes every time once, in UTC, as 2026-11-25 14:05 UTC', async () => {
      const page = await client.get('/dashboard/account');
      assert.match(
        page.body,
        /<time datetime="2026-11-25T14:0\d:00.000Z">2026-11-25 14:0\d UTC<\/time>/,
      );
      assert.doesNotMatch(page.body, /data-local/);
    });
  });
});
