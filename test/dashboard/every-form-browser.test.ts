// Every dashboard form in Debian chromium: a submit with several bad fields answers the same
// page with one error summary naming each problem by the field's label, what was typed still in
// the fields (never a password or a code), each bad field marked; then a correct submit goes
// through. Each refused page is checked with axe and for sideways scrolling at 1280 and 390 px.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Secret, TOTP } from 'otpauth';
import type { Browser, Page } from 'playwright-core';
import { listNotices } from '../../src/notices/index.js';
import { createActionTokens } from '../../src/lib/action-tokens.js';
import { findAccountByEmail } from '../../src/accounts/index.js';
import { accountOnPlan, verifyEmailOf } from '../helpers/accounts.js';
import { buildTestApp, TEST_SECRET_KEY, type TestApp } from '../helpers/app.js';
import { browserAvailable, launchBrowser, lookAtBothWidths } from '../helpers/browser.js';
import { listenHttp } from '../helpers/http.js';
import { DUTCH_SELLER } from '../helpers/seller.js';

const PASSWORD = 'a long enough passphrase';

/** What a refused submit must show: the summary's lines, the fields kept, the fields emptied. */
interface Refusal {
  /** The form, by a selector. */
  form: string;
  /** Values set past the browser's own checks (maxlength, type=email), as a client sends them. */
  set: Record<string, string>;
  /** Checkboxes to untick first. */
  uncheck?: string[];
  summary: string[];
  /** Fields that must have been marked aria-invalid. */
  invalid: string[];
  /** Fields that must hold what was typed (by default every field set but `blank`). */
  kept?: string[];
  /** Fields that must be empty again (passwords, codes). */
  blank?: string[];
  /** The screenshots' name. */
  name: string;
}

