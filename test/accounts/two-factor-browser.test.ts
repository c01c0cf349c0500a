// Two-factor sign-in in a real browser: set-up on the account page (QR code and secret as
// text), sign out, sign in with a code computed here from the secret the page showed. Each page
// checked with axe and photographed at desktop (1280 px) and phone (390 px) width.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Secret, TOTP } from 'otpauth';
import type { Browser, Page } from 'playwright-core';
import { verifyEmailOf } from '../helpers/accounts.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { browserAvailable, launchBrowser, lookAtBothWidths } from '../helpers/browser.js';

const PASSWORD = 'a long enough passphrase';

describe(
  'two-factor sign-in in a real browser',
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

    const look = (page: Page, name: string) => lookAtBothWidths(page, `two-factor-${name}`);

    it('enrol → sign out → sign in with the password and a code', async () => {
      const email = 'browser-totp@example.com';
      const { account } = await t.services.accounts.signUp(
        { email, password: PASSWORD },
        '127.0.0.1',
        { throttle: false },
      );
      await verifyEmailOf(t, account.id);
      const page = await browser.newPage();
      await page.goto(`${base}/dashboard/sign-in`);
      await page.getByLabel('E-mail address').fill(email);
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(`${base}/dashboard`);

      await page.goto(`${base}/dashboard/account`);
      await page.getByRole('link', { name: 'Set up two-factor sign-in' }).click();
      await page.locator('.qr svg').waitFor();
      await look(page, 'enrol');
      const secret = (await page.locator('#totp-secret').innerText()).replace(/\s/g, '');
      const totp = new TOTP({ secret: Secret.fromBase32(secret) });
      await page
        .getByLabel('Code from the authenticator app')
        .fill(totp.generate({ timestamp: t.clock.now() }));
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Turn two-factor sign-in on' }).click();
      await page.locator('#recovery-codes').waitFor();
      assert.equal(await page.locator('#recovery-codes li').count(), 10);
      await look(page, 'recovery-codes');

      await page.goto(`${base}/dashboard/account`);
      await page.locator('#two-factor-state').waitFor();
      await look(page, 'account');
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.waitForURL(/\/dashboard\/sign-in/);

      await page.getByLabel('E-mail address').fill(email);
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(`${base}/dashboard/sign-in/code`);
      await look(page, 'code-step');
      // The enrolment's code was used: the next step's code signs in.
      t.clock.advance(30_000);
      await page.getByLabel('Code').fill(totp.generate({ timestamp: t.clock.now() }));
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(`${base}/dashboard`);
      await page.close();
    });
  },
);
