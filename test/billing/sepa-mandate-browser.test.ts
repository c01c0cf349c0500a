// The SEPA mandate on the Billing page in Debian chromium: a refused IBAN named with what is
// allowed, the mandate given with its text accepted and shown masked, then revoked; at desktop
// and phone widths.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { accountOnPlan } from '../helpers/accounts.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import {
  browserAvailable,
  launchBrowser,
  screenshot,
  seriousAxeViolations,
} from '../helpers/browser.js';
import { listenHttp } from '../helpers/http.js';

describe('the SEPA mandate on the Billing page in a browser', { skip: !browserAvailable() }, () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  before(async () => {
    t = await buildTestApp({
      env: {
        SELLER_NAME: 'Salary Data Europe B.V.',
        SELLER_COUNTRY: 'NL',
        SELLER_VAT_NUMBER: 'NL812345678B01',
        SELLER_IBAN: 'NL91ABNA0417164300',
        SELLER_BIC: 'ABNANL2A',
        SELLER_SEPA_CREDITOR_ID: 'NL69ZZZ123456780000',
      },
    });
    base = (await listenHttp(t)).base;
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await t.close();
  });

  for (const width of [1280, 390]) {
    it(`gives and revokes a mandate at ${width} px`, async () => {
      const a = await accountOnPlan(t, 'developer');
      const page = await browser.newPage({ viewport: { width, height: 900 } });
      await page.goto(`${base}/dashboard/sign-in`);
      await page.fill('#email', a.email);
      await page.fill('#password', 'a long enough passphrase');
      await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
      await page.goto(`${base}/dashboard/billing`);

      // The transfer details and EPC QR code of the open invoice, and the mandate form.
      assert.equal(await page.locator('#pay-transfer .transfer svg').count(), 1);
      assert.match(
        (await page.textContent('#sepa-mandate-form')) ?? '',
        /creditor identifier NL69ZZZ123456780000.*refund from your bank.*only intended for business-to-business/s,
      );
      await screenshot(page, `billing-sepa-form-${width}`);
      await page.fill('#mandate_iban', 'US12 3456 7890');
      await page.fill('#mandate_holder', 'Beispiel Analytics GmbH');
      await page.check('#mandate_accept');
      await Promise.all([page.waitForNavigation(), page.click('#sepa-mandate-form button')]);
      assert.match(
        (await page.textContent('.error-summary')) ?? '',
        /IBAN: must start with the code of a country that has IBANs/,
      );
      assert.equal(await page.inputValue('#mandate_holder'), 'Beispiel Analytics GmbH', 'kept');

      await page.fill('#mandate_iban', 'DE89 3704 0044 0532 0130 00');
      await page.check('input[name=scheme][value=b2b]');
      await page.check('#mandate_accept');
      await Promise.all([page.waitForNavigation(), page.click('#sepa-mandate-form button')]);
      const card = (await page.textContent('#sepa-mandate')) ?? '';
      assert.match(card, /DE89 •••• •••• •••• ••30 00/);
      assert.match(card, /B2B/);
      assert.doesNotMatch((await page.content()) ?? '', /370400440532013000|0532 0130/);
      const reference = await page.textContent('#sepa-mandate .reference');
      assert.match(reference ?? '', /^SAPI-\d{8}-[0-9A-F]{10}$/);
      await screenshot(page, `billing-sepa-mandate-${width}`);
      assert.deepEqual(await seriousAxeViolations(page), []);

      await Promise.all([page.waitForNavigation(), page.click('#sepa-mandate button')]);
      assert.match((await page.textContent('body')) ?? '', /mandate is revoked/);
      assert.equal(await page.locator('#sepa-mandate-form').count(), 1);
      const actions = await t.db.query<{ action: string }>(
        `SELECT action FROM audit_log WHERE account_id = $1 AND action LIKE 'mandates.%' ORDER BY id`,
        [a.accountId],
      );
      assert.deepEqual(
        actions.map((r) => r.action),
        ['mandates.give', 'mandates.revoke'],
      );
      await page.close();
    });
  }
});
