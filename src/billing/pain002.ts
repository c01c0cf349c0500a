import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { AppError } from '../errors/index.js';
import { at, list, node, text, type XmlNode } from './xml-tree.js';

/** A direct debit the bank rejected or returned, with the ISO 20022 reason code. */
export interface DebitReturn {
  /** The EndToEndId the pain.008 gave the debit. */
  endToEndId: string;
  reasonCode: string;
  /** The report's or entry's own reference, for the audit log. */
  reference: string;
}

export interface StatusReport {
  /** The pain.008 message the report is about. */
  originalMessageId: string | null;
  /** The whole file was rejected: every debit of it. */
  groupRejected: { reasonCode: string } | null;
  rejections: DebitReturn[];
}

const NAMESPACE =
  /xmlns(?::\w+)?\s*=\s*["']urn:iso:std:iso:20022:tech:xsd:pain\.002\.001\.\d{2}["']/;

const refuse = (reason: string): AppError =>
  AppError.invalidParams([{ name: 'report', reason, allowed: ['pain.002.001.xx'] }]);

const reasonOf = (n: unknown): string | undefined =>
  list(at(n, 'StsRsnInf'))
    .map((r) => text(at(r, 'Rsn', 'Cd')) ?? text(at(r, 'Rsn', 'Prtry')))
    .find((c) => c !== undefined);

/**
 * Reads a Customer Payment Status Report (pain.002, any version) about a pain.008 file: the
 * debits rejected (RJCT), each by its original EndToEndId with its reason code, and whether
 * the whole file was. Accepted debits are not listed. A file that is not well-formed XML or
 * not a pain.002, or a rejection without an EndToEndId or reason code, is refused naming why.
 */
export function parsePain002(xml: string): StatusReport {
  const wellFormed = XMLValidator.validate(xml);
  if (wellFormed !== true)
    throw refuse(`is not well-formed XML (line ${wellFormed.err.line}: ${wellFormed.err.msg})`);
  if (!NAMESPACE.test(xml)) throw refuse('is not an ISO 20022 pain.002 payment status report');
  const doc = new XMLParser({
    removeNSPrefix: true,
    ignoreAttributes: true,
    parseTagValue: false,
    isArray: (name) => ['OrgnlPmtInfAndSts', 'TxInfAndSts', 'StsRsnInf'].includes(name),
  }).parse(xml) as XmlNode;
  const report = node(at(doc, 'Document', 'CstmrPmtStsRpt'));
  if (report === undefined) throw refuse('has no status report (CstmrPmtStsRpt)');
  const group = node(report.OrgnlGrpInfAndSts);
  const originalMessageId = text(group?.OrgnlMsgId) ?? null;
  const reference = text(at(report, 'GrpHdr', 'MsgId')) ?? originalMessageId ?? 'pain.002';
  let groupRejected: StatusReport['groupRejected'] = null;
  if (text(group?.GrpSts) === 'RJCT') {
    if (originalMessageId === null) throw refuse('rejects a file without naming it (OrgnlMsgId)');
    groupRejected = { reasonCode: reasonOf(group) ?? 'NARR' };
  }
  const rejections: DebitReturn[] = [];
  for (const info of list(report.OrgnlPmtInfAndSts)) {
    const infoRejected = text(info.PmtInfSts) === 'RJCT';
    for (const [n, tx] of list(info.TxInfAndSts).entries()) {
      if (text(tx.TxSts) !== 'RJCT' && !(infoRejected && text(tx.TxSts) === undefined)) continue;
      const endToEndId = text(tx.OrgnlEndToEndId);
      if (endToEndId === undefined || endToEndId === '')
        throw refuse(`rejected transaction ${n + 1} has no OrgnlEndToEndId`);
      const reasonCode = reasonOf(tx) ?? reasonOf(info);
      if (reasonCode === undefined)
        throw refuse(`rejected transaction ${endToEndId} has no reason code (StsRsnInf/Rsn/Cd)`);
      rejections.push({ endToEndId, reasonCode, reference });
    }
  }
  return { originalMessageId, groupRejected, rejections };
}
