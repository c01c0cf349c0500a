import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { accountOnPlan } from '../helpers/accounts.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { browserAvailable, launchBrowser, lookAtBothWidths } from '../helpers/browser.js';

const PASSWORD = 'a long enough passphrase';

describe(
  'dashboard forms in a real browser',
  { skip: !browserAvailable() && 'no chromium' },
  () => {
    let t: TestApp;
    let base: string;
    let browser: Browser;
    let receiver: Receiver;

    before(async () => {
      t = await buildTestApp({
        now: '2026-11-22T10:15:00Z',
        env: { OUTBOUND_ALLOW_PRIVATE_TARGETS: 'true' },
      });
      receiver = await startReceiver();
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
      browser = await launchBrowser();
    });
    after(async () => {
      await browser?.close();
      await receiver?.close();
      await t?.close();
    });

    async function signIn(plan: 'free' | 'developer' | 'business'): Promise<{
      page: Page;
      apiKey: string | null;
      done: () => Promise<void>;
    }> {
      const account = await accountOnPlan(t, plan);
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      const page = await context.newPage();
      await page.goto(`${base}/dashboard/sign-in`);
      await page.getByLabel('E-mail address').fill(account.email);
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(`${base}/dashboard`);
      return { page, apiKey: account.apiKey, done: () => context.close() };
    }

    /** Submits a form past the browser's own checks, as a client without them would. */
    const submitUnchecked = (page: Page, selector: string) =>
      Promise.all([
        page.waitForNavigation(),
        page.evaluate(
          `(() => { const f = document.querySelector(${JSON.stringify(selector)}); f.noValidate = true; f.requestSubmit(); })()`,
        ),
      ]);

    /** A field's value set past its maxlength, as a client without the browser's checks sends it. */
    const setValue = (page: Page, selector: string, value: string) =>
      page.evaluate(
        `document.querySelector(${JSON.stringify(selector)}).value = ${JSON.stringify(value)}`,
      );
    /** The id (or else the class) of the focused element. */
    const focused = (page: Page) =>
      page.evaluate<string>('document.activeElement.id || document.activeElement.className');

    it('shows on the Free overview the N anonymous requests made from its address', async () => {
      const { page, done } = await signIn('free');
      const n = 11;
      for (let i = 0; i < n; i++)
        assert.equal((await fetch(`${base}/api/v1/salary?country=DE&job=nurse`)).status, 200);
      await page.goto(`${base}/dashboard`);
      assert.equal(await page.locator('#quota-used').innerText(), String(n));
      assert.match(await page.locator('#quota-address').innerText(), /127\.0\.0\.1/);
      await lookAtBothWidths(page, 'forms-overview-free');
      await done();
    });

    it('keeps a refused webhook form, lists every problem by label, and wraps a long URL at 390 px', async () => {
      const { page, apiKey, done } = await signIn('business');
      // An endpoint with a long URL (within the limit) on the list.
      const long = `${receiver.url}/${'a'.repeat(2000)}`;
      const created = await fetch(`${base}/api/v1/webhooks`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: long, events: ['data.updated'] }),
      });
      assert.equal(created.status, 201, await created.text());

      await page.goto(`${base}/dashboard/webhooks`);
      assert.equal(await page.locator('#wh-url').getAttribute('maxlength'), '2048');
      const tooLong = `https://hooks.example.com/${'b'.repeat(3000)}`;
      await setValue(page, '#wh-url', tooLong);
      await page.locator('input[name="events"]').first().uncheck();
      await submitUnchecked(page, 'form[action="/dashboard/webhooks"]');

      const summary = page.locator('.error-summary');
      assert.equal(await summary.getAttribute('role'), 'alert');
      assert.deepEqual(
        (await summary.locator('li').allInnerTexts()).map((s) => s.trim()),
        ['HTTPS URL: is too long (at most 2048 characters)', 'Events: choose at least one event'],
      );
      assert.equal(await focused(page), 'error-summary', 'the summary has the focus');
      assert.equal(await page.locator('#wh-url').inputValue(), tooLong);
      assert.equal(await page.locator('#wh-url').getAttribute('aria-invalid'), 'true');
      assert.equal(await page.locator('#wh-url').getAttribute('aria-describedby'), 'wh-url-error');
      await summary.getByRole('link', { name: 'HTTPS URL' }).click();
      assert.equal(await focused(page), 'wh-url');
      // lookAtBothWidths: no serious axe finding, no sideways scroll at 1280 and 390 px.
      await lookAtBothWidths(page, 'forms-webhooks-refused');
      await done();
    });

    it('refuses a 101-character key name with the API’s reason', async () => {
      const { page, done } = await signIn('business');
      await page.goto(`${base}/dashboard/keys`);
      await setValue(page, '#key-name', 'k'.repeat(101));
      await submitUnchecked(page, 'form[action="/dashboard/keys"]');
      assert.match(
        await page.locator('.flash-error').innerText(),
        /'name': is too long \(at most 100 characters\)/,
      );
      await lookAtBothWidths(page, 'forms-keys-refused');
      await done();
    });
  },
);
