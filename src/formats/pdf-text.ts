import type { PDFFont } from 'pdf-lib';

/**
 * Text the standard PDF fonts can draw (WinAnsi): each character the font lacks is replaced by
 * its base letter when it has one (é → e, Ł stays ? as it has no decomposition) or `?`, so a
 * recipient's name never makes stamping fail.
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
