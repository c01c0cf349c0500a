import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { makePrivateDir, PRIVATE_FILE_MODE } from './private-files.js';

/** Who holds the embedded database: its pid, and what it is (`server`, `salary-api migrate`). */
export interface LockHolder {
  pid: number;
  role: string;
}

/**
 * PGlite is a single-process database: two processes opening one DATA_DIR would corrupt it.
 * A lock file holding the owner's pid and role keeps a second process (the CLI while the server
 * runs) out, with a message naming who holds it; a lock left by a dead process is taken over.
 */
export class EmbeddedLockError extends Error {
  constructor(
    readonly dir: string,
    readonly pid: number,
    readonly role: string,
  ) {
    super(
      role === 'server'
        ? `The embedded database in ${dir} is held by the running server (process ${pid}): ` +
            'a command can open it only while the server is stopped. Stop the server first, or ' +
            'run the server and commands on PostgreSQL (DATABASE_URL).'
        : `The embedded database in ${dir} is in use by process ${pid} (${role}). ` +
            'Wait for it to finish or stop it, or run on PostgreSQL with DATABASE_URL.',
    );
    this.name = 'EmbeddedLockError';
  }
}

const LOCK_FILE = 'salary-api.lock';

/**
 * Takes the lock on `dir` for this process; returns its release. `role` says what this process
 * is, for the message another one gets.
 */
export function acquireEmbeddedLock(dir: string, role = 'another process'): () => void {
  makePrivateDir(dir);
  const path = join(dir, LOCK_FILE);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx', PRIVATE_FILE_MODE);
      writeSync(fd, `${process.pid}\n${role}\n`);
      closeSync(fd);
      return () => rmSync(path, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = lockHolder(dir);
      if (holder !== undefined && holder.pid !== process.pid)
        throw new EmbeddedLockError(dir, holder.pid, holder.role);
      rmSync(path, { force: true });
    }
  }
  throw new Error(`could not take the lock ${path}`);
}

/** The live process holding `dir`'s lock; undefined when none does (no lock, or a stale one). */
export function lockHolder(dir: string): LockHolder | undefined {
  let text: string;
  try {
    text = readFileSync(join(dir, LOCK_FILE), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const [pidLine, role] = text.split('\n');
  const pid = Number(pidLine?.trim());
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) return undefined;
  return { pid, role: role?.trim() || 'another process' };
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
