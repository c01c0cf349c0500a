// SEPA Direct Debit end to end: a mandate given through the API, the pain.008 batch (valid
// against the ISO 20022 schema by xmllint), no second collection of an invoice, FRST then RCUR,
// returns by camt.054 and rejections by pain.002 reopening invoices and starting dunning.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/config/index.js';
import { isTarget2Day, target2OnOrAfter } from '../../src/lib/target2.js';
import { renderNotice } from '../../src/notices/index.js';
import { accountOnPlan } from '../helpers/accounts.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { freshPostgres, postgresAvailable } from '../helpers/db.js';
import { DUTCH_SELLER } from '../helpers/seller.js';
import { SEPA, xmllint } from './sepa-fixtures.js';

const DEBTOR_IBAN = 'DE89 3704 0044 0532 0130 00';

/** The direct debits of a pain.008, as (EndToEndId → fields) read with plain regexes. */
function debitsOf(xml: string) {
  const out = new Map<
    string,
    { amount: string; mandate: string; seq: string; date: string; scheme: string }
  >();
  for (const pmt of xml.split('<PmtInf>').slice(1)) {
    const seq = /<SeqTp>(\w+)<\/SeqTp>/.exec(pmt)![1]!;
    const date = /<ReqdColltnDt>([\d-]+)<\/ReqdColltnDt>/.exec(pmt)![1]!;
    const scheme = /<LclInstrm><Cd>(\w+)<\/Cd><\/LclInstrm>/.exec(pmt)![1]!;
    for (const tx of pmt.split('<DrctDbtTxInf>').slice(1)) {
      out.set(/<EndToEndId>([^<]+)</.exec(tx)![1]!, {
        amount: /<InstdAmt Ccy="EUR">([\d.]+)</.exec(tx)![1]!,
        mandate: /<MndtId>([^<]+)</.exec(tx)![1]!,
        seq,
        date,
        scheme,
      });
    }
  }
  return out;
}

const camt054Return = (
  endToEndId: string,
  reason: string,
  ref: string,
) => `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.054.001.02">
  <BkToCstmrDbtCdtNtfctn>
    <GrpHdr><MsgId>N-${ref}</MsgId><CreDtTm>2026-12-03T08:00:00</CreDtTm></GrpHdr>
    <Ntfctn>
      <Id>${ref}</Id>
      <CreDtTm>2026-12-03T08:00:00</CreDtTm>
      <Acct><Id><IBAN>NL91ABNA0417164300</IBAN></Id></Acct>
      <Ntry>
        <Amt Ccy="EUR">59.29</Amt>
        <CdtDbtInd>DBIT</CdtDbtInd>
        <Sts>BOOK</Sts>
        <BookgDt><Dt>2026-12-03</Dt></BookgDt>
        <AcctSvcrRef>${ref}</AcctSvcrRef>
        <BkTxCd><Domn><Cd>PMNT</Cd><Fmly><Cd>IDDT</Cd><SubFmlyCd>UPDD</SubFmlyCd></Fmly></Domn></BkTxCd>
        <NtryDtls><TxDtls>
          <Refs><AcctSvcrRef>${ref}</AcctSvcrRef><EndToEndId>${endToEndId}</EndToEndId></Refs>
          <AmtDtls><TxAmt><Amt Ccy="EUR">59.29</Amt></TxAmt></AmtDtls>
          <RtrInf><Rsn><Cd>${reason}</Cd></Rsn></RtrInf>
        </TxDtls></NtryDtls>
      </Ntry>
    </Ntfctn>
  </BkToCstmrDbtCdtNtfctn>
</Document>`;

