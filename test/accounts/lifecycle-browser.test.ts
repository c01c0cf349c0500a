// Forgotten password, new password and e-mail confirmation in a real browser, following the
// links a real SMTP server on loopback received; each page checked with axe and photographed at
// desktop (1280 px) and phone (390 px) width.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { browserAvailable, launchBrowser, lookAtBothWidths } from '../helpers/browser.js';
import { startSmtp, type TestSmtp } from '../helpers/smtp.js';
import { mailedToken } from './mail.js';

const PASSWORD = 'a long enough passphrase';
const NEW_PASSWORD = 'a brand new long passphrase';

describe(
  'account recovery pages in a real browser',
  { skip: !browserAvailable() && 'no chromium' },
  () => {
    let smtp: TestSmtp;
    let t: TestApp;
    let base: string;
    let browser: Browser;

    before(async () => {
      smtp = await startSmtp();
      t = await buildTestApp({ env: { SMTP_URL: smtp.url } });
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
      browser = await launchBrowser();
    });
    after(async () => {
      await browser?.close();
      await t?.close();
      await smtp?.close();
    });

    const look = (page: Page, name: string) => lookAtBothWidths(page, `account-${name}`);

    it('forgot password → mailed link → new password → sign in with it', async () => {
      const email = 'browser-reset@example.com';
      await t.services.accounts.signUp({ email, password: PASSWORD }, '127.0.0.1', {
        throttle: false,
      });
      const page = await browser.newPage();
      await page.goto(`${base}/dashboard/sign-in`);
      await page.getByRole('link', { name: 'Forgot your password?' }).click();
      await page.getByLabel('E-mail address of the account').fill(email);
      await look(page, 'forgot-password');
      await page.getByRole('button', { name: 'Mail me a link' }).click();
      await page.getByText('If an account has this address').waitFor();
      await look(page, 'forgot-password-sent');

      await t.notices.runOnce();
      const token = mailedToken(smtp.received, email, 'Reset your password', 'reset-password');
      await page.goto(`${base}/dashboard/reset-password?token=${token}`);
      await page.getByLabel('New password').fill('short');
      // The browser's own check (minlength) stops a too-short password before it is sent.
      await page.getByRole('button', { name: 'Set the new password' }).click();
      assert.equal(await page.locator('h1').innerText(), 'Choose a new password');
      await page.getByLabel('New password').fill(NEW_PASSWORD);
      await look(page, 'reset-password');
      await page.getByRole('button', { name: 'Set the new password' }).click();
      await page.getByText('Your password was changed').waitFor();
      await look(page, 'reset-password-done');

      await page.getByRole('link', { name: 'Sign in' }).click();
      await page.getByLabel('E-mail address').fill(email);
      await page.getByLabel('Password').fill(NEW_PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(`${base}/dashboard`);

      // The same link again: refused, with the way to a new one.
      await page.goto(`${base}/dashboard/reset-password?token=${token}`);
      await page.getByLabel('New password').fill('yet another long passphrase');
      await page.getByRole('button', { name: 'Set the new password' }).click();
      await page.getByText('Link not valid').waitFor();
      await look(page, 'reset-password-used');
      await page.close();
    });

    it('confirms the address from the mailed link; the account page shows it', async () => {
      const email = 'browser-verify@example.com';
      const page = await browser.newPage();
      await page.goto(`${base}/dashboard/sign-up`);
      await page.getByLabel('E-mail address').fill(email);
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Create the account' }).click();
      await page.waitForURL(`${base}/dashboard`);
      await page.goto(`${base}/dashboard/account`);
      await page.getByText('not confirmed yet').waitFor();
      await look(page, 'account-unconfirmed');
      await page.getByRole('button', { name: 'Mail a new confirmation link' }).click();
      await page.getByText('A new confirmation link was mailed').waitFor();

      await t.notices.runOnce();
      const token = mailedToken(
        smtp.received,
        email,
        'Confirm your e-mail address',
        'verify-email',
      );
      await page.goto(`${base}/dashboard/verify-email?token=${token}`);
      await look(page, 'verify-email');
      await page.getByRole('button', { name: 'Confirm my address' }).click();
      await page.getByText('your e-mail address is confirmed').waitFor();
      await look(page, 'verify-email-done');
      await page.goto(`${base}/dashboard/account`);
      assert.match(await page.locator('.cards').innerText(), /confirmed \d{4}-\d\d-\d\d/);
      await page.close();
    });
  },
);
