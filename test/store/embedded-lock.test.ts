import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { acquireEmbeddedLock, EmbeddedLockError, lockHolder } from '../../src/store/index.js';

describe('the embedded database lock', () => {
  const dir = mkdtempSync(join(tmpdir(), 'salary-api-lock-'));
  const lockFile = join(dir, 'salary-api.lock');
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('records who holds it, and is gone once released', () => {
    const release = acquireEmbeddedLock(dir, 'server');
    assert.equal(readFileSync(lockFile, 'utf8'), `${process.pid}\nserver\n`);
    assert.deepEqual(lockHolder(dir), { pid: process.pid, role: 'server' });
    release();
    assert.equal(existsSync(lockFile), false);
    assert.equal(lockHolder(dir), undefined);
  });

  it('tells a command that the running server holds the database, and what to do', () => {
    // The test runner that started this process is alive: it stands for the server.
    writeFileSync(lockFile, `${process.ppid}\nserver\n`);
    assert.throws(
      () => acquireEmbeddedLock(dir, 'salary-api account'),
      (error: unknown) =>
        error instanceof EmbeddedLockError &&
        error.message.includes(`held by the running server (process ${process.ppid})`) &&
        error.message.includes('Stop the server first') &&
        error.message.includes('DATABASE_URL'),
    );
    assert.equal(readFileSync(lockFile, 'utf8'), `${process.ppid}\nserver\n`, 'left untouched');
  });

  it('names a command holding it, and reads a lock that holds only a pid', () => {
    writeFileSync(lockFile, `${process.ppid}\nsalary-api migrate\n`);
    assert.throws(() => acquireEmbeddedLock(dir), /in use by process \d+ \(salary-api migrate\)/);
    writeFileSync(lockFile, String(process.ppid));
    assert.deepEqual(lockHolder(dir), { pid: process.ppid, role: 'another process' });
  });

  it('takes over a lock left by a process that is gone', () => {
    writeFileSync(lockFile, '999999\nserver\n');
    assert.equal(lockHolder(dir), undefined);
    const release = acquireEmbeddedLock(dir, 'salary-api backup');
    assert.deepEqual(lockHolder(dir), { pid: process.pid, role: 'salary-api backup' });
    release();
  });
});
