// Every page of the site and of the dashboard at a phone's width (390 px) and a desktop's (1280
// px) in Debian chromium, with long content where a customer can put it: a webhook URL of the
// longest length the API takes (and a 3,000-character one typed into the refused form), key and
// client names of 100 characters without a space, a year of invoices. Nothing may scroll
// sideways: `document.documentElement.scrollWidth` stays within the window.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createDocumentStore } from '../../src/compliance/index.js';
import { accountOnPlan } from '../helpers/accounts.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { browserAvailable, launchBrowser } from '../helpers/browser.js';
import { listenHttp } from '../helpers/http.js';
import { samplePdf } from '../helpers/pdf.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

const PASSWORD = 'a long enough passphrase';
const DAY = 86_400_000;

/** The public site: each page and what shows it rendered. */
const SITE: { name: string; path: string; status?: number }[] = [
  { name: 'home', path: '/' },
  { name: 'reference', path: '/docs' },
  { name: 'quick-start', path: '/docs/quick-start' },
  { name: 'guides', path: '/docs/guides' },
  { name: 'guide-test-mode', path: '/docs/guides/test-mode' },
  { name: 'changelog', path: '/docs/changelog' },
  { name: 'methodology', path: '/methodology' },
  { name: 'status', path: '/status' },
  { name: 'releases', path: '/data/releases' },
  { name: 'errors', path: '/errors' },
  { name: 'error-rate-limited', path: '/errors/rate-limited' },
  { name: 'legal-terms', path: '/legal/terms' },
  { name: 'legal-privacy', path: '/legal/privacy' },
  { name: 'legal-dpa', path: '/legal/dpa' },
  { name: 'legal-imprint', path: '/legal/imprint' },
  { name: 'not-found', path: '/no/such/page', status: 404 },
];

/** The dashboard's pages before signing in. */
const PUBLIC: { name: string; path: string }[] = [
  { name: 'sign-in', path: '/dashboard/sign-in' },
  { name: 'sign-up', path: '/dashboard/sign-up' },
  { name: 'forgot-password', path: '/dashboard/forgot-password' },
  { name: 'reset-password', path: '/dashboard/reset-password?token=tok_0123456789.abcdef' },
];

/** The dashboard's pages of a signed-in Enterprise account (every feature). */
const SIGNED_IN: { name: string; path: string }[] = [
  { name: 'overview', path: '/dashboard' },
  { name: 'usage', path: '/dashboard/usage' },
  { name: 'usage-by-key', path: '/dashboard/usage?breakdown=key' },
  { name: 'keys', path: '/dashboard/keys' },
  { name: 'webhooks', path: '/dashboard/webhooks' },
  { name: 'exports', path: '/dashboard/exports' },
  { name: 'custom-endpoints', path: '/dashboard/custom-endpoints' },
  { name: 'oauth-clients', path: '/dashboard/oauth-clients' },
  { name: 'sla', path: '/dashboard/sla' },
  { name: 'compliance', path: '/dashboard/compliance' },
  { name: 'billing', path: '/dashboard/billing' },
  { name: 'account', path: '/dashboard/account' },
  { name: 'two-factor', path: '/dashboard/account/two-factor' },
];

