import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * The QR codes found on the pages of `pdf`, read back by independent programs: Ghostscript
 * draws each page at 200 dpi and ZBar (`zbarimg`) decodes what it sees, as a phone would.
 */
export async function qrCodesInPdf(pdf: Uint8Array): Promise<string[]> {
  const dir = await mkdtemp(join(tmpdir(), 'qr-'));
  try {
    await writeFile(join(dir, 'doc.pdf'), pdf);
    await run('gs', [
      '-q',
      '-dSAFER',
      '-dBATCH',
      '-dNOPAUSE',
      '-sDEVICE=pnggray',
      '-r200',
      `-sOutputFile=${join(dir, 'page-%d.png')}`,
      join(dir, 'doc.pdf'),
    ]);
    const found: string[] = [];
    for (const file of (await readdir(dir)).filter((f) => f.endsWith('.png')).sort())
      found.push(...(await qrCodesInImage(join(dir, file))));
    return found;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The QR codes ZBar decodes in the image at `path` (none: an empty list). */
export async function qrCodesInImage(path: string): Promise<string[]> {
  try {
    // Each code is printed raw, followed by a newline; the EPC text has newlines of its own,
    // so codes are told apart by their `BCD` service tag.
    const { stdout } = await run('zbarimg', ['--quiet', '--raw', '-Sqrcode.enable', path]);
    return stdout
      .replace(/\n$/, '')
      .split(/\n(?=BCD\n)/)
      .filter((s) => s !== '');
  } catch (error) {
    // zbarimg exits 4 when it found no code.
    if ((error as { code?: number }).code === 4) return [];
    throw error;
  }
}
