import transliterate from '@sindresorhus/transliterate';
import type { MandateScheme, SequenceType } from './sepa-repo.js';

/** One direct debit of a pain.008 file. */
export interface DirectDebit {
  endToEndId: string;
  amountCents: number;
  mandateReference: string;
  /** ISO date the mandate was signed. */
  signedOn: string;
  debtorName: string;
  debtorIban: string;
  /** What the debtor's statement shows: the invoice's RF reference. */
  creditorReference: string;
}

export interface PaymentGroup {
  id: string;
  scheme: MandateScheme;
  sequenceType: SequenceType;
  collectionDate: string;
  debits: DirectDebit[];
}

export interface Creditor {
  name: string;
  iban: string;
  bic: string | null;
  creditorId: string;
}

const escape = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/**
 * SEPA names allow the Latin character set of the EPC's rules (EPC217-08): letters without
 * diacritics, digits and / - ? : ( ) . , ' + and space. Other scripts (Greek, Cyrillic) and
 * accented letters are transliterated (ü → ue, ß → ss, Π → P), anything else dropped, and the
 * name cut to `max` characters. Empty when nothing is left (a name in CJK script, symbols).
 */
export function sepaText(s: string, max: number): string {
  return transliterate(s)
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^A-Za-z0-9/\-?:().,'+ ]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, max);
}

const amount = (cents: number): string => (cents / 100).toFixed(2);
const sum = (debits: DirectDebit[]): number => debits.reduce((s, d) => s + d.amountCents, 0);

/**
 * A Customer Direct Debit Initiation (ISO 20022 pain.008.001.02, as the SEPA Core and B2B
 * implementation guidelines use it): one payment information block per scheme, sequence type
 * and collection date.
 */
export function pain008(input: {
  messageId: string;
  createdAt: Date;
  creditor: Creditor;
  groups: PaymentGroup[];
}): string {
  const { creditor } = input;
  const all = input.groups.flatMap((g) => g.debits);
  const name = escape(sepaText(creditor.name, 70));
  const agent =
    creditor.bic === null
      ? '<FinInstnId><Othr><Id>NOTPROVIDED</Id></Othr></FinInstnId>'
      : `<FinInstnId><BIC>${creditor.bic}</BIC></FinInstnId>`;
  const tx = (d: DirectDebit) => `
      <DrctDbtTxInf>
        <PmtId><EndToEndId>${escape(d.endToEndId)}</EndToEndId></PmtId>
        <InstdAmt Ccy="EUR">${amount(d.amountCents)}</InstdAmt>
        <DrctDbtTx>
          <MndtRltdInf><MndtId>${escape(d.mandateReference)}</MndtId><DtOfSgntr>${d.signedOn}</DtOfSgntr></MndtRltdInf>
        </DrctDbtTx>
        <DbtrAgt><FinInstnId><Othr><Id>NOTPROVIDED</Id></Othr></FinInstnId></DbtrAgt>
        <Dbtr><Nm>${escape(sepaText(d.debtorName, 70))}</Nm></Dbtr>
        <DbtrAcct><Id><IBAN>${d.debtorIban}</IBAN></Id></DbtrAcct>
        <RmtInf>
          <Strd><CdtrRefInf><Tp><CdOrPrtry><Cd>SCOR</Cd></CdOrPrtry><Issr>ISO</Issr></Tp><Ref>${escape(d.creditorReference)}</Ref></CdtrRefInf></Strd>
        </RmtInf>
      </DrctDbtTxInf>`;
  const group = (g: PaymentGroup) => `
    <PmtInf>
      <PmtInfId>${escape(g.id)}</PmtInfId>
      <PmtMtd>DD</PmtMtd>
      <BtchBookg>true</BtchBookg>
      <NbOfTxs>${g.debits.length}</NbOfTxs>
      <CtrlSum>${amount(sum(g.debits))}</CtrlSum>
      <PmtTpInf>
        <SvcLvl><Cd>SEPA</Cd></SvcLvl>
        <LclInstrm><Cd>${g.scheme === 'core' ? 'CORE' : 'B2B'}</Cd></LclInstrm>
        <SeqTp>${g.sequenceType}</SeqTp>
      </PmtTpInf>
      <ReqdColltnDt>${g.collectionDate}</ReqdColltnDt>
      <Cdtr><Nm>${name}</Nm></Cdtr>
      <CdtrAcct><Id><IBAN>${creditor.iban}</IBAN></Id></CdtrAcct>
      <CdtrAgt>${agent}</CdtrAgt>
      <ChrgBr>SLEV</ChrgBr>
      <CdtrSchmeId>
        <Id><PrvtId><Othr><Id>${creditor.creditorId}</Id><SchmeNm><Prtry>SEPA</Prtry></SchmeNm></Othr></PrvtId></Id>
      </CdtrSchmeId>${g.debits.map(tx).join('')}
    </PmtInf>`;
  return `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.008.001.02" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
  <CstmrDrctDbtInitn>
    <GrpHdr>
      <MsgId>${escape(input.messageId)}</MsgId>
      <CreDtTm>${input.createdAt.toISOString().slice(0, 19)}</CreDtTm>
      <NbOfTxs>${all.length}</NbOfTxs>
      <CtrlSum>${amount(sum(all))}</CtrlSum>
      <InitgPty><Nm>${name}</Nm></InitgPty>
    </GrpHdr>${input.groups.map(group).join('')}
  </CstmrDrctDbtInitn>
</Document>
`;
}
