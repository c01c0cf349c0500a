// What the SEPA Direct Debit tests share: the operator's SEPA settings and xmllint's verdict on
// a pain.008 against the vendored ISO 20022 schema.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const XSD = join(import.meta.dirname, '../../schemas/iso20022/pain.008.001.02.xsd');

export const SEPA = {
  SELLER_IBAN: 'NL91ABNA0417164300',
  SELLER_BIC: 'ABNANL2A',
  SELLER_SEPA_CREDITOR_ID: 'NL69ZZZ123456780000',
};

/** xmllint's verdict on `xml` against the vendored pain.008.001.02 schema. */
export async function xmllint(xml: string): Promise<{ ok: boolean; out: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'pain008-'));
  try {
    const file = join(dir, 'batch.xml');
    await writeFile(file, xml);
    return await run('xmllint', ['--noout', '--schema', XSD, file]).then(
      (o) => ({ ok: true, out: o.stderr }),
      (e: { stderr: string }) => ({ ok: false, out: e.stderr }),
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
