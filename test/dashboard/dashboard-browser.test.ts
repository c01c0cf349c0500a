import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { buildTestApp, type TestApp } from '../helpers/app.js';
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

    await page.getByRole('link', { name: 'Billing' }).click();
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

  it('refuses a form posted without the CSRF token', async () => {
    await page.goto(`${base}/dashboard/keys`);
    await page
      .locator('form[action="/dashboard/keys"] input[name="_csrf"]')
      .evaluate((el) => el.remove());
    await page.getByLabel('Name', { exact: true }).last().fill('forged');
    const [response] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'POST'),
      page.getByRole('button', { name: 'Create key' }).click(),
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
    }
    await screenshot(page, 'dashboard-overview-phone');
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
