import { PGlite } from '@electric-sql/pglite';
import { existsSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { listMigrations, migrationLevel, openPglite, wrapPglite } from '../store/index.js';
import { makePrivateDir, restrictTree } from '../store/private-files.js';
import { decodeBackup, type Manifest } from './format.js';

export class RestoreRefused extends Error {
  constructor(message: string) {
    super(`${message} Nothing was changed.`);
    this.name = 'RestoreRefused';
  }
}

/**
 * Replaces the embedded database in `pgliteDir` with the backup `file` (the server stopped,
 * the caller holding DATA_DIR's lock). The file is checked first (manifest, size, SHA-256,
 * migration level); it is unpacked into a new folder beside the database, which is opened;
 * only then is the current folder moved aside, and it is deleted once the restored one opened
 * in its place (moved back if it did not).
 */
export async function restoreBackup(
  file: string,
  pgliteDir: string,
  knownMigration = Math.max(0, ...listMigrations().map((m) => m.version)),
): Promise<Manifest> {
  const { manifest, payload } = decodeBackup(file, readFileSync(file));
  if (manifest.migration > knownMigration)
    throw new RestoreRefused(
      `${file} was taken at migration ${manifest.migration}; this version of salary-api knows migrations up to ${knownMigration}. Restore it with the newer version.`,
    );
  const stamp = Date.now().toString(36);
  const incoming = `${pgliteDir}.restoring-${stamp}`;
  const aside = `${pgliteDir}.replaced-${stamp}`;
  makePrivateDir(incoming);
  try {
    const pg = await PGlite.create({
      dataDir: incoming,
      loadDataDir: new Blob([payload], { type: 'application/x-gzip' }),
    });
    const level = await migrationLevel(wrapPglite(pg));
    await pg.close();
    if (level !== manifest.migration)
      throw new RestoreRefused(
        `${file} opened at migration ${level} where its manifest says ${manifest.migration}.`,
      );
    await restrictTree(incoming);
  } catch (error) {
    rmSync(incoming, { recursive: true, force: true });
    if (error instanceof RestoreRefused) throw error;
    throw new RestoreRefused(
      `${file} could not be opened as a database (${(error as Error).message}).`,
    );
  }
  const had = existsSync(pgliteDir);
  if (had) renameSync(pgliteDir, aside);
  renameSync(incoming, pgliteDir);
  try {
    const db = await openPglite(pgliteDir);
    await migrationLevel(db);
    await db.close();
  } catch (error) {
    rmSync(pgliteDir, { recursive: true, force: true });
    if (had) renameSync(aside, pgliteDir);
    throw error;
  }
  if (had) rmSync(aside, { recursive: true, force: true });
  return manifest;
}

/** Where `openDatabase` keeps the embedded database inside DATA_DIR. */
export function pgliteDirOf(dataDir: string): string {
  return join(dataDir, 'pglite');
}
