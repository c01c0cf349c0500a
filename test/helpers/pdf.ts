import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  decodePDFRawStream,
  degrees,
  PDFArray,
  PDFDict,
  PDFDocument,
  PDFName,
  PDFRawStream,
  StandardFonts,
  type PDFPage,
} from 'pdf-lib';

/** A small PDF to publish: `pages` pages saying "Original page N"; the second is rotated 90°. */
export async function samplePdf(pages = 3, marker = 'Original'): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.TimesRoman);
  for (let i = 1; i <= pages; i++) {
    const page = doc.addPage([595, 842]);
    if (i === 2) page.setRotation(degrees(90));
    page.drawText(`${marker} page ${i}`, { x: 72, y: 700, size: 18, font });
  }
  return doc.save();
}

// WinAnsi bytes that differ from Latin-1 and that the standard fonts use.
const WIN_ANSI: Record<number, string> = { 0x96: '–', 0x97: '—', 0x95: '•', 0x80: '€' };

/** Glyph code → text, from an embedded font's ToUnicode map (`bfchar` pairs, UTF-16BE). */
type ToUnicode = Map<string, string>;

function toUnicode(page: PDFPage, fontName: string): ToUnicode | undefined {
  const fonts = page.node.Resources()?.lookupMaybe(PDFName.of('Font'), PDFDict);
  const font = fonts?.lookupMaybe(PDFName.of(fontName), PDFDict);
  const stream =
    font === undefined ? undefined : font.context.lookup(font.get(PDFName.of('ToUnicode')));
  if (!(stream instanceof PDFRawStream)) return undefined;
  const cmap = Buffer.from(decodePDFRawStream(stream).decode()).toString('latin1');
  const map: ToUnicode = new Map();
  for (const block of cmap.matchAll(/beginbfchar([\s\S]*?)endbfchar/g))
    for (const [, code, text] of block[1]!.matchAll(/<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>/g))
      map.set(code!.toLowerCase(), Buffer.from(text!, 'hex').swap16().toString('utf16le'));
  return map;
}

function showText(operand: string, glyphs: ToUnicode | undefined): string {
  if (operand.startsWith('<')) {
    const hex = operand.slice(1, -1).replace(/\s/g, '').toLowerCase();
    let out = '';
    if (glyphs !== undefined) {
      for (let i = 0; i < hex.length; i += 4) out += glyphs.get(hex.slice(i, i + 4)) ?? '\ufffd';
      return out;
    }
    for (let i = 0; i < hex.length; i += 2) {
      const code = parseInt(hex.slice(i, i + 2), 16);
      out += WIN_ANSI[code] ?? String.fromCharCode(code);
    }
    return out;
  }
  return operand.slice(1, -1).replace(/\\([()\\])/g, '$1');
}

function pageStreams(page: PDFPage): PDFRawStream[] {
  const contents = page.node.Contents();
  if (contents === undefined) return [];
  if (contents instanceof PDFArray) {
    return contents
      .asArray()
      .map((ref) => page.doc.context.lookup(ref))
      .filter((s): s is PDFRawStream => s instanceof PDFRawStream);
  }
  return contents instanceof PDFRawStream ? [contents] : [];
}

/**
 * The text shown on each page, read back from its content streams (decompressed): every
 * string a `Tj` operator draws, one per line, decoded through the font the `Tf` before it
 * selects (an embedded font's ToUnicode map, or WinAnsi for a standard font).
 */
export async function pageTexts(bytes: Uint8Array): Promise<string[]> {
  const doc = await PDFDocument.load(bytes);
  return doc.getPages().map((page) => {
    const lines: string[] = [];
    let glyphs: ToUnicode | undefined;
    for (const stream of pageStreams(page)) {
      const content = Buffer.from(decodePDFRawStream(stream).decode()).toString('latin1');
      for (const m of content.matchAll(
        /\/([^\s/]+)\s+[\d.]+\s+Tf|(<[0-9A-Fa-f\s]*>|\((?:\\.|[^\\)])*\))\s*Tj/g,
      )) {
        if (m[1] !== undefined) glyphs = toUnicode(page, m[1]);
        else lines.push(showText(m[2]!, glyphs));
      }
    }
    return lines.join('\n');
  });
}

/** The text of `pdf` as poppler's `pdftotext` reads it (an independent reader, UTF-8). */
export async function pdftotext(pdf: Uint8Array): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'pdftotext-'));
  try {
    await writeFile(join(dir, 'doc.pdf'), pdf);
    const { stdout } = await promisify(execFile)('pdftotext', [
      '-enc',
      'UTF-8',
      join(dir, 'doc.pdf'),
      '-',
    ]);
    return stdout;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
