/** A credit or debit on the operator's account, for `camt053`. */
export interface TestEntry {
  ref: string;
  amount: string;
  currency?: string;
  debit?: boolean;
  status?: 'BOOK' | 'PDNG';
  /** A structured creditor reference (RmtInf/Strd/CdtrRefInf/Ref). */
  rf?: string;
  /** Unstructured remittance text (RmtInf/Ustrd). */
  text?: string;
  debtor?: string;
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');

/**
 * A bank-to-customer statement (camt.053.001.02, the version most European banks send) of the
 * operator's account with `entries`, each with its transaction details.
 */
export function camt053(entries: TestEntry[], id = 'STMT-2026-11-22'): string {
  return bankMessage('053', entries, id);
}

/** A debit/credit notification (camt.054.001.02) of the same entries. */
export function camt054(entries: TestEntry[], id = 'NTFCTN-2026-11-22'): string {
  return bankMessage('054', entries, id);
}

function bankMessage(kind: '053' | '054', entries: TestEntry[], id: string): string {
  const total = entries.reduce((sum, e) => sum + Number(e.amount), 0).toFixed(2);
  const ntry = entries
    .map(
      (e) => `
      <Ntry>
        <Amt Ccy="${e.currency ?? 'EUR'}">${e.amount}</Amt>
        <CdtDbtInd>${e.debit === true ? 'DBIT' : 'CRDT'}</CdtDbtInd>
        <Sts>${e.status ?? 'BOOK'}</Sts>
        <BookgDt><Dt>2026-11-22</Dt></BookgDt>
        <ValDt><Dt>2026-11-22</Dt></ValDt>
        <AcctSvcrRef>${esc(e.ref)}</AcctSvcrRef>
        <BkTxCd><Domn><Cd>PMNT</Cd><Fmly><Cd>RCDT</Cd><SubFmlyCd>ESCT</SubFmlyCd></Fmly></Domn></BkTxCd>
        <NtryDtls>
          <TxDtls>
            <Refs><AcctSvcrRef>${esc(e.ref)}</AcctSvcrRef><EndToEndId>NOTPROVIDED</EndToEndId></Refs>
            <AmtDtls><TxAmt><Amt Ccy="${e.currency ?? 'EUR'}">${e.amount}</Amt></TxAmt></AmtDtls>
            <RltdPties><Dbtr><Nm>${esc(e.debtor ?? 'A Customer')}</Nm></Dbtr></RltdPties>${
              e.rf === undefined && e.text === undefined
                ? ''
                : `
            <RmtInf>${e.text === undefined ? '' : `<Ustrd>${esc(e.text)}</Ustrd>`}${
              e.rf === undefined
                ? ''
                : `<Strd><CdtrRefInf><Tp><CdOrPrtry><Cd>SCOR</Cd></CdOrPrtry><Issr>ISO</Issr></Tp><Ref>${e.rf}</Ref></CdtrRefInf></Strd>`
            }</RmtInf>`
            }
          </TxDtls>
        </NtryDtls>
      </Ntry>`,
    )
    .join('');
  const [root, report] =
    kind === '053' ? ['BkToCstmrStmt', 'Stmt'] : ['BkToCstmrDbtCdtNtfctn', 'Ntfctn'];
  const balance =
    kind === '053'
      ? `
      <Bal><Tp><CdOrPrtry><Cd>CLBD</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">${total}</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2026-11-22</Dt></Dt></Bal>`
      : '';
  return `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.${kind}.001.02" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
  <${root}>
    <GrpHdr><MsgId>MSG-${id}</MsgId><CreDtTm>2026-11-22T18:00:00</CreDtTm></GrpHdr>
    <${report}>
      <Id>${id}</Id>
      <ElctrncSeqNb>1</ElctrncSeqNb>
      <CreDtTm>2026-11-22T18:00:00</CreDtTm>
      <Acct><Id><IBAN>NL91ABNA0417164300</IBAN></Id><Ccy>EUR</Ccy></Acct>${balance}${ntry}
    </${report}>
  </${root}>
</Document>
`;
}
