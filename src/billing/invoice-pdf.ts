import { PDFDocument, rgb, type PDFFont, type PDFPage } from 'pdf-lib';
import { drawable, embedTextFont, wrap } from '../formats/pdf-text.js';
import type { InvoiceRow } from './repo.js';
import { epcQrPng, invoiceReference, transferDetails } from './transfer.js';
import { countryName, formatRate, type Party, type Seller } from './vat.js';

const A4: [number, number] = [595.28, 841.89];
const MARGIN = 50;
const SIZE = 9;
const GREY = rgb(0.35, 0.35, 0.35);

/** €1,234.50; a negative amount with a leading hyphen-minus, as accounting software reads it. */
export function pdfMoney(cents: number): string {
  const euros = (Math.abs(cents) / 100).toLocaleString('en-US', {
    minimumFractionDigits: 2,
    maximumFractionDigits: 2,
  });
  return `${cents < 0 ? '-' : ''}€${euros}`;
}

const STATUS: Record<InvoiceRow['status'], string> = {
  open: 'Open',
  paid: 'Paid',
  void: 'Void',
  uncollectible: 'Uncollectible',
};

const day = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

function partyLines(p: Seller | Party): string[] {
  const country = p.country === null ? [] : [countryName(p.country) ?? p.country];
  return [
    ...p.address,
    ...country,
    ...(p.vatNumber === null ? [] : [`VAT number: ${p.vatNumber}`]),
  ];
}

/** Nothing of the body is drawn below this (the footer is at MARGIN / 2). */
const BODY_BOTTOM = MARGIN;
/** A line of the table leaves this much for the totals and the VAT note below it. */
const TABLE_BOTTOM = MARGIN + 160;

/** The EPC QR code's printed size: 30 mm, above the 2 cm EPC069-12 asks as a minimum. */
const QR_SIZE = 85;

/**
 * The invoice as a one-page A4 PDF (more pages for many lines or long addresses), in DejaVu Sans
 * so names and addresses print as written in any EU language: seller and buyer as they were at
 * issue, number and dates, lines, VAT and total, and for an open invoice the transfer details
 * with their EPC QR code. Addresses are accepted as typed, and one character may draw as many
 * (U+FDFA draws 18): so the layout, not a length limit, keeps every line on paper. Blocks wrap
 * by drawn width and go on over pages, the table's header heads every page of the table, and
 * nothing is drawn over the footer.
 */
