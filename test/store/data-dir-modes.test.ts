import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { openDatabase } from '../../src/store/index.js';
import { restrictTree } from '../../src/store/private-files.js';
import { templateDir } from '../helpers/db.js';

/** Every path below `dir` (itself included) whose mode is not 0700 (folders) or 0600 (files). */
function loosePaths(dir: string): string[] {
  const loose: string[] = [];
  const walk = (path: string) => {
    const stat = statSync(path);
    const want = stat.isDirectory() ? 0o700 : 0o600;
    if ((stat.mode & 0o777) !== want) loose.push(`${(stat.mode & 0o777).toString(8)} ${path}`);
    if (stat.isDirectory()) for (const name of readdirSync(path)) walk(join(path, name));
  };
  walk(dir);
  return loose;
}

describe('the embedded database in DATA_DIR is private to its owner', () => {
  const root = mkdtempSync(join(tmpdir(), 'salary-api-modes-'));
  after(() => rmSync(root, { recursive: true, force: true }));

  it('DATA_DIR 0700 and every file 0600 while open and after close, whatever the umask', async () => {
    const previous = process.umask(0o022);
    try {
      const dataDir = join(root, 'data');
      // A copy of a prepared database: PGlite left its files 0666 there. A secret key and a
      // stray file left readable by an older version or a careless copy.
      cpSync(await templateDir(), join(dataDir, 'pglite'), { recursive: true });
      writeFileSync(join(dataDir, 'secret-key'), 'k'.repeat(43), { mode: 0o644 });
      writeFileSync(join(dataDir, 'notes.txt'), '', { mode: 0o666 });
      const db = await openDatabase({ databaseUrl: undefined, dataDir });
      assert.deepEqual(loosePaths(dataDir), [], 'open');
      await db.query('CREATE TABLE mode_probe (x int)');
      await db.query('INSERT INTO mode_probe SELECT generate_series(1, 10000)');
      await db.close();
      assert.deepEqual(loosePaths(dataDir), [], 'closed');
    } finally {
      process.umask(previous);
    }
  });

  it('a file created world-writable while running is tightened by the next sweep', async () => {
    const dir = join(root, 'sweep');
    cpSync(join(root, 'data'), dir, { recursive: true });
    const segment = join(dir, 'pglite', 'pg_wal', 'new-segment');
    writeFileSync(segment, '', { mode: 0o666 });
    await restrictTree(dir);
    assert.equal(statSync(segment).mode & 0o777, 0o600);
  });
});
