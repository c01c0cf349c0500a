import {
  decodePDFRawStream,
  degrees,
  PDFArray,
  PDFDocument,
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

// WinAnsi bytes that differ from Latin-1 and that the stamp uses.
const WIN_ANSI: Record<number, string> = { 0x96: '–', 0x97: '—', 0x95: '•' };

function showText(operand: string): string {
  if (operand.startsWith('<')) {
    const hex = operand.slice(1, -1).replace(/\s/g, '');
    let out = '';
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
 * string a `Tj` operator draws, one per line. Enough for the standard fonts pdf-lib writes.
 */
export async function pageTexts(bytes: Uint8Array): Promise<string[]> {
  const doc = await PDFDocument.load(bytes);
  return doc.getPages().map((page) =>
    pageStreams(page)
      .map((stream) => Buffer.from(decodePDFRawStream(stream).decode()).toString('latin1'))
      .flatMap((content) => [...content.matchAll(/(<[0-9A-Fa-f\s]*>|\((?:\\.|[^\\)])*\))\s*Tj/g)])
      .map((m) => showText(m[1]!))
      .join('\n'),
  );
}
