import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import {
  browserAvailable,
  launchBrowser,
  screenshot,
  seriousAxeViolations,
} from '../helpers/browser.js';

const OUR_NAME = /European Salary Data API/;

/** Each public page, what shows it rendered, and the name it must show. */
const PAGES: { name: string; path: string; ready: string; brand?: RegExp }[] = [
  { name: 'home', path: '/', ready: 'Plans' },
  { name: 'reference', path: '/docs', ready: '/api/v1/salary' },
  { name: 'quick-start', path: '/docs/quick-start', ready: 'Limits and 429' },
  { name: 'changelog', path: '/docs/changelog', ready: 'deprecation policy' },
  { name: 'methodology', path: '/methodology', ready: 'The figures at a glance' },
  { name: 'error-rate-limited', path: '/errors/rate-limited', ready: 'What to do' },
  { name: 'errors', path: '/errors', ready: 'RATE_LIMITED' },
  { name: 'status', path: '/status', ready: 'Uptime', brand: /European Salary Data API/ },
];

describe('public pages in a real browser', { skip: !browserAvailable() && 'no chromium' }, () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let page: Page;
  const consoleErrors: string[] = [];
  const elsewhere: string[] = [];

  before(async () => {
    t = await buildTestApp();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    browser = await launchBrowser();
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    // Nothing may be fetched from another host: the pages work offline.
    await context.route(
      (url) => url.origin !== base,
      async (route) => {
        elsewhere.push(route.request().url());
        await route.abort();
      },
    );
    page = await context.newPage();
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(`${page.url()}: ${message.text()}`);
    });
    page.on('pageerror', (error) => consoleErrors.push(`${page.url()}: ${error.message}`));
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  for (const spec of PAGES) {
    it(`${spec.path}: HTML, no console error, no broken text, accessible, our name only`, async () => {
      consoleErrors.length = 0;
      const response = await page.goto(`${base}${spec.path}`, { waitUntil: 'load' });
      assert.equal(response?.status(), 200);
      assert.match(response.headers()['content-type'] ?? '', /^text\/html/);
      await page.waitForFunction(`document.body.innerText.includes(${JSON.stringify(spec.ready)})`);
      const text = await page.evaluate<string>("document.title + '\\n' + document.body.innerText");
      assert.match(text, spec.brand ?? OUR_NAME);
      assert.doesNotMatch(text, /fastify|swagger/i);
      assert.doesNotMatch(text, /\bundefined\b|\bNaN\b|\[object Object\]/);
      assert.deepEqual(
        (await seriousAxeViolations(page)).map(
          (v) => `${v.id}: ${v.help} ${JSON.stringify(v.nodes.map((n) => n.target))}`,
        ),
        [],
        `axe on ${spec.path}`,
      );
      await screenshot(page, `site-${spec.name}`);
      assert.deepEqual(consoleErrors, []);
      assert.deepEqual(elsewhere, [], 'nothing fetched from another host');
    });
  }

  it('the reference shows the salary lookup with its sample call', async () => {
    await page.goto(`${base}/docs#tag/salary/GET/api/v1/salary`, { waitUntil: 'load' });
    await page.waitForFunction("document.body.innerText.includes('/api/v1/salary')", null, {
      timeout: 20_000,
    });
    const text = await page.evaluate<string>('document.body.innerText');
    assert.match(text, /curl "http:\/\/[^"]+\/api\/v1\/salary\?country=DE&job=software-engineer"/);
    await page
      .getByText('Salary percentiles for a country and job')
      .first()
      .scrollIntoViewIfNeeded();
    await page.screenshot({ path: 'test-results/site-reference-salary.png' });
  });
});
