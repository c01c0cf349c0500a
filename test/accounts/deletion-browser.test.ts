// The account page's data download and deletion in a real browser, checked with axe and
// photographed at desktop (1280 px) and phone (390 px) width.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { accountOnPlan } from '../helpers/accounts.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { browserAvailable, launchBrowser, lookAtBothWidths } from '../helpers/browser.js';

const PASSWORD = 'a long enough passphrase';

describe(
  'account data download and deletion in a real browser',
  { skip: !browserAvailable() && 'no chromium' },
  () => {
    let t: TestApp;
    let base: string;
    let browser: Browser;

    before(async () => {
      t = await buildTestApp();
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
      browser = await launchBrowser();
    });
    after(async () => {
      await browser?.close();
      await t?.close();
    });

    const look = (page: Page, name: string) => lookAtBothWidths(page, `account-${name}`);

    it('downloads the data, refuses a wrong password, then deletes and signs out', async () => {
      const c = await accountOnPlan(t, 'developer');
      const context = await browser.newContext({ acceptDownloads: true });
      const page = await context.newPage();
      await page.goto(`${base}/dashboard/sign-in`);
      await page.getByLabel('E-mail').fill(c.email);
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.goto(`${base}/dashboard/account#delete-account`);

      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('link', { name: 'Download my data (JSON)' }).click(),
      ]);
      assert.match(download.suggestedFilename(), new RegExp(`^${c.accountId}-export-.+\\.json$`));
      const exported = JSON.parse(await readFile(await download.path(), 'utf8'));
      assert.equal(exported.account.email, c.email);
      assert.ok(!JSON.stringify(exported).includes(c.apiKey as string));

      await page.locator('#delete_password').fill('not the right password');
      await page.getByLabel('Type DELETE to confirm').fill('DELETE');
      await page.getByRole('button', { name: 'Delete the account' }).click();
      assert.match(await page.locator('body').innerText(), /password/i);
      assert.equal(
        (await t.services.accounts.get(c.accountId)).status,
        'active',
        'a wrong password deletes nothing',
      );
      await look(page, 'delete-refused');

      await page.locator('#delete_password').fill(PASSWORD);
      await page.getByLabel('Type DELETE to confirm').fill('DELETE');
      await page.getByRole('button', { name: 'Delete the account' }).click();
      await page.getByRole('heading', { name: 'Account deleted' }).waitFor();
      assert.match(await page.locator('body').innerText(), /10 years/);
      await look(page, 'deleted');

      await page.goto(`${base}/dashboard/account`);
      assert.match(page.url(), /\/dashboard\/sign-in/);
      const res = await t.app.inject({
        url: '/api/v1/account',
        headers: { authorization: `Bearer ${c.apiKey as string}` },
      });
      assert.equal(res.statusCode, 401);
      await context.close();
    });
  },
);
