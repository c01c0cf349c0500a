import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, type TestApp } from '../helpers/app.js';

const LEGAL = ['/legal/terms', '/legal/privacy', '/legal/dpa', '/legal/imprint'];

async function pageOf(t: TestApp, url: string): Promise<string> {
  const res = await t.app.inject({ url });
  assert.equal(res.statusCode, 200, `${url}: ${res.body.slice(0, 300)}`);
  assert.match(String(res.headers['content-type']), /^text\/html/);
  return res.body;
}

describe('legal pages and plan contacts, without the operator’s own texts', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({
      env: {
        SELLER_NAME: 'Gehaltsdaten GmbH',
        SELLER_ADDRESS: 'Hauptstraße 1; 10115 Berlin',
        SELLER_COUNTRY: 'DE',
        SUPPORT_EMAIL: 'Support <help@gehaltsdaten.example>',
        SALES_EMAIL: 'sales@gehaltsdaten.example',
      },
    });
  });
  after(() => t.close());

  it('serves each legal page as the template filled from the settings, marked as a template', async () => {
    for (const url of LEGAL) {
      const body = await pageOf(t, url);
      assert.match(body, /class="template"[^>]*>\s*<strong>Template\.<\/strong>/, url);
      assert.match(body, /LEGAL_(TERMS|PRIVACY|DPA|IMPRINT)_FILE/, url);
      assert.doesNotMatch(body, /\{\{\w+\}\}/, `${url} has an unfilled field`);
    }
    const imprint = await pageOf(t, '/legal/imprint');
    assert.match(imprint, /Gehaltsdaten GmbH/);
    assert.match(imprint, /Hauptstraße 1, 10115 Berlin, DE/);
    assert.match(imprint, /not set: SELLER_VAT_NUMBER/);
    assert.match(
      imprint,
      /E-mail: <a href="mailto:help@gehaltsdaten.example">help@gehaltsdaten.example<\/a>/,
    );
  });

  it('links every legal page from the footer of every page', async () => {
    for (const url of ['/', '/methodology', '/docs/quick-start', ...LEGAL]) {
      const body = await pageOf(t, url);
      const footer = body.slice(body.indexOf('<footer'));
      for (const link of LEGAL) assert.ok(footer.includes(`href="${link}"`), `${url} → ${link}`);
    }
  });

  it('offers contact sales for Enterprise and the support of each plan, and names its sources truly', async () => {
    const home = await pageOf(t, '/');
    const plan = (id: string) => {
      const start = home.indexOf(`aria-labelledby="plan-${id}"`);
      return home.slice(start, home.indexOf('</section>', start));
    };
    assert.match(plan('free'), /Support: <a href="https:\/\/github.com\/salary-api\/community/);
    assert.match(plan('developer'), /mailto:help@gehaltsdaten.example/);
    assert.match(plan('developer'), /2 business days/);
    assert.match(plan('business'), /1 business day/);
    assert.match(plan('enterprise'), /4 hours, with a dedicated account manager/);
    assert.match(
      plan('enterprise'),
      /<a class="sales" href="mailto:sales@gehaltsdaten.example\?subject=Enterprise">Contact sales<\/a>/,
    );
    assert.doesNotMatch(home, /official statistics/);
    assert.match(home, /published statistics and\s+pay scales, each source named/);
    assert.match(home, /press reports and republications/);
  });
});

describe('legal pages from the operator’s own texts', () => {
  let t: TestApp;
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'legal-'));
    await writeFile(join(dir, 'terms.md'), '# Our terms\n\nSection **one** of our own terms.\n');
    t = await buildTestApp({ env: { LEGAL_TERMS_FILE: join(dir, 'terms.md') } });
  });
  after(async () => {
    await t.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('serves the operator’s text without the template mark, and the template for the others', async () => {
    const terms = await pageOf(t, '/legal/terms');
    assert.match(terms, /<h1>Our terms<\/h1>/);
    assert.match(terms, /Section <strong>one<\/strong> of our own terms/);
    assert.doesNotMatch(terms, /class="template"/);
    assert.match(await pageOf(t, '/legal/privacy'), /class="template"/);
  });

  it('refuses to start when a LEGAL_*_FILE names no readable file', async () => {
    await assert.rejects(
      buildTestApp({ env: { LEGAL_DPA_FILE: join(dir, 'missing.md') } }),
      /LEGAL_DPA_FILE must name a readable Markdown file/,
    );
  });
});