const pain002 = (
  messageId: string,
  endToEndId: string,
  reason: string,
) => `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.002.001.03">
  <CstmrPmtStsRpt>
    <GrpHdr><MsgId>STS-${endToEndId}</MsgId><CreDtTm>2026-11-24T07:00:00</CreDtTm></GrpHdr>
    <OrgnlGrpInfAndSts><OrgnlMsgId>${messageId}</OrgnlMsgId><OrgnlMsgNmId>pain.008.001.02</OrgnlMsgNmId><GrpSts>PART</GrpSts></OrgnlGrpInfAndSts>
    <OrgnlPmtInfAndSts>
      <OrgnlPmtInfId>${messageId}-1</OrgnlPmtInfId>
      <TxInfAndSts>
        <OrgnlEndToEndId>${endToEndId}</OrgnlEndToEndId>
        <TxSts>RJCT</TxSts>
        <StsRsnInf><Rsn><Cd>${reason}</Cd></Rsn></StsRsnInf>
      </TxInfAndSts>
    </OrgnlPmtInfAndSts>
  </CstmrPmtStsRpt>
</Document>`;

describe('SELLER_SEPA_CREDITOR_ID and the TARGET2 calendar', () => {
  it('checks the creditor identifier at start (mod 97-10) and needs SELLER_IBAN', () => {
    assert.equal(loadConfig({ ...SEPA }).seller.sepaCreditorId, 'NL69ZZZ123456780000');
    assert.throws(
      () => loadConfig({ ...SEPA, SELLER_SEPA_CREDITOR_ID: 'NL68ZZZ123456780000' }),
      /SELLER_SEPA_CREDITOR_ID has wrong check digits \(ISO 7064 mod 97-10\)/,
    );
    assert.throws(
      () => loadConfig({ SELLER_SEPA_CREDITOR_ID: 'DE98ZZZ09999999999' }),
      /SELLER_SEPA_CREDITOR_ID needs SELLER_IBAN/,
    );
  });
  it('closes on weekends, 1 January, Good Friday, Easter Monday, 1 May, 25 and 26 December', () => {
    for (const closed of [
      '2027-01-01',
      '2027-03-26',
      '2027-03-29',
      '2027-05-01',
      '2026-12-25',
      '2026-12-26',
      '2026-11-29',
    ])
      assert.equal(isTarget2Day(closed), false, closed);
    for (const open of ['2027-03-25', '2027-03-30', '2026-12-24', '2026-12-28', '2026-05-25'])
      assert.equal(isTarget2Day(open), true, open);
    assert.equal(target2OnOrAfter('2026-12-25'), '2026-12-28');
  });
});

const withPostgres = await postgresAvailable();

