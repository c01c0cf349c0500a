import { PDFDocument, rgb, type PDFFont, type PDFPage } from 'pdf-lib';
import { drawable, embedTextFont, wrap } from '../formats/pdf-text.js';

/** A report as headed sections of text lines, laid out on A4 pages. */
export interface ReportDocument {
  title: string;
  /** Lines under the title (who, when, period). */
  preface: string[];
  sections: { heading: string; lines: string[] }[];
  /** On every page, with its number: identifies the copy. */
  footer: string;
}

const A4: [number, number] = [595.28, 841.89];
const MARGIN = 50;
const BODY = 9;
const HEADING = 12;
const TITLE = 16;

/** Renders the report in DejaVu Sans (every EU language's letters). */
export async function renderReport(report: ReportDocument): Promise<Uint8Array> {
  const doc = await PDFDocument.create({ updateMetadata: false });
  doc.setTitle(report.title);
  const regular = await embedTextFont(doc);
  const bold = await embedTextFont(doc, 'bold');
  const width = A4[0] - 2 * MARGIN;
  let page: PDFPage = doc.addPage(A4);
  let y = A4[1] - MARGIN;
  const write = (text: string, font: PDFFont, size: number, indent = 0, gapAfter = 0) => {
    for (const line of wrap(font, drawable(font, text), size, width - indent)) {
      if (y - size < MARGIN + 20) {
        page = doc.addPage(A4);
        y = A4[1] - MARGIN;
      }
      page.drawText(line, { x: MARGIN + indent, y: y - size, size, font, color: rgb(0, 0, 0) });
      y -= size * 1.35;
    }
    y -= gapAfter;
  };
  write(report.title, bold, TITLE, 0, 6);
  for (const line of report.preface) write(line, regular, BODY);
  y -= 8;
  for (const section of report.sections) {
    if (y - HEADING * 3 < MARGIN + 20) {
      page = doc.addPage(A4);
      y = A4[1] - MARGIN;
    }
    write(section.heading, bold, HEADING, 0, 3);
    if (section.lines.length === 0) write('None.', regular, BODY, 10);
    for (const line of section.lines) write(line, regular, BODY, 10, 2);
    y -= 8;
  }
  const pages = doc.getPages();
  pages.forEach((p, i) => {
    const footer = drawable(regular, `${report.footer} · page ${i + 1} of ${pages.length}`);
    p.drawText(footer, {
      x: MARGIN,
      y: MARGIN / 2,
      size: 7,
      font: regular,
      color: rgb(0.35, 0.35, 0.35),
    });
  });
  return doc.save();
}