export async function renderInvoicePdf(invoice: InvoiceRow): Promise<Uint8Array> {
  const doc = await PDFDocument.create({ updateMetadata: false });
  doc.setTitle(`Invoice ${invoice.number}`);
  doc.setCreationDate(new Date(invoice.createdAt));
  const regular = await embedTextFont(doc);
  const bold = await embedTextFont(doc, 'bold');
  const right = A4[0] - MARGIN;
  let page: PDFPage = doc.addPage(A4);
  let y = A4[1] - MARGIN;

  const text = (
    s: string,
    x: number,
    at: number,
    font = regular,
    size = SIZE,
    color = rgb(0, 0, 0),
  ) => page.drawText(drawable(font, s), { x, y: at, size, font, color });
  const textRight = (s: string, x: number, at: number, font = regular, size = SIZE) => {
    const shown = drawable(font, s);
    page.drawText(shown, { x: x - font.widthOfTextAtSize(shown, size), y: at, size, font });
  };
  /** Lines at `top`, wrapped by their drawn width, going on at the top of a new page. */
  const block = (lines: string[], x: number, top: number, width: number, font: PDFFont) => {
    let at = top;
    for (const line of lines)
      for (const part of wrap(font, drawable(font, line), SIZE, width)) {
        if (at < BODY_BOTTOM) {
          page = doc.addPage(A4);
          at = A4[1] - MARGIN;
        }
        text(part, x, at, font);
        at -= SIZE * 1.4;
      }
    return at;
  };

  const seller = invoice.seller;
  text('Invoice', MARGIN, y - 20, bold, 20);
  if (seller !== null) text(seller.name, A4[0] / 2 + 40, y - 8, bold);
  const sellerBottom = block(
    seller === null ? [] : partyLines(seller),
    A4[0] / 2 + 40,
    y - 8 - SIZE * 1.4,
    right - (A4[0] / 2 + 40),
    regular,
  );
  y = Math.min(y - 40, sellerBottom) - 20;

  const facts: [string, string][] = [
    ['Invoice number', String(invoice.number)],
    ['Reference', invoiceReference(invoice.number)],
    ['Issue date', day(invoice.createdAt)],
    ['Due date', day(invoice.dueAt)],
    ['Service period', `${day(invoice.periodStart)} to ${day(invoice.periodEnd)}`],
    ['Status', invoice.paidAt === null ? STATUS[invoice.status] : `Paid on ${day(invoice.paidAt)}`],
  ];
  // A seller block that went on over a page leaves room for the facts, or they start a page.
  if (y - facts.length * SIZE * 1.5 < BODY_BOTTOM) {
    page = doc.addPage(A4);
    y = A4[1] - MARGIN;
  }
  text('Bill to', MARGIN, y, bold);
  const buyer = invoice.buyer;
  let factY = y;
  for (const [label, value] of facts) {
    text(label, A4[0] / 2 + 40, factY, bold);
    text(value, A4[0] / 2 + 140, factY);
    factY -= SIZE * 1.5;
  }
  // The facts first: a long buyer address goes on over the following pages.
  const factsPage = page;
  const buyerBottom = block(
    buyer === null
      ? [`Account ${invoice.accountId}`, '(no billing details were given)']
      : [buyer.name, ...partyLines(buyer)],
    MARGIN,
    y - SIZE * 1.5,
    A4[0] / 2 - MARGIN,
    regular,
  );
  y = (page === factsPage ? Math.min(buyerBottom, factY) : buyerBottom) - 24;

  const columns = { description: MARGIN, period: 330, amount: right };
  const rule = (at: number) =>
    page.drawLine({
      start: { x: MARGIN, y: at },
      end: { x: right, y: at },
      thickness: 0.5,
      color: GREY,
    });
  /** The table's header at the top of the table, and again at the top of every new page. */
  const tableHeader = () => {
    text('Description', columns.description, y, bold);
    text('Period', columns.period, y, bold);
    textRight('Amount', columns.amount, y, bold);
    rule(y - 5);
    y -= 20;
  };
  const newTablePage = () => {
    page = doc.addPage(A4);
    y = A4[1] - MARGIN;
    tableHeader();
  };
  // The header with at least one line and the totals below it, or on the next page.
  if (y - 20 < TABLE_BOTTOM) {
    page = doc.addPage(A4);
    y = A4[1] - MARGIN;
  }
  tableHeader();
  for (const line of invoice.lines) {
    const parts = wrap(regular, drawable(regular, line.description), SIZE, 270);
    if (y - parts.length * SIZE * 1.4 < TABLE_BOTTOM) newTablePage();
    text(`${day(line.periodStart)} to ${day(line.periodEnd)}`, columns.period, y);
    textRight(pdfMoney(line.amountCents), columns.amount, y);
    for (const part of parts) {
      text(part, columns.description, y);
      y -= SIZE * 1.4;
    }
    y -= 4;
  }
  rule(y + 6);
  y -= 10;

  const vatLabel =
    invoice.vat.treatment === 'standard'
      ? `VAT ${formatRate(invoice.vat.rateBp)}${invoice.vat.country === null ? '' : ` (${countryName(invoice.vat.country) ?? invoice.vat.country})`}`
      : invoice.vat.treatment === 'reverse_charge'
        ? 'VAT (reverse charge)'
        : 'VAT';
  const totals: [string, number, PDFFont][] = [
    ['Subtotal (without VAT)', invoice.subtotalCents, regular],
    [vatLabel, invoice.vatCents, regular],
    ['Total', invoice.totalCents, bold],
    ...(invoice.balanceAppliedCents === 0
      ? []
      : ([['Credit from the balance', -invoice.balanceAppliedCents, regular]] as [
          string,
          number,
          PDFFont,
        ][])),
    ['Amount due', invoice.amountDueCents, bold],
  ];
  for (const [label, cents, font] of totals) {
    text(label, 330, y, font);
    textRight(pdfMoney(cents), columns.amount, y, font);
    y -= SIZE * 1.6;
  }
  y -= 14;
  const note =
    invoice.vat.note ?? 'No VAT was charged on this invoice (issued before VAT was recorded).';
  y = block([note, 'All amounts in euro (EUR).'], MARGIN, y, right - MARGIN, regular);

  const transfer = transferDetails(invoice);
  if (transfer !== null) {
    if (y - QR_SIZE - 30 < MARGIN) {
      page = doc.addPage(A4);
      y = A4[1] - MARGIN;
    }
    y -= 16;
    text('Pay by bank transfer (SEPA)', MARGIN, y, bold);
    const rows: [string, string][] = [
      ['Beneficiary', transfer.beneficiary],
      ['IBAN', transfer.iban.replace(/(.{4})(?=.)/g, '$1 ')],
      ...(transfer.bic === null ? [] : ([['BIC', transfer.bic]] as [string, string][])),
      ['Amount', pdfMoney(transfer.amountCents)],
      ['Reference', transfer.reference],
    ];
    let rowY = y - SIZE * 1.8;
    for (const [label, value] of rows) {
      text(label, MARGIN, rowY, bold);
      text(value, MARGIN + 70, rowY);
      rowY -= SIZE * 1.5;
    }
    text(
      'Scan the code with a banking app to fill in the transfer.',
      MARGIN,
      rowY - 4,
      regular,
      8,
      GREY,
    );
    const qr = await doc.embedPng(await epcQrPng(transfer.epcQr));
    page.drawImage(qr, {
      x: right - QR_SIZE,
      y: y - QR_SIZE + SIZE,
      width: QR_SIZE,
      height: QR_SIZE,
    });
    y = Math.min(rowY - 4, y - QR_SIZE);
  }

  const footer = seller === null ? '' : seller.name;
  const pages = doc.getPages();
  pages.forEach((p, i) => {
    const line = drawable(
      regular,
      `${footer}${footer === '' ? '' : ' · '}Invoice ${invoice.number} · page ${i + 1} of ${pages.length}`,
    );
    p.drawText(line, { x: MARGIN, y: MARGIN / 2, size: 7, font: regular, color: GREY });
  });
  return doc.save();
}
