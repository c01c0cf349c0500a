// An address whose characters draw much wider than they are typed (U+FDFA draws 18) is printed
// whole: wrapped by drawn width and carried over to the next page, with every later line, the
// country and the VAT number present, the table's header on the page the table is on, and no
// text over the footer. Billing details and the PDF over real HTTP; the PDF read back by both
// our content-stream reader and poppler.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { accountOnPlan } from '../helpers/accounts.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { listenHttp, type HttpCall } from '../helpers/http.js';
import { pageTexts, pdftotext } from '../helpers/pdf.js';
import { DUTCH_SELLER } from '../helpers/seller.js';

/** Each word poppler finds, per page, with its box (points from the page's top). */
async function wordBoxes(
  pdf: Uint8Array,
): Promise<{ word: string; yMin: number; yMax: number }[][]> {
  const dir = await mkdtemp(join(tmpdir(), 'pdfbbox-'));
  try {
    await writeFile(join(dir, 'doc.pdf'), pdf);
    const { stdout } = await promisify(execFile)(
      'pdftotext',
      ['-bbox', '-enc', 'UTF-8', join(dir, 'doc.pdf'), '-'],
      { maxBuffer: 64 * 1024 * 1024 },
    );
    return stdout
      .split('<page ')
      .slice(1)
      .map((page) =>
        [
          ...page.matchAll(
            /<word xMin="[\d.]+" yMin="([\d.]+)" xMax="[\d.]+" yMax="([\d.]+)">([^<]*)<\/word>/g,
          ),
        ].map((m) => ({ word: m[3]!, yMin: Number(m[1]), yMax: Number(m[2]) })),
      );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const WIDE = '\ufdfa'.repeat(120);

describe('invoice PDF: a buyer address that draws far wider than it is typed', () => {
  let t: TestApp;
  let call: HttpCall;
  let base: string;
  before(async () => {
    t = await buildTestApp({ env: DUTCH_SELLER });
    ({ base, call } = await listenHttp(t));
  });
  after(() => t.close());

  it('prints every line, over as many pages as it takes, nothing over the footer', async () => {
    const a = await accountOnPlan(t, 'free');
    const details = await call('PUT', '/api/v1/account/billing-details', {
      token: a.session,
      body: {
        company_name: 'Wide Letters GmbH',
        address_lines: [WIDE, 'Unter den Linden 7', '10117 Berlin'],
        country: 'de',
        vat_number: 'DE136695976',
      },
    });
    assert.equal(details.status, 200, details.body);
    const sub = await call('POST', '/api/v1/subscription', {
      token: a.session,
      body: { plan: 'developer' },
    });
    assert.equal(sub.status, 200, sub.body);
    const id = String(sub.json().invoices[0].id);
    const res = await fetch(`${base}/api/v1/invoices/${id}`, {
      headers: { authorization: `Bearer ${a.session}`, accept: 'application/pdf' },
    });
    assert.equal(res.status, 200);
    const pdf = new Uint8Array(await res.arrayBuffer());

    const pages = await pageTexts(pdf);
    assert.ok(pages.length >= 2, `the address goes on over a page (${pages.length} pages)`);
    // The body's text in drawing order, without each page's footer line between the pages.
    const all = pages
      .map((p) =>
        p
          .split('\n')
          .filter((l) => !/ · page \d+ of \d+$/.test(l))
          .join('\n'),
      )
      .join('\n');
    // The wide line whole across the page break (as drawn: each U+FDFA decomposed).
    const drawn = WIDE.normalize('NFKD');
    // Every letter of it (the font's shaping draws each right-to-left run in visual order).
    const arabic = (text: string) => text.match(/[\u0600-\u06ff]/gu)?.length ?? 0;
    assert.equal(arabic(all), arabic(drawn), 'the whole wide line');
    for (const line of ['Unter den Linden 7', '10117 Berlin', 'Germany', 'VAT number: DE136695976'])
      assert.ok(all.includes(line), `${line} is printed`);
    const poppler = await pdftotext(pdf);
    for (const line of ['Unter den Linden 7', '10117 Berlin', 'Germany', 'DE136695976'])
      assert.ok(poppler.includes(line), `${line} in pdftotext's reading`);
    // The table's header is on the page the invoice lines are on.
    const tablePage = pages.findIndex((p) => p.includes('Amount due'));
    assert.ok(tablePage >= 1, 'the table follows the address on a later page');
    assert.match(pages[tablePage]!, /Description[\s\S]*Period[\s\S]*Amount/);

    // Poppler's boxes: every word above each page's footer line.
    const boxes = await wordBoxes(pdf);
    assert.equal(boxes.length, pages.length);
    boxes.forEach((words, i) => {
      const footer = words.filter((w) => w.word === 'page');
      assert.equal(footer.length, 1, `page ${i + 1} has its footer`);
      const footerTop = footer[0]!.yMin;
      const below = words.filter((w) => w.yMax > footerTop - 10 && !isFooter(w, footerTop));
      assert.deepEqual(below, [], `page ${i + 1}: nothing near or over the footer`);
    });
  });
});

/** A word of the footer line itself (the same baseline as its "page"). */
function isFooter(w: { yMin: number; yMax: number }, footerTop: number): boolean {
  return Math.abs(w.yMin - footerTop) < 3;
}
