// `salary-api payments sepa-batch` and `payments import` of a pain.002 as the operator runs
// them, on PostgreSQL: the file written is schema-valid, a second batch collects nothing, the
// rejection reopens the invoice.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { accountOnPlan } from '../helpers/accounts.js';
import { buildTestApp, TEST_SECRET_KEY, type TestApp } from '../helpers/app.js';
import { freshPostgres, postgresAvailable } from '../helpers/db.js';
import { runCli } from '../helpers/process.js';
import { DUTCH_SELLER } from '../helpers/seller.js';

const XSD = join(import.meta.dirname, '../../schemas/iso20022/pain.008.001.02.xsd');
const ENV = {
  ...DUTCH_SELLER,
  SELLER_IBAN: 'NL91ABNA0417164300',
  SELLER_SEPA_CREDITOR_ID: 'NL69ZZZ123456780000',
};
const skip = !(await postgresAvailable());

describe('salary-api payments sepa-batch', { skip }, () => {
  let pg: Awaited<ReturnType<typeof freshPostgres>>;
  let t: TestApp;
  const work = mkdtempSync(join(tmpdir(), 'sepa-cli-'));
  before(async () => {
    pg = await freshPostgres();
    t = await buildTestApp({ db: pg.db, env: ENV });
  });
  after(async () => {
    await t.close();
    await pg.cleanup();
    rmSync(work, { recursive: true, force: true });
  });

  it('writes a schema-valid pain.008 once; a pain.002 rejection reopens the invoice', async () => {
    const a = await accountOnPlan(t, 'developer');
    const given = await t.app.inject({
      method: 'PUT',
      url: '/api/v1/billing/mandate',
      headers: { authorization: `Bearer ${a.session}` },
      payload: {
        iban: 'AT61 1904 3002 3457 3201',
        account_holder: 'Kund GmbH',
        scheme: 'b2b',
        accept_mandate_text: true,
      },
    });
    assert.equal(given.statusCode, 200, given.body);
    const env = { DATABASE_URL: pg.url, SECRET_KEY: TEST_SECRET_KEY, ...ENV };
    const file = join(work, 'pain008.xml');
    const batch = await runCli(['payments', 'sepa-batch', '--out', file, '--json'], env);
    assert.equal(batch.code, 0, batch.stderr);
    const result = JSON.parse(batch.stdout);
    assert.equal(result.collections.length, 1);
    assert.equal(result.collections[0].sequence_type, 'FRST');
    assert.equal(result.collections[0].scheme, 'b2b');
    const xml = readFileSync(file, 'utf8');
    assert.match(xml, /<LclInstrm><Cd>B2B<\/Cd><\/LclInstrm>/);
    assert.match(xml, /<IBAN>AT611904300234573201<\/IBAN>/);
    await promisify(execFile)('xmllint', ['--noout', '--schema', XSD, file]);

    const again = await runCli(['payments', 'sepa-batch'], env);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /no invoices to collect/);

    const report = join(work, 'pain002.xml');
    writeFileSync(
      report,
      `<?xml version="1.0"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.002.001.03"><CstmrPmtStsRpt>
  <GrpHdr><MsgId>STS-1</MsgId><CreDtTm>2026-11-23T07:00:00</CreDtTm></GrpHdr>
  <OrgnlGrpInfAndSts><OrgnlMsgId>${result.message_id}</OrgnlMsgId><OrgnlMsgNmId>pain.008.001.02</OrgnlMsgNmId><GrpSts>RJCT</GrpSts>
    <StsRsnInf><Rsn><Cd>FF01</Cd></Rsn></StsRsnInf></OrgnlGrpInfAndSts>
</CstmrPmtStsRpt></Document>`,
    );
    const imported = await runCli(['payments', 'import', report], env);
    assert.equal(imported.code, 0, imported.stderr);
    assert.match(imported.stdout, /pain\.002 on SAPI-.*1 rejected\n {2}\S+ FF01: reopened/);
    const [row] = await pg.db.query<{ status: string; reason_code: string }>(
      'SELECT status, reason_code FROM sepa_collections',
    );
    assert.deepEqual({ ...row }, { status: 'returned', reason_code: 'FF01' });
    const twice = await runCli(['payments', 'import', report], env);
    assert.match(twice.stdout, /FF01: already_returned/);
    const garbage = join(work, 'garbage.xml');
    writeFileSync(
      garbage,
      '<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.002.001.03"><CstmrPmtStsRpt>',
    );
    const bad = await runCli(['payments', 'import', garbage], env);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /'report': is not well-formed XML/);
  });
});
