import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { makePrivateDir, PRIVATE_FILE_MODE } from './private-files.js';

/**
 * PGlite is a single-process database: two processes opening one DATA_DIR would corrupt it.
 * A lock file holding the owner's pid keeps a second process (the CLI while the server runs)
 * out, with a clear message; a lock left by a dead process is taken over.
 */
export class EmbeddedLockError extends Error {
  constructor(
    readonly dir: string,
    readonly pid: number,
  ) {
    super(
      `The embedded database in ${dir} is in use by process ${pid} (a running server?). ` +
        'Stop it first, or run against PostgreSQL with DATABASE_URL.',
    );
    this.name = 'EmbeddedLockError';
  }
}

export function acquireEmbeddedLock(dir: string): () => void {
  makePrivateDir(dir);
  const path = join(dir, 'salary-api.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx', PRIVATE_FILE_MODE);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(path, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = Number(readFileSync(path, 'utf8').trim());
      if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && isAlive(owner)) {
        throw new EmbeddedLockError(dir, owner);
      }
      rmSync(path, { force: true });
    }
  }
  throw new Error(`could not take the lock ${path}`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
