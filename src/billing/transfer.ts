import QRCode from 'qrcode';
import { creditorReference, findCreditorReference, friendlyIban } from '../lib/bank-account.js';
import type { InvoiceRow } from './repo.js';

/** The ISO 11649 structured creditor reference a transfer paying invoice `number` carries. */
export function invoiceReference(number: number): string {
  return creditorReference(String(number));
}

/** The invoice number named by an RF reference in `text`, when one with right check digits is. */
export function invoiceNumberIn(text: string): number | undefined {
  const body = findCreditorReference(text);
  return body !== undefined && /^\d{1,15}$/.test(body) ? Number(body) : undefined;
}

export interface TransferDetails {
  beneficiary: string;
  iban: string;
  bic: string | null;
  reference: string;
  amountCents: number;
  /** The EPC QR code's text (EPC069-12 version 002, UTF-8, SEPA credit transfer). */
  epcQr: string;
}

/** EPC069-12: the beneficiary's name is at most 70 characters. */
const EPC_NAME_MAX = 70;
/** EPC069-12: the amount is from EUR0.01 to EUR999999999.99. */
const EPC_AMOUNT_MAX = 99_999_999_999;

/**
 * How to pay an open invoice by SEPA credit transfer: the seller's account as it was at issue,
 * the invoice's RF reference and the amount due. None for an invoice paid, void or written off,
 * with nothing due, or issued while the seller had no IBAN.
 */
export function transferDetails(invoice: InvoiceRow): TransferDetails | null {
  const iban = invoice.seller?.iban ?? null;
  if (invoice.seller === null || iban === null || invoice.status !== 'open') return null;
  const amount = invoice.amountDueCents;
  if (amount <= 0 || amount > EPC_AMOUNT_MAX) return null;
  const beneficiary = [...invoice.seller.name].slice(0, EPC_NAME_MAX).join('');
  const bic = invoice.seller.bic ?? null;
  const reference = invoiceReference(invoice.number);
  const epcQr = [
    'BCD',
    '002',
    '1',
    'SCT',
    bic ?? '',
    beneficiary,
    iban,
    `EUR${(amount / 100).toFixed(2)}`,
    '',
    reference,
  ].join('\n');
  return { beneficiary, iban, bic, reference, amountCents: amount, epcQr };
}

/** The EPC QR code as a PNG (error correction level M, as EPC069-12 requires). */
export function epcQrPng(text: string): Promise<Buffer> {
  return QRCode.toBuffer(text, { errorCorrectionLevel: 'M', margin: 4, scale: 8 });
}

/** The EPC QR code as an SVG element for HTML pages. */
export function epcQrSvg(text: string): Promise<string> {
  return QRCode.toString(text, { type: 'svg', errorCorrectionLevel: 'M', margin: 4, width: 200 });
}

export function publicTransfer(t: TransferDetails | null) {
  return t === null
    ? null
    : {
        beneficiary: t.beneficiary,
        iban: t.iban,
        iban_display: friendlyIban(t.iban),
        bic: t.bic,
        reference: t.reference,
        amount_cents: t.amountCents,
        epc_qr: t.epcQr,
      };
}