describe(
  'every page at phone and desktop width, with long content',
  { skip: !browserAvailable() },
  () => {
    let t: TestApp;
    let base: string;
    let browser: Browser;
    let receiver: Receiver;
    let email = '';
    const extra: { name: string; path: string }[] = [];

    before(async () => {
      t = await buildTestApp({
        now: '2025-11-20T09:00:00Z',
        // The server's own billing timer is kept away: the year of invoices is made here.
        env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', BILLING_INTERVAL_SECONDS: '86400' },
      });
      base = (await listenHttp(t)).base;
      receiver = await startReceiver();
      browser = await launchBrowser();
      mkdirSync('test-results', { recursive: true });

      const account = await accountOnPlan(t, 'enterprise');
      email = account.email;
      const call = async (method: string, path: string, body?: object) => {
        const res = await fetch(`${base}${path}`, {
          method,
          headers: {
            authorization: `Bearer ${account.apiKey}`,
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        assert.ok(res.ok, `${method} ${path}: ${res.status} ${await res.clone().text()}`);
        return (await res.json()) as { id: string };
      };
      // Names of the longest length the API takes, without a space to break at.
      const longKeys: string[] = [];
      for (const letter of ['k', 'n']) {
        const created = (await call('POST', '/api/v1/keys', { name: letter.repeat(100) })) as {
          key?: string;
        };
        longKeys.push(created.key ?? '');
      }
      await call('POST', '/api/v1/oauth/clients', {
        name: 'c'.repeat(100),
        scopes: ['salary:read'],
      });
      const longUrl = `${receiver.url}/${'a'.repeat(2048 - receiver.url.length - 1)}`;
      await call('POST', '/api/v1/webhooks', { url: longUrl, events: ['data.updated'] });
      const exp = await call('POST', '/api/v1/exports', {
        name: 'e'.repeat(100),
        schedule: '0 6 * * 1',
        timezone: 'Europe/Berlin',
        query: { kind: 'job', job: 'nurse', years: 'current' },
        format: 'csv',
        destination: { type: 'webhook', url: longUrl.slice(0, 2000) },
      });
      await call('POST', `/api/v1/exports/${exp.id}/run`);
      await t.exportWorker.runOnce();
      const endpoint = await call('POST', '/api/v1/custom-endpoints', {
        slug: `nordic-${'x'.repeat(40)}`,
        description: 'd'.repeat(500),
        query: { countries: ['DK', 'FI', 'SE'], jobs: ['nurse'] },
        parameters: ['country', 'level'],
      });
      extra.push(
        { name: 'export-one', path: `/dashboard/exports/${exp.id}` },
        { name: 'custom-endpoint-one', path: `/dashboard/custom-endpoints/${endpoint.id}` },
      );
      await createDocumentStore({ db: t.db, clock: t.clock }).add({
        content: await samplePdf(2, 'SOC2 2026'),
        fileName: 'soc2-2026.pdf',
        title: 'SOC 2 Type II report',
        periodStart: '2025-10-01',
        periodEnd: '2026-09-30',
      });
      // A year of monthly invoices, each paid within its week.
      const payAll = async () => {
        for (const invoice of await t.services.subscriptions.invoices(account.accountId))
          if (invoice.status === 'open')
            await t.services.subscriptions.markPaid(invoice.id, 'operator');
      };
      for (let week = 0; week < 53; week++) {
        await payAll();
        t.clock.advance(7 * DAY);
        await t.services.billing();
      }
      await payAll();
      // This week's requests, with the keys of long names (the usage page names them).
      for (const key of longKeys)
        for (let i = 0; i < 10; i++)
          await fetch(`${base}/api/v1/salary?country=DE&job=nurse`, {
            headers: { authorization: `Bearer ${key}` },
          });
      const invoices = await t.services.subscriptions.invoices(account.accountId);
      assert.ok(invoices.length >= 12, `${invoices.length} invoices`);
    });
    after(async () => {
      await browser?.close();
      await receiver?.close();
      await t?.close();
    });

    /** Pages found wider than the window, with the elements that stick out. */
    const overflows: string[] = [];

    /** The page at both widths: no sideways scrolling, a screenshot at each. */
    async function fits(page: Page, name: string): Promise<void> {
      for (const width of [390, 1280]) {
        await page.setViewportSize({ width, height: 844 });
        // The charts take the new width on the next frame.
        await page.evaluate(
          'new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))',
        );
        const scrollWidth = await page.evaluate<number>('document.documentElement.scrollWidth');
        if (scrollWidth > width) {
          const wide = await page.evaluate<string[]>(`[...document.querySelectorAll('body *')]
          .filter((e) => e.getBoundingClientRect().right > ${width} + 1)
          .slice(-3)
          .map((e) => e.tagName + (e.id ? '#' + e.id : '') + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right))`);
          overflows.push(`${name} at ${width} px is ${scrollWidth} px wide: ${wide.join(', ')}`);
        }
        // A table shown as cards on a phone fits its box: nothing to scroll sideways in it.
        if (width === 390) {
          const scrolled = await page.evaluate<
            string[]
          >(`[...document.querySelectorAll('table.cards-on-phone')]
            .filter((t) => t.parentElement.scrollWidth > t.parentElement.clientWidth + 1)
            .map((t) => (t.id || t.className) + ' ' + t.parentElement.scrollWidth)`);
          for (const table of scrolled)
            overflows.push(
              `${name}: the cards of table ${table} px wide scroll sideways at 390 px`,
            );
        }
        // The whole page, unless it is very long (a month of intervals down on the SLA page).
        const height = await page.evaluate<number>('document.documentElement.scrollHeight');
        await page.screenshot({
          path: join('test-results', `phone-${name}-${width}.png`),
          fullPage: height <= 20_000,
          timeout: 120_000,
        });
      }
    }

    /** Every page of a test fitted, or the list of those that did not. */
    function allFitted(): void {
      const found = overflows.splice(0);
      assert.deepEqual(found, []);
    }

    async function visit(page: Page, path: string, name: string, status = 200): Promise<void> {
      const response = await page.goto(`${base}${path}`, { waitUntil: 'load' });
      assert.equal(response?.status(), status, `${name}: status`);
      await fits(page, name);
    }

    async function context(): Promise<BrowserContext> {
      return browser.newContext({ viewport: { width: 390, height: 844 } });
    }

    it('the site', async () => {
      const c = await context();
      const page = await c.newPage();
      for (const { name, path, status } of SITE) await visit(page, path, `site-${name}`, status);
      await c.close();
      allFitted();
    });

    it('the dashboard before signing in, and a refused sign-in', async () => {
      const c = await context();
      const page = await c.newPage();
      for (const { name, path } of PUBLIC) await visit(page, path, `dashboard-${name}`);
      await page.goto(`${base}/dashboard/sign-in`);
      await page.fill('#email', `${'x'.repeat(240)}@example.com`);
      await page.fill('#password', 'wrong');
      await Promise.all([page.waitForNavigation(), page.click('form[action$="sign-in"] button')]);
      await fits(page, 'dashboard-sign-in-refused');
      await c.close();
      allFitted();
    });

    it('every signed-in page of an Enterprise account with long names, URLs and a year of invoices', async () => {
      const c = await context();
      const page = await c.newPage();
      await page.goto(`${base}/dashboard/sign-in`);
      await page.fill('#email', email);
      await page.fill('#password', PASSWORD);
      await Promise.all([page.waitForNavigation(), page.click('form[action$="sign-in"] button')]);
      assert.equal(new URL(page.url()).pathname, '/dashboard');
      for (const { name, path } of [...SIGNED_IN, ...extra])
        await visit(page, path, `dashboard-${name}`);
      await page.goto(`${base}/dashboard/billing`);
      assert.ok((await page.locator('#invoices tbody tr').count()) >= 12, 'a year of invoices');
      await page.goto(`${base}/dashboard/usage?breakdown=key`);
      assert.match(await page.locator('main').innerText(), /k{100}/, 'the usage names the key');

      // A 3,000-character URL typed into the webhook form: refused, and kept in the field.
      await page.goto(`${base}/dashboard/webhooks`);
      await page.setViewportSize({ width: 390, height: 844 });
      await page.locator('#wh-url').evaluate(
        (el, v) => {
          (el as unknown as { value: string }).value = v;
        },
        `https://hooks.example.com/${'b'.repeat(3000 - 26)}`,
      );
      await Promise.all([
        page.waitForNavigation(),
        page.locator('form[action="/dashboard/webhooks"]').evaluate((el) => {
          const form = el as unknown as { noValidate: boolean; requestSubmit(): void };
          form.noValidate = true;
          form.requestSubmit();
        }),
      ]);
      assert.equal((await page.inputValue('#wh-url')).length, 3000);
      await fits(page, 'dashboard-webhooks-refused-long-url');
      // The keys' own forms open, each with its long name in the field.
      await page.goto(`${base}/dashboard/keys`);
      for (const summary of await page.locator('#keys details summary').all())
        await summary.click();
      await fits(page, 'dashboard-keys-open');
      await c.close();
      allFitted();
    });
  },
);
