import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { pageTexts, samplePdf } from '../../test/helpers/pdf.js';
import { drawable } from '../formats/pdf-text.js';
import { stampPdf } from './stamp.js';

describe('stamping', () => {
  it('writes what Helvetica lacks as its base letter or ?', async () => {
    const font = await (await PDFDocument.create()).embedFont(StandardFonts.Helvetica);
    assert.equal(drawable(font, 'Zoë — Ćirić Łódź 東京'), 'Zoë — Ciric ?ódz ??');
  });

  it('stamps a name no font has, and a stamp too long for one line, on every page', async () => {
    const name = `${'very-long-licensee-name-'.repeat(14)}Ørsted 東京`;
    const out = await stampPdf(await samplePdf(2), `Confidential — provided to ${name}`);
    const texts = await pageTexts(out);
    assert.equal(texts.length, 2);
    for (const text of texts) {
      const lines = text.split('\n').filter((l) => !l.startsWith('Original'));
      assert.ok(lines.length > 1, 'wrapped onto several lines');
      // Lines break at spaces, or inside a word too long for a line: compare without them.
      assert.equal(
        lines.join('').replace(/\s/g, ''),
        `Confidential — provided to ${'very-long-licensee-name-'.repeat(14)}Ørsted ??`.replace(
          /\s/g,
          '',
        ),
      );
    }
  });
});
