import { chmodSync, mkdirSync } from 'node:fs';
import { chmod, lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';

/** DATA_DIR holds accounts, key hashes, invoices and the secret key: its owner only. */
export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** Creates `dir` (and missing parents) readable by its owner only; tightens it if it exists. */
export function makePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  chmodSync(dir, PRIVATE_DIR_MODE);
}

/**
 * Sets every folder below `dir` to 0700 and every file to 0600. PGlite's file system layer
 * chmods the files it creates to 0666 whatever the umask, so this runs when the database opens,
 * periodically while it runs and when it closes. Between two sweeps a new file (a WAL segment)
 * may be 0666 inside a folder nobody else can enter. Returns how many modes it changed.
 * `except`: a name in `dir` left alone (a subtree its owner sweeps itself). Asynchronous: a
 * sweep of a running database's 1,250 files held the event loop, and every request, for 13 to
 * 30 ms on a 2-core machine (bench/README.md).
 */
export async function restrictTree(dir: string, except?: string): Promise<number> {
  let changed = 0;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isSymbolicLink() || entry.name === except) continue;
    const want = entry.isDirectory() ? PRIVATE_DIR_MODE : PRIVATE_FILE_MODE;
    try {
      if (((await lstat(path)).mode & 0o777) !== want) {
        await chmod(path, want);
        changed++;
      }
      if (entry.isDirectory()) changed += await restrictTree(path);
    } catch (error) {
      // A file the database removed between readdir and chmod needs nothing.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  return changed;
}
