import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import fontkit from '@pdf-lib/fontkit';
import type { PDFDocument, PDFFont } from 'pdf-lib';

const require = createRequire(import.meta.url);
const FONT_FILES = { regular: 'DejaVuSans.ttf', bold: 'DejaVuSans-Bold.ttf' } as const;
const fontBytes = new Map<keyof typeof FONT_FILES, Uint8Array>();

/**
 * DejaVu Sans, regular or bold, embedded as a subset: the Latin, Greek and Cyrillic letters of
 * every EU language (Ł, ő, Ž, Ά, Б), so names and addresses print as written. Each file is read
 * once per process from the `dejavu-fonts-ttf` package.
 */
export async function embedTextFont(
  doc: PDFDocument,
  weight: keyof typeof FONT_FILES = 'regular',
): Promise<PDFFont> {
  let bytes = fontBytes.get(weight);
  if (bytes === undefined) {
    bytes = readFileSync(require.resolve(`dejavu-fonts-ttf/ttf/${FONT_FILES[weight]}`));
    fontBytes.set(weight, bytes);
  }
  doc.registerFontkit(fontkit);
  return doc.embedFont(bytes, { subset: true });
}

/**
 * Text a font can draw: each character it lacks is replaced by its base letter when it has one
 * (with a standard font: é → e) or `?`, so no name makes drawing fail.
 */
export function drawable(font: PDFFont, text: string): string {
  const supported = new Set(font.getCharacterSet());
  let out = '';
  for (const char of text) {
    const code = char.codePointAt(0)!;
    if (supported.has(code)) {
      out += char;
      continue;
    }
    const base = char.normalize('NFKD').replace(/\p{M}/gu, '');
    out += [...base].every((c) => supported.has(c.codePointAt(0)!)) && base !== '' ? base : '?';
  }
  return out;
}

/** Splits `text` into lines no wider than `width` at `size`, breaking at spaces when it can. */
export function wrap(font: PDFFont, text: string, size: number, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    const candidate = line === '' ? word : `${line} ${word}`;
    if (font.widthOfTextAtSize(candidate, size) <= width) {
      line = candidate;
      continue;
    }
    if (line !== '') lines.push(line);
    line = word;
    while (font.widthOfTextAtSize(line, size) > width && line.length > 1) {
      let cut = line.length - 1;
      while (cut > 1 && font.widthOfTextAtSize(line.slice(0, cut), size) > width) cut--;
      lines.push(line.slice(0, cut));
      line = line.slice(cut);
    }
  }
  if (line !== '' || lines.length === 0) lines.push(line);
  return lines;
}
