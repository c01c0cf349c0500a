import { randomBytes } from 'node:crypto';
import { readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { migrationLevel, type Db } from '../store/index.js';
import { makePrivateDir, PRIVATE_FILE_MODE } from '../store/private-files.js';
import { encodeBackup, type Manifest } from './format.js';

export const BACKUP_PREFIX = 'salary-api-';
export const BACKUP_SUFFIX = '.backup';

/**
 * Writes a snapshot of the embedded database to `file` (mode 0600): written under a temporary
 * name beside it and renamed when complete, so a failed snapshot never replaces a good one.
 */
export async function writeBackup(
  db: Db,
  file: string,
  info: { release: string | null; now: Date },
): Promise<Manifest> {
  if (db.snapshot === undefined)
    throw new Error('only the embedded database is snapshotted; use pg_dump for PostgreSQL');
  const migration = await migrationLevel(db);
  const payload = await db.snapshot();
  const { bytes, manifest } = encodeBackup(payload, {
    createdAt: info.now.toISOString(),
    release: info.release,
    migration,
  });
  makePrivateDir(dirname(file));
  const temporary = join(
    dirname(file),
    `.${basename(file)}.${randomBytes(4).toString('hex')}.partial`,
  );
  try {
    writeFileSync(temporary, bytes, { mode: PRIVATE_FILE_MODE, flag: 'wx' });
    renameSync(temporary, file);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
  return manifest;
}

/** `salary-api-20261123T030000Z.backup`: names that sort by time. */
export function backupName(now: Date): string {
  const stamp = now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  return `${BACKUP_PREFIX}${stamp}${BACKUP_SUFFIX}`;
}

/** Deletes the oldest complete backups in `dir` beyond the newest `keep`; returns them. */
export function pruneBackups(dir: string, keep: number): string[] {
  const all = readdirSync(dir)
    .filter((name) => name.startsWith(BACKUP_PREFIX) && name.endsWith(BACKUP_SUFFIX))
    .sort();
  const old = all.slice(0, Math.max(0, all.length - keep));
  for (const name of old) rmSync(join(dir, name), { force: true });
  return old;
}
