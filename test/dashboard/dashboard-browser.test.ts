import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createDocumentStore } from '../../src/compliance/index.js';
import { findAccountByEmail } from '../../src/accounts/index.js';
import { accountOnPlan, verifyEmailOf } from '../helpers/accounts.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { samplePdf } from '../helpers/pdf.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import {
  browserAvailable,
  launchBrowser,
  screenshot,
  seriousAxeViolations,
} from '../helpers/browser.js';

const PASSWORD = 'a long enough passphrase';

interface ChartSpec {
  target: string;
  x: number[];
  series: { label: string; values: number[] }[];
}

/** The numbers a chart is drawn from (the JSON block uPlot reads). */
async function chartData(page: Page, id: string): Promise<ChartSpec> {
  const specs = await page.$$eval('script.chart-data', (nodes) =>
    nodes.map((n) => JSON.parse(n.textContent ?? '{}') as unknown),
  );
  const spec = (specs as ChartSpec[]).find((s) => s.target === id);
  assert.ok(spec, `chart ${id} on the page`);
  return spec;
}

const sum = (spec: ChartSpec) =>
  spec.series.reduce((total, s) => total + s.values.reduce((a, b) => a + b, 0), 0);

describe('dashboard in a real browser', { skip: !browserAvailable() && 'no chromium' }, () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const cspErrors: string[] = [];

  before(async () => {
    t = await buildTestApp({ now: '2026-11-22T10:15:00Z' });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    browser = await launchBrowser();
    context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
    page = await context.newPage();
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text()))
        cspErrors.push(message.text());
    });
    page.on('dialog', (dialog) => void dialog.accept());
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  async function check(name: string) {
    assert.deepEqual(
      (await seriousAxeViolations(page)).map(
        (v) => `${v.id}: ${v.help} ${JSON.stringify(v.nodes.map((n) => n.target))}`,
      ),
      [],
      `axe on ${name}`,
    );
    await screenshot(page, `dashboard-${name}`);
  }

  const api = async (path: string, token: string) =>
    fetch(`${base}${path}`, { headers: { authorization: `Bearer ${token}` } });

  let key = '';

  it('signs up, subscribes to Developer and sees the first key once, with a copy button', async () => {
    const response = await page.goto(`${base}/dashboard`);
    assert.equal(new URL(page.url()).pathname, '/dashboard/sign-in');
    const csp = response?.headers()['content-security-policy'] ?? '';
    assert.match(csp, /script-src 'self'/);
    assert.doesNotMatch(csp, /unsafe-inline/);
    await check('sign-in');
    await page.getByRole('link', { name: 'Create an account' }).click();
    await page.getByLabel('E-mail address').fill('browser@example.com');
    await page.getByLabel('Password').fill(PASSWORD);
    await check('sign-up');
    await page.getByRole('button', { name: 'Create the account' }).click();
    await page.waitForURL(`${base}/dashboard`);
    assert.match(await page.locator('.who').innerText(), /browser@example\.com/);
    await check('overview-free');
    // The address is confirmed as its holder would, before a plan can be bought.
    await verifyEmailOf(t, (await findAccountByEmail(t.db, 'browser@example.com'))!.id);

    await page.getByRole('link', { name: 'Billing' }).click();
    // No invoice without billing details: given first, as the confirmation asks.
    await page.fill('#company_name', 'Erika Mustermann');
    await page.fill('#address_lines', 'Heidestraße 17\n51147 Köln');
    await page.selectOption('#country', { label: 'Germany' });
    await Promise.all([page.waitForNavigation(), page.click('#billing-details button')]);
    await page.getByLabel('New plan').selectOption('developer');
    await page.getByRole('button', { name: 'Review the change' }).click();
    assert.match(await page.locator('#due-now').innerText(), /€49\.00/);
    await check('billing-confirm');
    await page.getByRole('button', { name: /Confirm/ }).click();
    key = await page.locator('#new-key').inputValue();
    assert.match(key, /^sk_live_/);
    await page.getByRole('button', { name: 'Copy the key' }).click();
    await page.getByText('Copied to the clipboard.').waitFor();
    assert.equal(await page.evaluate('navigator.clipboard.readText()'), key);
    await check('billing-subscribed');
    // Shown once: the page again does not carry it.
    await page.goto(`${base}/dashboard/keys`);
    assert.equal(await page.locator('#new-key').count(), 0);
    assert.ok(!(await page.content()).includes(key));
    await check('keys');
  });

  it('shows the requests made with the key on the overview and usage charts as the API reports them', async () => {
    for (let i = 0; i < 6; i++)
      assert.equal((await api('/api/v1/salary?country=DE&job=nurse', key)).status, 200);
    for (let i = 0; i < 2; i++)
      assert.equal((await api('/api/v1/salary?country=ZZ&job=nurse', key)).status, 400);

    await page.goto(`${base}/dashboard`);
    await page.locator('#chart-24h canvas').first().waitFor(); // uPlot ran under the CSP
    const hourly = await chartData(page, 'chart-24h');
    const daily = await chartData(page, 'chart-30d');
    const shown = (id: string) => page.locator(`#${id}`).innerText();
    const usedOnPage = await shown('quota-used');
    await check('overview');
    await page.goto(`${base}/dashboard/usage?granularity=hour&breakdown=status`);
    await page.locator('#chart-usage canvas').first().waitFor();
    const usage = await chartData(page, 'chart-usage');
    await check('usage');

    // The CSV of the table shown (same query), fetched before the API's report is counted.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download this table as CSV' }).click(),
    ]);
    const csv = await (await download.createReadStream()).toArray();
    const lines = Buffer.concat(csv as Buffer[])
      .toString('utf8')
      .trim()
      .split('\r\n');
    assert.equal(lines[0], 'start_utc,200,400,total');
    assert.equal(lines.length - 1, usage.x.length);
    const busy = lines.filter((l) => !l.endsWith(',0,0,0'));
    assert.deepEqual(busy.slice(1), ['2026-11-22T10:00:00.000Z,6,2,8']);
    const report = (await (await api('/api/v1/usage', key)).json()) as {
      total: number;
      by_status: Record<string, number>;
      quota: { used: number };
    };
    assert.equal(report.total, 8);
    assert.equal(sum(hourly), report.total);
    assert.equal(sum(daily), report.total);
    assert.equal(sum(usage), report.total);
    assert.equal(usedOnPage.trim(), String(report.quota.used)); // the 400s use no quota
    assert.deepEqual(
      Object.fromEntries(usage.series.map((s) => [s.label, s.values.reduce((a, b) => a + b, 0)])),
      report.by_status,
    );
  });

  it('revokes the key and the API refuses it; a new key is shown once', async () => {
    await page.goto(`${base}/dashboard/keys`);
    await page.getByText('Manage').first().click();
    await page.getByRole('button', { name: 'Revoke' }).click();
    await page.getByText('The key was revoked').waitFor();
    assert.equal((await api('/api/v1/salary?country=DE&job=nurse', key)).status, 401);
    await page.getByLabel('Name', { exact: true }).last().fill('second');
    await page.getByRole('button', { name: 'Create key' }).click();
    const second = await page.locator('#new-key').inputValue();
    assert.match(second, /^sk_live_/);
    assert.equal((await api('/api/v1/salary?country=DE&job=nurse', second)).status, 200);
    await check('keys-created');
  });

  it('offers no new live key at the plan’s limit, and refuses a form posted without the CSRF token', async () => {
    await page.goto(`${base}/dashboard/keys`);
    // Developer: its one live key is in use, so only a test key can still be made.
    assert.ok(await page.getByRole('radio', { name: /Live, sk_live_/ }).isDisabled());
    assert.ok(await page.getByRole('radio', { name: /Test, sk_test_/ }).isChecked());
    assert.ok(await page.getByRole('button', { name: 'Create key' }).isEnabled());
    await page.getByText('Manage').first().click();
    await page
      .locator('form[action$="/update"] input[name="_csrf"]')
      .first()
      .evaluate((el) => el.remove());
    const [response] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'POST'),
      page.getByRole('button', { name: 'Save' }).first().click(),
    ]);
    assert.equal(response.status(), 403);
    assert.match(await page.content(), /security token/);
  });

  it('passes axe on the remaining pages and fits a phone-width screen', async () => {
    for (const [path, name] of [
      ['/dashboard/account', 'account'],
      ['/dashboard/webhooks', 'webhooks-not-in-plan'],
      ['/dashboard/billing', 'billing'],
    ] as const) {
      await page.goto(`${base}${path}`);
      await check(name);
    }
    await page.setViewportSize({ width: 375, height: 800 });
    for (const path of ['/dashboard', '/dashboard/usage', '/dashboard/keys']) {
      await page.goto(`${base}${path}`);
      const overflow = await page.evaluate<number>(
        'document.documentElement.scrollWidth - document.documentElement.clientWidth',
      );
      assert.ok(overflow <= 0, `${path} scrolls sideways by ${overflow}px at 375px`);
      await screenshot(page, `dashboard-phone-${path.split('/')[2] ?? 'overview'}`);
    }
    // On a phone the keys table is one card per key, each value named by its column.
    const label = await page.evaluate<string>(
      `getComputedStyle(document.querySelector('#keys td[data-label="Created"]'), '::before').content`,
    );
    assert.equal(label, '"Created: "');
    assert.deepEqual(cspErrors, []);
  });

  it('never shows another account’s data to a different session', async () => {
    const other = await browser.newContext();
    const p = await other.newPage();
    await p.goto(`${base}/dashboard/sign-up`);
    await p.getByLabel('E-mail address').fill('other@example.com');
    await p.getByLabel('Password').fill(PASSWORD);
    await p.getByRole('button', { name: 'Create the account' }).click();
    await p.waitForURL(`${base}/dashboard`);
    await p.goto(`${base}/dashboard/account`);
    const content = await p.content();
    assert.ok(!content.includes('browser@example.com'));
    assert.match(content, /other@example\.com/);
    await other.close();
  });
});

