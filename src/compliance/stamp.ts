import { degrees, PDFDocument, rgb, type PDFFont, type PDFPage } from 'pdf-lib';
import { drawable, embedTextFont, wrap } from '../formats/pdf-text.js';

const MARGIN = 18;
const MAX_SIZE = 8;
const MIN_SIZE = 5;

export class UnusablePdfError extends Error {}

/** Opens a PDF as pdf-lib reads it; encrypted or unreadable files are refused with the reason. */
export async function openPdf(bytes: Uint8Array): Promise<PDFDocument> {
  try {
    const doc = await PDFDocument.load(bytes, { updateMetadata: false });
    // A file without a page tree loads, and fails on its first page.
    doc.getPages();
    return doc;
  } catch (error) {
    const message = (error as Error).message;
    throw new UnusablePdfError(
      /encrypt/i.test(message)
        ? 'the PDF is encrypted; add an unencrypted copy (downloads are stamped and cannot be re-encrypted)'
        : `the file is not a readable PDF (${message})`,
    );
  }
}

/**
 * Returns a copy of the PDF with `text` drawn along the visual bottom edge of every page (its
 * crop box, whatever the page's rotation), on a white band so it stays legible, and in the
 * document's subject. The original bytes are not changed.
 */
export async function stampPdf(original: Uint8Array, text: string): Promise<Uint8Array> {
  const doc = await openPdf(original);
  const font = await embedTextFont(doc);
  const line = drawable(font, text);
  for (const page of doc.getPages()) stampPage(page, font, line);
  doc.setSubject(line);
  return doc.save();
}

function stampPage(page: PDFPage, font: PDFFont, text: string): void {
  const box = page.getCropBox();
  const rotation = ((page.getRotation().angle % 360) + 360) % 360;
  const angle = rotation === 90 || rotation === 180 || rotation === 270 ? rotation : 0;
  const sideways = angle === 90 || angle === 270;
  const visualWidth = (sideways ? box.height : box.width) - 2 * MARGIN;
  const size = Math.max(
    MIN_SIZE,
    Math.min(MAX_SIZE, visualWidth / font.widthOfTextAtSize(text, 1)),
  );
  const lines = wrap(font, text, size, visualWidth);
  const leading = size * 1.25;
  // A viewer turns the page by `angle` clockwise; the stamp is drawn turned the same way
  // counter-clockwise, from the corner that ends up bottom left, so it reads left to right
  // along the visual bottom edge.
  const corner: Record<number, [number, number]> = {
    0: [box.x + MARGIN, box.y + MARGIN],
    90: [box.x + box.width - MARGIN, box.y + MARGIN],
    180: [box.x + box.width - MARGIN, box.y + box.height - MARGIN],
    270: [box.x + MARGIN, box.y + box.height - MARGIN],
  };
  const [ox, oy] = corner[angle]!;
  const rad = (angle * Math.PI) / 180;
  const right = [Math.round(Math.cos(rad)), Math.round(Math.sin(rad))] as const;
  const up = [-right[1], right[0]] as const;
  const point = (along: number, above: number) => ({
    x: ox + right[0] * along + up[0] * above,
    y: oy + right[1] * along + up[1] * above,
  });
  const widest = Math.max(...lines.map((l) => font.widthOfTextAtSize(l, size)));
  page.drawRectangle({
    ...point(-3, -size * 0.35),
    width: widest + 6,
    height: lines.length * leading + size * 0.1,
    color: rgb(1, 1, 1),
    opacity: 0.85,
    rotate: degrees(angle),
  });
  lines.forEach((content, i) => {
    page.drawText(content, {
      ...point(0, (lines.length - 1 - i) * leading),
      size,
      font,
      color: rgb(0.55, 0, 0),
      rotate: degrees(angle),
    });
  });
}
