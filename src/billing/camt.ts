import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { AppError } from '../errors/index.js';
import { at, list, node, text, type XmlNode } from './xml-tree.js';
import type { DebitReturn } from './pain002.js';

/** One booked credit on the operator's account, as the bank reported it. */
export interface BankCredit {
  /** The bank's own reference for the credit (AcctSvcrRef): what makes an import idempotent. */
  bankReference: string;
  /** camt.053 (statement) or camt.054 (notification). */
  message: 'camt.053' | 'camt.054';
  statementId: string | null;
  amountCents: number;
  currency: string;
  bookedOn: string | null;
  debtorName: string | null;
  /** The structured reference (CdtrRefInf) and the unstructured text, joined by spaces. */
  remittance: string;
}

export interface BankStatement {
  message: 'camt.053' | 'camt.054';
  credits: BankCredit[];
  /** Entries that are no booked credit (debits, pending, reversals): not read further. */
  skipped: number;
  /**
   * Booked debits that return a direct debit (R-transactions: return, refund, reversal),
   * each by the EndToEndId of the pain.008 debit and the reason code the bank gave.
   */
  returns: DebitReturn[];
}

const NAMESPACE =
  /xmlns(?::\w+)?\s*=\s*["']urn:iso:std:iso:20022:tech:xsd:(camt\.05[34])\.001\.\d{2}["']/;
export const CAMT_MESSAGES = ['camt.053.001.xx', 'camt.054.001.xx'];

const refuse = (reason: string): AppError =>
  AppError.invalidParams([{ name: 'statement', reason, allowed: CAMT_MESSAGES }]);

const ARRAYS = new Set(['Stmt', 'Ntfctn', 'Ntry', 'NtryDtls', 'TxDtls', 'Ustrd', 'Strd']);

/** "59.29" → 5929, exactly (no floating point); undefined when not an amount. */
function cents(amount: string | undefined): number | undefined {
  const m = /^(\d{1,13})(?:\.(\d{1,2}))?$/.exec(amount ?? '');
  if (m === null) return undefined;
  return Number(m[1]) * 100 + Number((m[2] ?? '0').padEnd(2, '0'));
}

/**
 * Reads the booked credits of an ISO 20022 bank-to-customer statement (camt.053) or
 * debit/credit notification (camt.054), any version: each transaction of a batch booking is a
 * credit of its own. A file that is not well-formed XML, of another message, or with a credit
 * the bank gave no reference or a readable amount is refused whole, naming why.
 */
export function parseCamt(xml: string): BankStatement {
  const wellFormed = XMLValidator.validate(xml);
  if (wellFormed !== true)
    throw refuse(`is not well-formed XML (line ${wellFormed.err.line}: ${wellFormed.err.msg})`);
  const kind = NAMESPACE.exec(xml)?.[1] as 'camt.053' | 'camt.054' | undefined;
  if (kind === undefined)
    throw refuse('is not an ISO 20022 camt.053 statement or camt.054 notification');
  const doc = new XMLParser({
    removeNSPrefix: true,
    ignoreAttributes: false,
    attributeNamePrefix: '@',
    parseTagValue: false,
    isArray: (name) => ARRAYS.has(name),
    processEntities: true,
  }).parse(xml) as XmlNode;
  const reports =
    kind === 'camt.053'
      ? list(at(doc, 'Document', 'BkToCstmrStmt', 'Stmt'))
      : list(at(doc, 'Document', 'BkToCstmrDbtCdtNtfctn', 'Ntfctn'));
  if (reports.length === 0)
    throw refuse(`has no ${kind === 'camt.053' ? 'statement (Stmt)' : 'notification (Ntfctn)'}`);

  const credits: BankCredit[] = [];
  const returns: DebitReturn[] = [];
  let skipped = 0;
  for (const report of reports) {
    const statementId = text(report.Id) ?? null;
    for (const [n, entry] of list(report.Ntry).entries()) {
      const where = `entry ${n + 1}${statementId === null ? '' : ` of ${statementId}`}`;
      const status = text(entry.Sts) ?? text(at(entry, 'Sts', 'Cd'));
      const reversal = text(entry.RvslInd) === 'true';
      if (text(entry.CdtDbtInd) !== 'CRDT' || status !== 'BOOK' || reversal) {
        skipped++;
        if (text(entry.CdtDbtInd) === 'DBIT' && status === 'BOOK')
          returns.push(...returnsOf(entry, where));
        continue;
      }
      const bookedOn =
        text(at(entry, 'BookgDt', 'Dt')) ??
        text(at(entry, 'BookgDt', 'DtTm'))?.slice(0, 10) ??
        null;
      const txs = list(entry.NtryDtls).flatMap((d) => list(d.TxDtls));
      const parts = txs.length === 0 ? [undefined] : txs;
      for (const [i, tx] of parts.entries()) {
        const amountNode =
          tx === undefined
            ? entry.Amt
            : (tx.Amt ??
              at(tx, 'AmtDtls', 'TxAmt', 'Amt') ??
              (parts.length === 1 ? entry.Amt : undefined));
        const amount = cents(text(amountNode));
        if (amount === undefined || amount === 0)
          throw refuse(`${where} has no amount of the form 123.45 (Amt)`);
        const currency = (node(amountNode)?.['@Ccy'] as string | undefined) ?? '';
        const entryRef = text(entry.AcctSvcrRef);
        const bankReference =
          (tx === undefined ? undefined : text(at(tx, 'Refs', 'AcctSvcrRef'))) ??
          (entryRef === undefined
            ? undefined
            : parts.length === 1
              ? entryRef
              : `${entryRef}/${i + 1}`);
        if (bankReference === undefined || bankReference === '')
          throw refuse(`${where} has no bank reference (AcctSvcrRef)`);
        const rmt = tx === undefined ? undefined : node(tx.RmtInf);
        const remittance = [
          ...list(rmt?.Strd).map((s) => text(at(s, 'CdtrRefInf', 'Ref')) ?? ''),
          ...(Array.isArray(rmt?.Ustrd) ? rmt.Ustrd : []).map((u) => text(u) ?? ''),
          ...(tx === undefined ? [text(entry.AddtlNtryInf) ?? ''] : []),
        ]
          .filter((s) => s !== '')
          .join(' ');
        const debtor =
          tx === undefined
            ? undefined
            : (text(at(tx, 'RltdPties', 'Dbtr', 'Nm')) ??
              text(at(tx, 'RltdPties', 'Dbtr', 'Pty', 'Nm')));
        credits.push({
          bankReference,
          message: kind,
          statementId,
          amountCents: amount,
          currency,
          bookedOn,
          debtorName: debtor ?? null,
          remittance,
        });
      }
    }
  }
  return { message: kind, credits, skipped, returns };
}

/** The direct debits a booked debit entry returns: its transactions with a return reason. */
function returnsOf(entry: XmlNode, where: string): DebitReturn[] {
  const found: DebitReturn[] = [];
  const txs = list(entry.NtryDtls).flatMap((d) => list(d.TxDtls));
  for (const [i, tx] of txs.entries()) {
    const reasonCode =
      text(at(tx, 'RtrInf', 'Rsn', 'Cd')) ?? text(at(tx, 'RtrInf', 'Rsn', 'Prtry'));
    if (reasonCode === undefined) continue;
    const endToEndId = text(at(tx, 'Refs', 'EndToEndId'));
    if (endToEndId === undefined || endToEndId === '' || endToEndId === 'NOTPROVIDED')
      throw refuse(`${where}, transaction ${i + 1}, returns a direct debit without its EndToEndId`);
    const reference =
      text(at(tx, 'Refs', 'AcctSvcrRef')) ?? text(entry.AcctSvcrRef) ?? `${where}/${i + 1}`;
    found.push({ endToEndId, reasonCode, reference });
  }
  return found;
}