/** Every page of the dashboard a signed-in account reaches, whatever its plan. */
const PAGES = [
  '',
  '/usage',
  '/keys',
  '/webhooks',
  '/exports',
  '/oauth-clients',
  '/custom-endpoints',
  '/compliance',
  '/sla',
  '/billing',
  '/account',
];

describe(
  'every dashboard page for Free, Business and Enterprise',
  {
    skip: !browserAvailable() && 'no chromium',
  },
  () => {
    let t: TestApp;
    let base: string;
    let browser: Browser;
    let receiver: Receiver;
    const accounts = new Map<string, Awaited<ReturnType<typeof accountOnPlan>>>();
    /** Pages of one Enterprise resource each, added after seeding. */
    const enterpriseExtra: string[] = [];

    before(async () => {
      t = await buildTestApp({
        now: '2026-11-25T14:05:00Z',
        env: { OUTBOUND_ALLOW_PRIVATE_TARGETS: 'true' },
      });
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
      browser = await launchBrowser();
      receiver = await startReceiver();
      for (const plan of ['free', 'business', 'enterprise'] as const)
        accounts.set(plan, await accountOnPlan(t, plan));
      const call = async (plan: string, method: string, path: string, body?: object) => {
        const res = await fetch(`${base}${path}`, {
          method,
          headers: {
            authorization: `Bearer ${accounts.get(plan)!.apiKey}`,
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        assert.ok(res.ok, `${method} ${path}: ${res.status} ${await res.clone().text()}`);
        return (await res.json()) as { id: string };
      };
      await call('business', 'POST', '/api/v1/webhooks', {
        url: receiver.url,
        events: ['data.updated'],
      });
      const exp = await call('enterprise', 'POST', '/api/v1/exports', {
        name: 'Weekly archive',
        schedule: '0 6 * * 1',
        timezone: 'Europe/Berlin',
        query: { kind: 'job', job: 'nurse', years: 'current' },
        format: 'csv',
        destination: { type: 'webhook', url: receiver.url },
      });
      await call('enterprise', 'POST', `/api/v1/exports/${exp.id}/run`);
      await t.exportWorker.runOnce();
      await call('enterprise', 'POST', '/api/v1/oauth/clients', {
        name: 'payroll sync',
        scopes: ['salary:read'],
      });
      const endpoint = await call('enterprise', 'POST', '/api/v1/custom-endpoints', {
        slug: 'nordic-nurses',
        description: 'Nurses in the Nordic countries',
        query: { countries: ['DK', 'FI', 'SE'], jobs: ['nurse'] },
        parameters: ['country', 'level'],
      });
      await createDocumentStore({ db: t.db, clock: t.clock }).add({
        content: await samplePdf(2, 'SOC2 2026'),
        fileName: 'soc2-2026.pdf',
        title: 'SOC 2 Type II report',
        periodStart: '2025-10-01',
        periodEnd: '2026-09-30',
      });
      enterpriseExtra.push(`/exports/${exp.id}`, `/custom-endpoints/${endpoint.id}`);
    });
    after(async () => {
      await browser?.close();
      await receiver?.close();
      await t?.close();
    });

    async function signedIn(
      plan: string,
    ): Promise<{ page: Page; errors: string[]; done: () => Promise<void> }> {
      const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error') errors.push(m.text());
      });
      page.on('pageerror', (e) => errors.push(e.message));
      page.on('dialog', (dialog) => void dialog.accept());
      await page.goto(`${base}/dashboard/sign-in`);
      await page.getByLabel('E-mail address').fill(accounts.get(plan)!.email);
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(`${base}/dashboard`);
      return { page, errors, done: () => context.close() };
    }

    /** Opens a page and checks what every page must be; returns its visible text. */
    async function visit(
      page: Page,
      errors: string[],
      path: string,
      name: string,
    ): Promise<string> {
      const response = await page.goto(`${base}/dashboard${path}`);
      assert.equal(response?.status(), 200, `${name}: status`);
      assert.match(response?.headers()['content-type'] ?? '', /^text\/html/, `${name}: type`);
      await page.waitForLoadState('load');
      const shown = await page.locator('body').innerText();
      assert.doesNotMatch(shown, /undefined|NaN|\[object Object\]/, `${name}: broken text`);
      assert.match(shown, /European Salary Data API/, `${name}: our name`);
      assert.doesNotMatch(await page.content(), /Fastify|Swagger/i, `${name}: framework named`);
      // One way to write a time: ISO in UTC, never US style, never twice.
      assert.doesNotMatch(shown, /\b\d{1,2}\/\d{1,2}\/\d{2}\b|\b\d{1,2}:\d{2} ?[AP]M\b|your time/);
      assert.deepEqual(
        (await seriousAxeViolations(page)).map(
          (v) => `${v.id}: ${v.help} ${JSON.stringify(v.nodes.map((n) => n.target))}`,
        ),
        [],
        `axe on ${name}`,
      );
      assert.deepEqual(errors, [], `${name}: console errors`);
      await screenshot(page, `dashboard-plan-${name}`);
      return shown;
    }

    for (const plan of ['free', 'business', 'enterprise'] as const) {
      it(`opens every page for a ${plan} account: 200 HTML, no console error, axe clean, our name`, async () => {
        const { page, errors, done } = await signedIn(plan);
        try {
          const extra = plan === 'enterprise' ? enterpriseExtra : [];
          for (const path of [...PAGES, ...extra]) {
            const name = `${plan}${path.replace(/\/(exp|cep)_[^/]+/, '-one').replace(/\//g, '-') || '-overview'}`;
            await visit(page, errors, path, name);
          }
          // Every link of the navigation is among the pages opened.
          const nav = await page.$$eval('nav a', (links) =>
            links.map((a) => new URL((a as unknown as { href: string }).href).pathname),
          );
          for (const path of nav) assert.ok(PAGES.includes(path.replace('/dashboard', '')), path);
        } finally {
          await done();
        }
      });
    }

    it('tells a lower plan which plan has each feature, and starts the plan selector on its plan', async () => {
      const { page, errors, done } = await signedIn('business');
      try {
        const exportsText = await visit(page, errors, '/exports', 'business-exports-gate');
        assert.match(exportsText, /Scheduled bulk exports come with the Enterprise plan/);
        const overview = await visit(page, errors, '', 'business-overview-gate');
        assert.match(overview, /OAuth clients: the Enterprise plan/);
        assert.doesNotMatch(overview, /Webhooks: the/);
        await visit(page, errors, '/billing', 'business-billing-selector');
        assert.equal(await page.getByLabel('New plan').inputValue(), 'business');
        assert.match(await page.locator('body').innerText(), /€199\.00/);
        await visit(page, errors, '/keys', 'business-keys');
      } finally {
        await done();
      }
    });

    it('on Enterprise: creates an OAuth client (secret once), tries a custom endpoint, runs an export, reviews access', async () => {
      const { page, errors, done } = await signedIn('enterprise');
      try {
        await visit(page, errors, '/oauth-clients', 'enterprise-oauth-before');
        await page.getByLabel('Name', { exact: true }).fill('reporting');
        await page.getByRole('button', { name: 'Create the client' }).click();
        const secret = await page.locator('#client-secret').inputValue();
        assert.match(secret, /^ocs_/);
        await screenshot(page, 'dashboard-plan-enterprise-oauth-created');
        await page.goto(`${base}/dashboard/oauth-clients`);
        assert.ok(!(await page.content()).includes(secret), 'the secret is shown once');

        await visit(page, errors, enterpriseExtra[1]!, 'enterprise-custom-endpoint-try');
        await page.getByLabel('country (optional)').selectOption('SE');
        await page.getByRole('button', { name: 'Send the request' }).click();
        assert.match(await page.locator('#try-status').innerText(), /HTTP 200/);
        assert.match(await page.locator('#try-body').innerText(), /"SE"/);
        await screenshot(page, 'dashboard-plan-enterprise-custom-endpoint-tried');

        await visit(page, errors, enterpriseExtra[0]!, 'enterprise-export-one');
        const run = page.locator('#runs tbody tr').first();
        assert.match(await run.innerText(), /succeeded/);
        assert.match(await run.innerText(), /[0-9a-f]{64}/);
        const [download] = await Promise.all([
          page.waitForEvent('download'),
          run.getByRole('link', { name: /Download/ }).click(),
        ]);
        const file = Buffer.concat(
          (await (await download.createReadStream()).toArray()) as Buffer[],
        );
        assert.match(file.toString('utf8').split('\n')[0] ?? '', /country/);
        await page.getByRole('button', { name: 'Run now' }).click();
        await page.getByText('A run is queued').waitFor();
        assert.equal(await page.locator('#runs tbody tr').count(), 2);

        // The chart's legend names the hour pointed at as the page writes times: ISO, 24-hour.
        await visit(page, errors, '', 'enterprise-overview-legend');
        await page.locator('#chart-24h canvas').first().waitFor();
        const chart = await page.locator('#chart-24h .u-over').boundingBox();
        assert.ok(chart);
        await page.mouse.move(chart.x + chart.width * 0.5, chart.y + chart.height * 0.5);
        const legend = await page.locator('#chart-24h .u-legend .u-series').first().innerText();
        assert.match(legend, /Time \(UTC\)\s*:?\s*2026-11-2[45] \d{2}:00$/);

        t.clock.advance(60_000); // the review's period ends now: what was made before it
        await visit(page, errors, '/compliance', 'enterprise-compliance-before');
        await page.getByRole('button', { name: 'Generate the review' }).click();
        await page.locator('#review').waitFor();
        const review = await page.locator('#review').innerText();
        assert.match(review, /hash chain verified/);
        assert.match(review, /API key sk_live_/);
        assert.match(review, /OAuth client ocl_\S+\s+payroll sync/);
        await screenshot(page, 'dashboard-plan-enterprise-access-review');
        assert.deepEqual(errors, []);
      } finally {
        await done();
      }
    });
  },
);
