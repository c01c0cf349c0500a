import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { COUNTRY_CODES, JOB_SLUGS } from '../../src/catalog/index.js';
import { accountOnPlan } from '../helpers/accounts.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { DashboardClient } from './client.js';

/** The problems the error summary lists, as `label: reason`. */
function summaryOf(body: string): string[] {
  const summary = /<div class="error-summary"[^>]*>([\s\S]*?)<\/div>/.exec(body)?.[1] ?? '';
  return [...summary.matchAll(/<li>([\s\S]*?)<\/li>/g)].map((m) =>
    (m[1] ?? '')
      .replace(/<[^>]+>/g, '')
      .replace(/\s+/g, ' ')
      .trim(),
  );
}

const inputOf = (body: string, id: string): string =>
  new RegExp(`<input[^>]*id="${id}"[^>]*>`).exec(body)?.[0] ?? '';

describe('dashboard forms: every problem at once, what was typed kept, the API limits', () => {
  let t: TestApp;

  before(async () => {
    t = await buildTestApp({ now: '2026-11-25T14:05:00Z' });
  });
  after(async () => {
    await t.close();
  });

  async function signedIn(plan: 'free' | 'developer' | 'business' | 'enterprise') {
    const account = await accountOnPlan(t, plan);
    const client = new DashboardClient(t);
    await client.signIn(account.email);
    return { account, client };
  }

  it('refuses a key name of 101 characters with the reason the API gives, and an empty one', async () => {
    const { account, client } = await signedIn('developer');
    const long = 'k'.repeat(101);
    const api = await t.app.inject({
      method: 'POST',
      url: '/api/v1/keys',
      headers: { authorization: `Bearer ${account.apiKey}` },
      payload: { name: long },
    });
    assert.equal(api.statusCode, 400, api.body);
    const reason = api.json<{ invalid_params: { name: string; reason: string }[] }>()
      .invalid_params[0]?.reason;
    assert.equal(reason, 'is too long (at most 100 characters)');

    const page = await client.get('/dashboard/keys');
    assert.match(inputOf(page.body, 'key-name'), /maxlength="100"/);
    assert.match(inputOf(page.body, 'key-name'), /required/);
    const refused = await client.post('/dashboard/keys', { name: long }, page.body);
    assert.equal(refused.statusCode, 400);
    assert.deepEqual(summaryOf(refused.body), [`Name: ${reason}`]);
    assert.ok(inputOf(refused.body, 'key-name').includes(`value="${long}"`), 'the name is kept');
    const empty = await client.post('/dashboard/keys', { name: '' }, page.body);
    assert.equal(empty.statusCode, 400);
    assert.deepEqual(summaryOf(empty.body), ['Name: is required']);
    const keys = await t.app.inject({
      url: '/api/v1/keys',
      headers: { authorization: `Bearer ${account.apiKey}` },
    });
    assert.equal(keys.json<{ data: unknown[] }>().data.length, 1, 'no key was created');
  });

  it('offers an Enterprise key the scopes as choices, and names a name and a scope refused together', async () => {
    const { account, client } = await signedIn('enterprise');
    const page = await client.get('/dashboard/keys');
    assert.match(page.body, /<input type="checkbox" name="scopes" value="salary:read"/);
    const refused = await client.post(
      '/dashboard/keys',
      { name: '', scopes: 'salary:write', mode: 'live' },
      page.body,
    );
    assert.equal(refused.statusCode, 400);
    assert.deepEqual(summaryOf(refused.body), [
      'Name: is required',
      'Scopes: unknown scope salary:write',
    ]);
    const created = await client.post(
      '/dashboard/keys',
      { name: 'reader', scopes: 'salary:read', mode: 'live' },
      page.body,
    );
    assert.equal(created.statusCode, 201, created.body);
    const keys = await t.app.inject({
      url: '/api/v1/keys',
      headers: { authorization: `Bearer ${account.apiKey}` },
    });
    const reader = keys
      .json<{ data: { name: string; scopes: string[] }[] }>()
      .data.find((k) => k.name === 'reader');
    assert.deepEqual(reader?.scopes, ['salary:read']);
  });

  it('keeps a refused webhook form and lists every problem by its label', async () => {
    const { client } = await signedIn('business');
    const page = await client.get('/dashboard/webhooks');
    assert.match(inputOf(page.body, 'wh-url'), /maxlength="2048"/);
    const url = `https://hooks.example.com/${'a'.repeat(3000)}`;
    const refused = await client.post('/dashboard/webhooks', { url }, page.body);
    assert.equal(refused.statusCode, 400);
    assert.deepEqual(summaryOf(refused.body), [
      'HTTPS URL: is too long (at most 2048 characters)',
      'Events: choose at least one event',
    ]);
    const field = inputOf(refused.body, 'wh-url');
    assert.ok(field.includes(`value="${url}"`), 'the URL typed is kept');
    assert.match(field, /aria-invalid="true"/);
    assert.match(field, /aria-describedby="wh-url-error"/);
    assert.match(refused.body, /<p id="wh-url-error" class="field-error">/);
    assert.doesNotMatch(refused.body, /name="events" value="[^"]+"\s+checked/, 'none ticked');
  });

  it('keeps a refused export form less its secrets and names every field by its label', async () => {
    const { client } = await signedIn('enterprise');
    const page = await client.get('/dashboard/exports');
    const refused = await client.post(
      '/dashboard/exports',
      {
        name: '',
        schedule: 'soon',
        timezone: 'Europe/Berlin',
        kind: 'country',
        country: 'FR',
        years: 'current',
        format: 'csv',
        destination: 'sftp',
        host: 'sftp.example.com',
        port: 'x',
        username: 'erika',
        password: 'never shown again',
        host_key_sha256: 'nope',
        path: '',
      },
      page.body,
    );
    assert.equal(refused.statusCode, 400);
    assert.deepEqual(summaryOf(refused.body), [
      'Name: is required',
      'Schedule: must be a 5-field cron expression',
      'SFTP port: must be a number from 1 to 65535',
      'Server host key fingerprint: must be SHA256: and 43 base64 characters',
      'Remote folder: is required for an SFTP destination',
    ]);
    assert.match(inputOf(refused.body, 'new-host'), /value="sftp\.example\.com"/);
    assert.match(inputOf(refused.body, 'new-timezone'), /value="Europe\/Berlin"/);
    assert.match(refused.body, /<option value="FR" selected>/);
    assert.match(refused.body, /value="sftp"\s+checked/);
    assert.ok(!refused.body.includes('never shown again'), 'the password is not sent back');
    assert.doesNotMatch(refused.body, /query\.|host_key_sha256:/);
  });

  it('keeps a refused custom endpoint form, its problems by label, examples from the catalogue', async () => {
    const { client } = await signedIn('enterprise');
    const page = await client.get('/dashboard/custom-endpoints');
    const placeholder = (id: string) =>
      (/placeholder="([^"]*)"/.exec(inputOf(page.body, id))?.[1] ?? '').split(', ');
    const jobs = placeholder('ce-jobs');
    const countries = placeholder('ce-countries');
    assert.ok(jobs.length > 0 && jobs.every((j) => JOB_SLUGS.includes(j)), jobs.join());
    assert.ok(countries.length > 0 && countries.every((c) => COUNTRY_CODES.includes(c)));

    const refused = await client.post(
      '/dashboard/custom-endpoints',
      {
        slug: 'Not A Slug',
        countries: 'DK, Denmark',
        jobs: 'nurse',
        levels: 'senior',
        years: 'current',
        format: 'json',
      },
      page.body,
    );
    assert.equal(refused.statusCode, 400);
    assert.deepEqual(summaryOf(refused.body), [
      'Name in the path: must be lower-case letters and digits in hyphen-separated words',
      'Countries: must be two-letter codes',
    ]);
    assert.match(inputOf(refused.body, 'ce-slug'), /value="Not A Slug"/);
    assert.match(inputOf(refused.body, 'ce-jobs'), /value="nurse"/);
    assert.match(refused.body, /value="senior"\s+checked/);

    // A job the catalogue lacks is the service's problem, named by the form's label.
    const unknown = await client.post(
      '/dashboard/custom-endpoints',
      { slug: 'nurses', jobs: 'data-scientist', years: 'current', format: 'json' },
      page.body,
    );
    assert.equal(unknown.statusCode, 400);
    const [problem] = summaryOf(unknown.body);
    assert.match(problem ?? '', /^Job categories: /);
    assert.match(inputOf(unknown.body, 'ce-jobs'), /value="data-scientist"/);
  });

  it('shows on the Free overview the count the API enforces for Free requests from the address', async () => {
    const { client } = await signedIn('free');
    const address = '127.0.0.1'; // where the client's requests come from
    const n = 11;
    for (let i = 0; i < n; i++) {
      const res = await t.app.inject({
        url: '/api/v1/salary?country=DE&job=nurse',
        remoteAddress: address,
      });
      assert.equal(res.statusCode, 200, res.body);
    }
    const last = await t.app.inject({
      url: '/api/v1/salary?country=DE&job=nurse',
      remoteAddress: address,
    });
    // What the API states is left (RateLimit: …;r=<remaining>;t=<seconds>), after n + 1.
    const remaining = /r=(\d+)/.exec(String(last.headers['ratelimit']))?.[1];
    assert.ok(remaining !== undefined, String(last.headers['ratelimit']));
    const overview = await client.get('/dashboard');
    assert.equal(overview.statusCode, 200);
    const used = /<span id="quota-used">([\d,]+)<\/span>/.exec(overview.body)?.[1];
    assert.equal(used, String(n + 1));
    const left = /<span id="quota-left">([\d,]+)<\/span>/.exec(overview.body)?.[1];
    assert.equal(left, remaining);
  });
});