for (const engine of ['PGlite', 'PostgreSQL'] as const)
  describe(
    `SEPA Direct Debit on ${engine}`,
    { skip: engine === 'PostgreSQL' && !withPostgres },
    () => {
      let t: TestApp;
      let pgdb: Awaited<ReturnType<typeof freshPostgres>> | undefined;
      before(async () => {
        pgdb = engine === 'PostgreSQL' ? await freshPostgres() : undefined;
        t = await buildTestApp({
          env: { ...DUTCH_SELLER, ...SEPA },
          ...(pgdb === undefined ? {} : { db: pgdb.db }),
        });
      });
      after(async () => {
        await t.close();
        await pgdb?.cleanup();
      });

      const call = (
        session: string,
        method: 'GET' | 'PUT' | 'POST' | 'DELETE',
        url: string,
        payload?: unknown,
      ) =>
        t.app.inject({
          method,
          url,
          headers: { authorization: `Bearer ${session}` },
          ...(payload === undefined ? {} : { payload: payload as object }),
        });
      const giveMandate = (session: string, scheme = 'core', iban = DEBTOR_IBAN) =>
        call(session, 'PUT', '/api/v1/billing/mandate', {
          iban,
          account_holder: 'Müller & Söhne GmbH',
          scheme,
          accept_mandate_text: true,
        });
      const audit = async (action: string, accountId: string | null = null) =>
        t.db.query<{ data: Record<string, unknown>; account_id: string | null }>(
          `SELECT data, account_id FROM audit_log WHERE action = $1 ${accountId === null ? '' : 'AND account_id = $2'} ORDER BY id`,
          accountId === null ? [action] : [action, accountId],
        );
      const invoicesOf = async (session: string) =>
        (await call(session, 'GET', '/api/v1/invoices')).json().data as {
          id: string;
          number: number;
          status: string;
          amount_due_cents: number;
        }[];

      it('shows the terms, refuses bad input by name, stores the IBAN encrypted and shows it masked', async () => {
        const a = await accountOnPlan(t, 'free');
        const state = (await call(a.session, 'GET', '/api/v1/billing/mandate')).json();
        assert.equal(state.offered, true);
        assert.equal(state.mandate, null);
        assert.match(state.terms.mandate_texts.core, /NL69ZZZ123456780000/);
        assert.match(state.terms.mandate_texts.b2b, /only intended for business-to-business/);

        const bad = await giveMandate(a.session, 'core', 'DE89 3704 0044 0532 0130 01');
        assert.equal(bad.statusCode, 400);
        assert.equal(bad.json().invalid_params[0].name, 'iban');
        assert.match(bad.json().invalid_params[0].reason, /check digits/);
        // A valid Brazilian IBAN: not in the SEPA area.
        const foreign = await giveMandate(a.session, 'core', 'BR1800360305000010009795493C1');
        assert.equal(foreign.statusCode, 400);
        assert.match(foreign.json().invalid_params[0].reason, /SEPA country \(BR is not one\)/);
        const notAccepted = await call(a.session, 'PUT', '/api/v1/billing/mandate', {
          iban: DEBTOR_IBAN,
          account_holder: 'X',
          scheme: 'core',
          accept_mandate_text: false,
        });
        assert.equal(notAccepted.statusCode, 400);
        assert.equal(notAccepted.json().invalid_params[0].name, 'accept_mandate_text');
        const scheme = await giveMandate(a.session, 'cor1');
        assert.equal(scheme.statusCode, 400);
        assert.match(scheme.headers['content-type'] as string, /problem\+json/);

        const given = await giveMandate(a.session);
        assert.equal(given.statusCode, 200, given.body);
        const m = given.json();
        assert.equal(m.iban_masked, 'DE89 •••• •••• •••• ••30 00');
        assert.match(m.reference, /^SAPI-20261122-[0-9A-F]{10}$/);
        assert.equal(m.signed_at, '2026-11-22T10:15:00.000Z');
        assert.equal(m.scheme, 'core');
        const [row] = await t.db.query<{ iban_sealed: string }>(
          'SELECT iban_sealed FROM sepa_mandates WHERE reference = $1',
          [m.reference],
        );
        assert.doesNotMatch(row!.iban_sealed, /DE89|370400440532013000/);
        assert.equal((await audit('mandates.give', a.accountId)).length, 1);

        const revoked = await call(a.session, 'DELETE', '/api/v1/billing/mandate');
        assert.equal(revoked.statusCode, 200);
        assert.equal(
          (await call(a.session, 'GET', '/api/v1/billing/mandate')).json().mandate,
          null,
        );
        assert.equal((await call(a.session, 'DELETE', '/api/v1/billing/mandate')).statusCode, 404);
        assert.equal((await audit('mandates.revoke', a.accountId)).length, 1);
      });

      it('collects due invoices once in a schema-valid pain.008; returns reopen them and start dunning', async () => {
        // Three customers on Developer (59.29 € with Dutch VAT), each with a Core mandate.
        const [paying, returned, rejected] = [
          await accountOnPlan(t, 'developer'),
          await accountOnPlan(t, 'developer'),
          await accountOnPlan(t, 'developer'),
        ];
        const refs = new Map<string, string>();
        for (const c of [paying, returned, rejected]) {
          const r = await giveMandate(c.session);
          assert.equal(r.statusCode, 200);
          refs.set(c.accountId, r.json().reference);
        }
        const batch = await t.services.subscriptions.mandates.batch('operator');
        assert.ok(batch.xml !== null);
        const lint = await xmllint(batch.xml);
        assert.ok(lint.ok, lint.out);
        const debits = debitsOf(batch.xml);
        const mine = (c: typeof paying) => {
          const inv = batch.collections.find((x) => x.mandate_reference === refs.get(c.accountId))!;
          return { ...inv, debit: debits.get(inv.end_to_end_id)! };
        };
        for (const c of [paying, returned, rejected]) {
          const { debit, invoice_id } = mine(c);
          const [invoice] = await invoicesOf(c.session);
          assert.equal(invoice!.id, invoice_id);
          // Issued Sunday 22 Nov, due Sunday 29 Nov: collected on the next TARGET2 day.
          assert.deepEqual(debit, {
            amount: '59.29',
            mandate: refs.get(c.accountId),
            seq: 'FRST',
            date: '2026-11-30',
            scheme: 'CORE',
          });
        }
        assert.match(batch.xml, /<CdtrSchmeId>\s*<Id><PrvtId><Othr><Id>NL69ZZZ123456780000</);
        assert.match(batch.xml, /<Nm>Mueller Soehne GmbH<\/Nm>/);
        assert.equal((await audit('invoices.collection_sent', paying.accountId)).length, 1);

        const again = await t.services.subscriptions.mandates.batch('operator');
        assert.equal(again.xml, null);
        assert.equal(again.collections.length, 0);

        // pain.002: the bank rejects one debit before settlement.
        const rej = mine(rejected);
        const report = await t.services.subscriptions.mandates.importStatusReport(
          pain002(batch.message_id!, rej.end_to_end_id, 'MS03'),
          'operator',
        );
        assert.deepEqual(
          report.returns.map((r) => [r.end_to_end_id, r.reason_code, r.outcome]),
          [[rej.end_to_end_id, 'MS03', 'reopened']],
        );

        // Past the due date: the billing run leaves pending collections alone.
        t.clock.set(Date.parse('2026-12-02T09:00:00Z'));
        await t.services.billing();
        const status = async (c: typeof paying) =>
          (await call(c.session, 'GET', '/api/v1/subscription')).json().status as string;
        assert.equal(await status(paying), 'active');
        assert.equal(await status(returned), 'active');
        assert.equal(
          await status(rejected),
          'past_due',
          'a rejected debit is owed like any invoice',
        );

        // camt.054: the debit of `returned` comes back (AM04, insufficient funds).
        const ret = mine(returned);
        const first = await t.services.subscriptions.importBankStatement(
          camt054Return(ret.end_to_end_id, 'AM04', 'RET-0001'),
          'operator',
        );
        assert.deepEqual(
          first.returns.map((r) => [r.reason_code, r.outcome, r.invoice_id]),
          [['AM04', 'reopened', ret.invoice_id]],
        );
        assert.equal(await status(returned), 'past_due');
        const [inv] = await invoicesOf(returned.session);
        assert.equal(inv!.status, 'open');
        const notices = await t.db.query<{ data: { invoice_numbers: string[] } }>(
          `SELECT data FROM notices WHERE account_id = $1 AND kind = 'invoice.overdue'`,
          [returned.accountId],
        );
        assert.deepEqual(
          notices.map((n) => n.data.invoice_numbers),
          [[String(inv!.number)]],
        );
        const [returnAudit] = await audit('invoices.collection_returned', returned.accountId);
        assert.equal(returnAudit!.data.reason_code, 'AM04');
        const [row] = await t.db.query<{ status: string; reason_code: string }>(
          'SELECT status, reason_code FROM sepa_collections WHERE end_to_end_id = $1',
          [ret.end_to_end_id],
        );
        assert.deepEqual({ ...row }, { status: 'returned', reason_code: 'AM04' });

        // The same notification again changes nothing.
        const second = await t.services.subscriptions.importBankStatement(
          camt054Return(ret.end_to_end_id, 'AM04', 'RET-0001'),
          'operator',
        );
        assert.equal(second.returns[0]!.outcome, 'already_returned');
        assert.equal((await audit('invoices.collection_returned', returned.accountId)).length, 1);
        assert.equal((await audit('payments.import')).length >= 2, true);

        // Both pay their reopened invoice by transfer and stay subscribed.
        await t.services.subscriptions.markPaid(ret.invoice_id, 'operator');
        await t.services.subscriptions.markPaid(rej.invoice_id, 'operator');

        // The renewal invoices: RCUR where the first collection stood, FRST again after a return.
        t.clock.set(Date.parse('2026-12-16T09:00:00Z'));
        await t.services.billing();
        const issued = await t.db.query<{ data: Record<string, unknown> }>(
          `SELECT data FROM notices WHERE account_id = $1 AND kind = 'invoice.issued' ORDER BY created_at`,
          [paying.accountId],
        );
        const renewalNotice = issued.at(-1)!.data;
        assert.equal(renewalNotice.mandate_reference, refs.get(paying.accountId));
        assert.equal(renewalNotice.creditor_id, 'NL69ZZZ123456780000');
        assert.equal(renewalNotice.collection_date, '2026-12-22');
        const mail = renderNotice('invoice.issued', renewalNotice, null, 'https://api.example.com');
        assert.match(
          mail.text,
          new RegExp(
            `59\\.29 EUR will be collected by SEPA Direct Debit on 2026-12-22 under mandate ${refs.get(paying.accountId)}, creditor identifier NL69ZZZ123456780000\\.`,
          ),
        );
        const renewal = await t.services.subscriptions.mandates.batch('operator');
        assert.ok(renewal.xml !== null);
        assert.ok((await xmllint(renewal.xml)).ok);
        const seqOf = (c: typeof paying) =>
          renewal.collections.find((x) => x.mandate_reference === refs.get(c.accountId))
            ?.sequence_type;
        assert.equal(seqOf(paying), 'RCUR');
        assert.equal(seqOf(rejected), 'FRST');
        assert.equal(seqOf(returned), 'FRST');
        assert.equal(
          renewal.collections.filter(
            (x) => x.invoice_id === ret.invoice_id || x.invoice_id === rej.invoice_id,
          ).length,
          0,
          'a returned invoice is not collected again by direct debit',
        );
        const renewalDate = renewal.collections.find(
          (x) => x.mandate_reference === refs.get(paying.accountId),
        )!;
        assert.equal(renewalDate.collection_date, '2026-12-22');
      });

      it('revokes the mandate of an account deleted: its open invoice is not collected', async () => {
        const d = await accountOnPlan(t, 'developer');
        assert.equal((await giveMandate(d.session)).statusCode, 200);
        const deleted = await call(d.session, 'POST', '/api/v1/account/deletion', {
          password: 'a long enough passphrase',
          confirm: 'DELETE',
        });
        assert.equal(deleted.statusCode, 200, deleted.body);
        const [row] = await t.db.query<{ revoked: boolean }>(
          'SELECT revoked_at IS NOT NULL AS revoked FROM sepa_mandates WHERE account_id = $1',
          [d.accountId],
        );
        assert.equal(row!.revoked, true);
        const batch = await t.services.subscriptions.mandates.batch('operator');
        const [invoice] = await t.db.query<{ id: string }>(
          'SELECT id FROM invoices WHERE account_id = $1',
          [d.accountId],
        );
        assert.equal(batch.collections.filter((c) => c.invoice_id === invoice!.id).length, 0);
      });

      it('refuses malformed files naming what is wrong', async () => {
        const m = t.services.subscriptions.mandates;
        await assert.rejects(
          m.importStatusReport('<Document>', 'operator'),
          (e: Error & { code?: string }) => {
            assert.equal(e.code, 'INVALID_PARAMETER');
            assert.match(e.message, /not well-formed XML/);
            return true;
          },
        );
        await assert.rejects(
          m.importStatusReport(
            '<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.001.001.03"/>',
            'operator',
          ),
          /not an ISO 20022 pain.002/,
        );
        await assert.rejects(
          m.importStatusReport(pain002('X', '', 'AM04'), 'operator'),
          /has no OrgnlEndToEndId/,
        );
        await assert.rejects(
          t.services.subscriptions.importBankStatement(
            camt054Return('NOTPROVIDED', 'AM04', 'R-9'),
            'operator',
          ),
          /returns a direct debit without its EndToEndId/,
        );
      });
    },
  );