describe('every dashboard form in a real browser', { skip: !browserAvailable() }, () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;

  before(async () => {
    t = await buildTestApp({
      now: '2026-11-25T14:05:00Z',
      env: {
        // A seller that collects by SEPA Direct Debit, so that the mandate form is offered.
        ...DUTCH_SELLER,
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
    await t?.close();
  });

  async function newPage(): Promise<{ page: Page; done: () => Promise<void> }> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    page.on('dialog', (dialog) => void dialog.accept());
    return { page, done: () => context.close() };
  }

  async function signIn(page: Page, email: string, password = PASSWORD): Promise<void> {
    await page.goto(`${base}/dashboard/sign-in`);
    await page.getByLabel('E-mail address').fill(email);
    await page.getByLabel('Password').fill(password);
    await Promise.all([
      page.waitForNavigation(),
      page.getByRole('button', { name: 'Sign in' }).click(),
    ]);
  }

  async function signedIn(plan: 'free' | 'developer' | 'business' | 'enterprise') {
    const account = await accountOnPlan(t, plan);
    const { page, done } = await newPage();
    await signIn(page, account.email);
    assert.equal(new URL(page.url()).pathname, '/dashboard');
    return { account, page, done };
  }

  /** Fills a form past the browser's checks, submits it, and checks the refusal it gets. */
  async function refused(page: Page, r: Refusal): Promise<void> {
    await page.setViewportSize({ width: 1280, height: 900 });
    for (const selector of r.uncheck ?? []) await page.locator(selector).uncheck();
    for (const [selector, value] of Object.entries(r.set))
      await page.locator(selector).evaluate((el, v) => {
        (el as unknown as { value: string }).value = v;
      }, value);
    const [response] = await Promise.all([
      page.waitForNavigation(),
      page.locator(r.form).evaluate((el) => {
        const form = el as unknown as { noValidate: boolean; requestSubmit(): void };
        form.noValidate = true;
        form.requestSubmit();
      }),
    ]);
    assert.ok((response?.status() ?? 0) >= 400, `${r.name}: refused with a 4xx`);
    const summary = page.locator('.error-summary');
    assert.equal(await summary.count(), 1, `${r.name}: one summary`);
    assert.equal(await summary.getAttribute('role'), 'alert');
    assert.deepEqual(
      (await summary.locator('li').allInnerTexts()).map((s) => s.replace(/\s+/g, ' ').trim()),
      r.summary,
      r.name,
    );
    assert.equal(
      await page.evaluate('document.activeElement?.className'),
      'error-summary',
      `${r.name}: the summary has the focus`,
    );
    for (const selector of r.invalid)
      assert.equal(
        await page.locator(selector).getAttribute('aria-invalid'),
        'true',
        `${r.name}: ${selector} marked`,
      );
    for (const selector of r.kept ?? Object.keys(r.set).filter((s) => !r.blank?.includes(s)))
      assert.equal(
        await page.locator(selector).inputValue(),
        r.set[selector],
        `${r.name}: ${selector} kept`,
      );
    for (const selector of r.blank ?? [])
      assert.equal(
        await page.locator(selector).inputValue(),
        '',
        `${r.name}: ${selector} not sent back`,
      );
    // Each line of the summary leads to its field.
    const first = summary.locator('a').first();
    const target = (await first.getAttribute('href')) ?? '';
    await first.click();
    assert.equal(`#${await page.evaluate<string>('document.activeElement.id')}`, target);
    await lookAtBothWidths(page, `forms-${r.name}`);
    await page.setViewportSize({ width: 1280, height: 900 });
  }

  /** Submits a form as a person does (the browser's own checks on) and waits for the answer. */
  async function submitted(page: Page, button: string): Promise<number> {
    const [response] = await Promise.all([page.waitForNavigation(), page.locator(button).click()]);
    return response?.status() ?? 0;
  }

  it('sign-up, sign-in, the code step and the password reset', async () => {
    const { page, done } = await newPage();
    await page.goto(`${base}/dashboard/sign-up`);
    await refused(page, {
      form: 'form[action="/dashboard/sign-up"]',
      set: { '#email': 'not-an-address', '#password': 'short' },
      summary: [
        'E-mail address: is not a valid e-mail address',
        'Password: it must have at least 12 characters',
      ],
      invalid: ['#email', '#password'],
      blank: ['#password'],
      name: 'sign-up-refused',
    });
    await page.fill('#email', 'forms-browser@example.com');
    await page.fill('#password', PASSWORD);
    await submitted(page, 'form[action="/dashboard/sign-up"] button');
    assert.equal(new URL(page.url()).pathname, '/dashboard');
    await Promise.all([
      page.waitForNavigation(),
      page.getByRole('button', { name: 'Sign out' }).click(),
    ]);

    await refused(page, {
      form: 'form[action="/dashboard/sign-in"]',
      set: { '#email': '', '#password': '' },
      summary: ['E-mail address: is required', 'Password: is required'],
      invalid: ['#email', '#password'],
      name: 'sign-in-refused',
    });
    // A wrong password is the form's problem, not a field's: said above the form.
    await page.fill('#email', 'forms-browser@example.com');
    await page.fill('#password', 'not the password at all');
    assert.equal(await submitted(page, 'form[action="/dashboard/sign-in"] button'), 401);
    assert.match(
      await page.locator('.error-summary').innerText(),
      /e-mail address or the password is wrong/,
    );
    assert.equal(await page.inputValue('#email'), 'forms-browser@example.com');
    assert.equal(await page.inputValue('#password'), '');
    await page.fill('#password', PASSWORD);
    await submitted(page, 'form[action="/dashboard/sign-in"] button');
    assert.equal(new URL(page.url()).pathname, '/dashboard');

    // Two-factor set-up (the address's owner only: it is confirmed first): both fields empty,
    // then the code and the password.
    const account = await findAccountByEmail(t.db, 'forms-browser@example.com');
    await verifyEmailOf(t, account!.id);
    await page.goto(`${base}/dashboard/account/two-factor`);
    await refused(page, {
      form: '#two-factor-form',
      set: { '#enable_totp_code': '', '#enable_totp_password': '' },
      summary: ['Code from the authenticator app: is required', 'Password: is required'],
      invalid: ['#enable_totp_code', '#enable_totp_password'],
      name: 'two-factor-refused',
    });
    const secret = (await page.locator('#totp-secret').innerText()).replace(/\s/g, '');
    const totp = new TOTP({ secret: Secret.fromBase32(secret) });
    await page.fill('#enable_totp_code', totp.generate({ timestamp: t.clock.now() }));
    await page.fill('#enable_totp_password', PASSWORD);
    await submitted(page, '#two-factor-form button');
    assert.equal(await page.locator('#recovery-codes li').count(), 10);

    // The code step of the next sign-in.
    await page.goto(`${base}/dashboard`);
    await Promise.all([
      page.waitForNavigation(),
      page.getByRole('button', { name: 'Sign out' }).click(),
    ]);
    await page.fill('#email', 'forms-browser@example.com');
    await page.fill('#password', PASSWORD);
    await submitted(page, 'form[action="/dashboard/sign-in"] button');
    assert.equal(new URL(page.url()).pathname, '/dashboard/sign-in/code');
    await refused(page, {
      form: 'form[action="/dashboard/sign-in/code"]',
      set: { '#code': 'x'.repeat(40) },
      summary: ['Code: is too long (at most 32 characters)'],
      invalid: ['#code'],
      blank: ['#code'],
      name: 'sign-in-code-refused',
    });
    t.clock.advance(30_000);
    await page.fill('#code', totp.generate({ timestamp: t.clock.now() }));
    await submitted(page, 'form[action="/dashboard/sign-in/code"] button');
    assert.equal(new URL(page.url()).pathname, '/dashboard');

    // Turning it off on the Account page: both fields empty, then both right.
    await page.goto(`${base}/dashboard/account`);
    await refused(page, {
      form: '#two-factor-off-form',
      set: { '#disable_totp_password': '', '#disable_totp_code': '' },
      summary: [
        'Password: is required',
        'Code from the authenticator app, or a recovery code: is required',
      ],
      invalid: ['#disable_totp_password', '#disable_totp_code'],
      name: 'two-factor-off-refused',
    });
    t.clock.advance(30_000);
    await page.fill('#disable_totp_password', PASSWORD);
    await page.fill('#disable_totp_code', totp.generate({ timestamp: t.clock.now() }));
    await submitted(page, '#two-factor-off-form button');
    assert.match(await page.locator('.flash-ok').innerText(), /Two-factor sign-in was turned off/);

    // A forgotten password: the address, then the mailed link's page.
    await Promise.all([
      page.waitForNavigation(),
      page.getByRole('button', { name: 'Sign out' }).click(),
    ]);
    await page.goto(`${base}/dashboard/forgot-password`);
    await refused(page, {
      form: 'form[action="/dashboard/forgot-password"]',
      set: { '#email': 'forms-browser-at-example.com' },
      summary: ['E-mail address of the account: is not a valid e-mail address'],
      invalid: ['#email'],
      name: 'forgot-password-refused',
    });
    await page.fill('#email', 'forms-browser@example.com');
    assert.equal(await submitted(page, 'form[action="/dashboard/forgot-password"] button'), 200);
    assert.match(await page.locator('.flash-ok').innerText(), /link to choose a new password/);
    await page.goto(
      `${base}/dashboard/reset-password?token=${await resetToken('forms-browser@example.com')}`,
    );
    await refused(page, {
      form: 'form[action="/dashboard/reset-password"]',
      set: { '#new_password': 'password1234' },
      summary: ['New password: it is a well-known password'],
      invalid: ['#new_password'],
      blank: ['#new_password'],
      name: 'reset-password-refused',
    });
    await page.fill('#new_password', `${PASSWORD} again`);
    assert.equal(await submitted(page, 'form[action="/dashboard/reset-password"] button'), 200);
    assert.match(await page.locator('.flash-ok').innerText(), /password was changed/);
    await signIn(page, 'forms-browser@example.com', `${PASSWORD} again`);
    assert.equal(new URL(page.url()).pathname, '/dashboard');
    await done();
  });

  /** The token of the last password reset mail queued for the address, as its link carries it. */
  async function resetToken(email: string): Promise<string> {
    const rows = await t.db.query<{ id: string }>('SELECT id FROM accounts WHERE email = $1', [
      email,
    ]);
    const notices = await listNotices(t.db, rows[0]!.id);
    const notice = notices.findLast((n) => n.kind === 'password.reset');
    assert.ok(notice, 'a reset mail was queued');
    return createActionTokens(TEST_SECRET_KEY).token(
      'password.reset',
      String(notice.data.token_id),
    );
  }

  it('API keys: create with name, mode and allowlist; a key’s name and allowlist', async () => {
    const { page, done } = await signedIn('business');
    await page.goto(`${base}/dashboard/keys`);
    assert.equal(await page.locator('#key-name').getAttribute('maxlength'), '100');
    await refused(page, {
      form: 'form[action="/dashboard/keys"]',
      set: { '#key-name': 'k'.repeat(101), '#key-allowlist': '203.0.113.0/24, 010.1.2.3' },
      summary: [
        'Name: is too long (at most 100 characters)',
        'IP allowlist: "010.1.2.3" is not an IP address or CIDR range in standard notation (e.g. 203.0.113.0/24, 2001:db8::/48)',
      ],
      invalid: ['#key-name', '#key-allowlist'],
      name: 'keys-create-refused',
    });
    await page.fill('#key-name', 'reporting');
    await page.fill('#key-allowlist', '203.0.113.0/24');
    assert.equal(await submitted(page, 'form[action="/dashboard/keys"] button[type=submit]'), 201);
    assert.match(await page.locator('#new-key').inputValue(), /^sk_live_/);

    // The new key's own form, in its row.
    const row = page.locator('#keys tbody tr', { hasText: 'reporting' });
    await row.getByText('Manage').click();
    const form = 'form[action$="/update"]';
    const id = (await row.locator(form).getAttribute('action'))?.split('/')[3] ?? '';
    await refused(page, {
      form: `form[action="/dashboard/keys/${id}/update"]`,
      set: { [`#name-${id}`]: '', [`#allow-${id}`]: '203.0.113.0/33' },
      summary: [
        'Name: is required',
        'IP allowlist: "203.0.113.0/33" is not an IP address or CIDR range in standard notation (e.g. 203.0.113.0/24, 2001:db8::/48)',
      ],
      invalid: [`#name-${id}`, `#allow-${id}`],
      name: 'keys-update-refused',
    });
    await page.fill(`#name-${id}`, 'reporting eu');
    await page.fill(`#allow-${id}`, '203.0.113.0/24, 198.51.100.7');
    await submitted(page, `form[action="/dashboard/keys/${id}/update"] button`);
    assert.match(await page.locator('.flash-ok').innerText(), /The key was updated/);
    assert.match(await page.locator('#keys').innerText(), /reporting eu/);
    await done();
  });

  it('Account: contacts, IP allowlist, password and deletion', async () => {
    const { account, page, done } = await signedIn('business');
    await page.goto(`${base}/dashboard/account`);
    await refused(page, {
      form: '#contacts-form',
      set: {
        '#contact_name': 'E'.repeat(201),
        '#billing_email': 'billing@',
        '#technical_email': 'ops at example.com',
      },
      summary: [
        'Your name: is too long (at most 200 characters)',
        'Billing notices go to: is not a valid e-mail address',
        'Technical and security notices go to: is not a valid e-mail address',
      ],
      invalid: ['#contact_name', '#billing_email', '#technical_email'],
      name: 'account-contacts-refused',
    });
    await page.fill('#contact_name', 'Erika Mustermann');
    await page.fill('#billing_email', 'billing@example.com');
    await page.fill('#technical_email', 'ops@example.com');
    await submitted(page, '#contacts-form button');
    assert.match(await page.locator('.flash-ok').innerText(), /contact addresses were saved/);
    assert.equal(await page.inputValue('#contact_name'), 'Erika Mustermann');

    await refused(page, {
      form: '#allowlist-form',
      set: { '#allowlist': '203.0.113.0/24\n1.2.3\n2001:db8::/129' },
      summary: [
        'Addresses or CIDR ranges: "1.2.3" is not an IP address or CIDR range in standard notation (e.g. 203.0.113.0/24, 2001:db8::/48); "2001:db8::/129" is not an IP address or CIDR range in standard notation (e.g. 203.0.113.0/24, 2001:db8::/48)',
      ],
      invalid: ['#allowlist'],
      name: 'account-allowlist-refused',
    });
    await page.fill('#allowlist', '203.0.113.0/24\n127.0.0.1');
    await submitted(page, '#allowlist-form button');
    assert.match(await page.locator('.flash-ok').innerText(), /IP allowlist was saved/);

    await refused(page, {
      form: '#password-form',
      set: { '#current_password': '', '#new_password': 'short' },
      summary: [
        'Current password: is required',
        'New password: it must have at least 12 characters',
      ],
      invalid: ['#current_password', '#new_password'],
      blank: ['#new_password'],
      name: 'account-password-refused',
    });
    await page.fill('#current_password', PASSWORD);
    await page.fill('#new_password', `${PASSWORD} two`);
    await submitted(page, '#password-form button');
    assert.match(await page.locator('.flash-ok').innerText(), /password was changed/);

    await refused(page, {
      form: '#delete-form',
      set: { '#delete_password': '', '#delete_confirm': 'delete it' },
      summary: ['Password: is required', 'Type DELETE to confirm: must be the word DELETE'],
      invalid: ['#delete_password', '#delete_confirm'],
      name: 'account-delete-refused',
    });
    await page.fill('#delete_password', `${PASSWORD} two`);
    await page.fill('#delete_confirm', 'DELETE');
    assert.equal(await submitted(page, '#delete-form button'), 200);
    assert.match(await page.locator('h1').innerText(), /Account deleted/);
    assert.match(await page.locator('main').innerText(), new RegExp(account.accountId));
    await done();
  });

  it('Billing: the billing details and the SEPA mandate', async () => {
    const { page, done } = await signedIn('developer');
    await page.goto(`${base}/dashboard/billing`);
    const fiveLines = 'Friedrichstraße 1\nHinterhaus\n3. Etage\nc/o Beispiel\n10117 Berlin';
    await refused(page, {
      form: '#billing-details',
      set: {
        '#company_name': '',
        '#address_lines': fiveLines,
        '#country': '',
        '#vat_number': 'DE 1234 5678 9012 3456 7890 1234 5',
      },
      summary: [
        'Company name (or your own name): is required',
        'Address: has too many entries (at most 4)',
        'Country: choose the country invoices are made out to',
        'VAT number: is too long (at most 30 characters)',
      ],
      invalid: ['#company_name', '#address_lines', '#country', '#vat_number'],
      name: 'billing-details-refused',
    });
    await page.fill('#company_name', 'Beispiel Analytics GmbH');
    await page.fill('#address_lines', 'Friedrichstraße 1\n10117 Berlin');
    await page.selectOption('#country', 'DE');
    await page.fill('#vat_number', 'DE 136 695 976');
    await submitted(page, '#billing-details button');
    assert.match(await page.locator('.flash-ok').innerText(), /billing details are saved/);

    await refused(page, {
      form: '#sepa-mandate-form',
      set: { '#mandate_iban': 'US12 3456 7890', '#mandate_holder': '   ' },
      uncheck: ['#mandate_accept'],
      summary: [
        'IBAN: must start with the code of a country that has IBANs and two check digits (for example DE89370400440532013000)',
        'Account holder: must be 1 to 70 characters',
        'I accept the mandate text: must be true: the mandate text has to be accepted',
      ],
      invalid: ['#mandate_iban', '#mandate_holder', '#mandate_accept'],
      name: 'billing-mandate-refused',
    });
    await page.fill('#mandate_iban', 'DE89 3704 0044 0532 0130 00');
    await page.fill('#mandate_holder', 'Beispiel Analytics GmbH');
    await page.check('#mandate_accept');
    await submitted(page, '#sepa-mandate-form button');
    assert.match(await page.locator('#sepa-mandate').innerText(), /DE89 •••• •••• •••• ••30 00/);
    await done();
  });

  it('Enterprise: an OAuth client and the access review', async () => {
    const { page, done } = await signedIn('enterprise');
    await page.goto(`${base}/dashboard/oauth-clients`);
    await refused(page, {
      form: 'form[action="/dashboard/oauth-clients"]',
      set: { '#client-name': '', '#client-jwks': '{"keys": [', '#client-allowlist': 'office' },
      uncheck: ['input[name="scopes"][value="salary:read"]'],
      summary: [
        'Name: is required',
        'Scopes: choose one or more of the listed scopes',
        'Public keys for private_key_jwt: is not JSON (paste the JWKS: {"keys": [ … ]})',
        'Allowed addresses or CIDR ranges: "office" is not an IP address or CIDR range in standard notation (e.g. 203.0.113.0/24, 2001:db8::/48)',
      ],
      invalid: ['#client-name', '#client-scopes', '#client-jwks', '#client-allowlist'],
      name: 'oauth-create-refused',
    });
    await page.fill('#client-name', 'payroll sync');
    await page.check('input[name="scopes"][value="salary:read"]');
    await page.fill('#client-jwks', '');
    await page.fill('#client-allowlist', '');
    assert.equal(
      await submitted(page, 'form[action="/dashboard/oauth-clients"] button[type=submit]'),
      201,
    );
    assert.match(await page.locator('#client-secret').inputValue(), /^ocs_/);

    await page.goto(`${base}/dashboard/compliance`);
    await refused(page, {
      form: '#review-form',
      set: { '#review-from': 'yesterday', '#review-to': 'soon' },
      summary: ['From: not an ISO 8601 date or time', 'To: not an ISO 8601 date or time'],
      invalid: ['#review-from', '#review-to'],
      name: 'compliance-review-refused',
    });
    await page.fill('#review-from', '2026-11-01');
    await page.fill('#review-to', '');
    await submitted(page, '#review-form button');
    assert.match(await page.locator('#review').innerText(), /hash chain verified/);
    await done();
  });
});
