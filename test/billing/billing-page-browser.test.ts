// The Billing page in Debian chromium: the billing details form (CSRF as every form), a refused
// VAT number shown with what is allowed, and each invoice's PDF downloaded through its link.
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
import { pageTexts } from '../helpers/pdf.js';
import { qrCodesInImage } from '../helpers/qr.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

describe('the Billing page in a browser', { skip: !browserAvailable() }, () => {
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
      },
    });
    base = (await listenHttp(t)).base;
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await t.close();
  });

  it('saves billing details, refuses a malformed VAT number and downloads the invoice PDF', async () => {
    const a = await accountOnPlan(t, 'free');
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    await page.goto(`${base}/dashboard/sign-in`);
    await page.fill('#email', a.email);
    await page.fill('#password', 'a long enough passphrase');
    await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);

    await page.goto(`${base}/dashboard/billing`);
    await page.fill('#company_name', 'Beispiel Analytics GmbH');
    await page.fill('#address_lines', 'Friedrichstraße 1\n10117 Berlin');
    // The country is chosen by its name from the list (member states first, then every country).
    assert.equal(await page.locator('#country option[value="GR"]').first().textContent(), 'Greece');
    assert.ok((await page.locator('#country option[value="CH"]').count()) === 1, 'Switzerland');
    await page.selectOption('#country', { label: 'Germany' });
    await page.fill('#vat_number', 'DE12345');
    await Promise.all([page.waitForNavigation(), page.click('#billing-details button')]);
    const refused = await page.textContent('body');
    assert.match(refused ?? '', /VAT number: .*not of the form of a VAT number of Germany/s);
    assert.equal(await page.inputValue('#company_name'), 'Beispiel Analytics GmbH', 'kept');
    // The refused form answers 400, which the browser logs; nothing else may be logged.
    assert.deepEqual(errors, [
      'Failed to load resource: the server responded with a status of 400 (Bad Request)',
    ]);
    errors.length = 0;

    await page.fill('#vat_number', 'DE 136 695 976');
    await Promise.all([page.waitForNavigation(), page.click('#billing-details button')]);
    assert.match((await page.textContent('body')) ?? '', /billing details are saved/);
    assert.equal(await page.inputValue('#vat_number'), 'DE136695976');

    await page.selectOption('#plan-choice', 'developer');
    await Promise.all([
      page.waitForNavigation(),
      page.click('form[action$="/billing/plan"] button'),
    ]);
    await Promise.all([
      page.waitForNavigation(),
      page.click('form[action$="/plan/confirm"] button'),
    ]);
    // The open invoice's transfer details, and its QR code as a phone would read it off the screen.
    const transfer = page.locator('#pay-transfer .transfer').first();
    const number = await transfer.getAttribute('data-invoice');
    assert.match(
      (await transfer.textContent()) ?? '',
      /NL91 ABNA 0417 1643 00.*ABNANL2A.*€49\.00.*RF\d{2}\d+/s,
    );
    const qrShot = join(tmpdir(), `epc-qr-${process.pid}.png`);
    await transfer.locator('svg').screenshot({ path: qrShot });
    const [decoded] = await qrCodesInImage(qrShot);
    assert.equal(
      decoded,
      [
        'BCD',
        '002',
        '1',
        'SCT',
        'ABNANL2A',
        'Salary Data Europe B.V.',
        'NL91ABNA0417164300',
        'EUR49.00',
        '',
        (await transfer.locator('.reference').textContent())!,
      ].join('\n'),
    );
    assert.ok(number !== null);
    const shot = await screenshot(page, 'billing-page');
    assert.ok(shot.endsWith('.png'));
    assert.deepEqual(await seriousAxeViolations(page), []);
    assert.deepEqual(errors, []);

    const link = page.getByRole('link', { name: /Download PDF of invoice \d+/ });
    const [download] = await Promise.all([page.waitForEvent('download'), link.first().click()]);
    const path = await download.path();
    const { readFileSync } = await import('node:fs');
    const text = (await pageTexts(readFileSync(path))).join(' ').replace(/\n/g, ' ');
    assert.match(text, /VAT number: DE136695976/);
    assert.match(text, /Reverse charge/);
    await page.close();
  });
});
