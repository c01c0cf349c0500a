import { resolve } from 'node:path';
import { pgliteDirOf, restoreBackup, writeBackup } from '../backup/index.js';
import type { Config } from '../config/index.js';
import { systemClock } from '../lib/clock.js';
import { createReleaseService } from '../releases/index.js';
import { acquireEmbeddedLock, openDatabase, type Db } from '../store/index.js';

/** The command an operator runs instead on PostgreSQL (the password left in the environment). */
export function pgDumpCommand(databaseUrl: string, file: string): string {
  const url = new URL(databaseUrl);
  if (url.password !== '') url.password = '****';
  return `pg_dump --format=custom --file=${JSON.stringify(file)} ${JSON.stringify(url.toString())}`;
}

async function activeVersion(db: Db): Promise<string | null> {
  return (await createReleaseService({ db, clock: systemClock }).activeVersion()) ?? null;
}

/** `backup FILE`: a snapshot of the embedded database (server stopped); pg_dump's command otherwise. */
export async function backupCommand(config: Config, file: string, json: boolean): Promise<number> {
  const target = resolve(file);
  if (config.databaseUrl !== undefined) {
    console.log(
      'DATABASE_URL is set: back PostgreSQL up with its own tools, for example\n' +
        `  ${pgDumpCommand(config.databaseUrl, target)}\n` +
        '(with the real password, e.g. in PGPASSWORD or ~/.pgpass). Nothing was written.',
    );
    return 2;
  }
  const db = await openDatabase(config, { role: 'salary-api backup' });
  try {
    const manifest = await writeBackup(db, target, {
      release: await activeVersion(db),
      now: new Date(systemClock.now()),
    });
    console.log(
      json
        ? JSON.stringify({ file: target, ...manifest })
        : `backup written to ${target} (${manifest.bytes} bytes, migration ${manifest.migration}, release ${manifest.release ?? 'none'}, sha256 ${manifest.sha256})`,
    );
    return 0;
  } finally {
    await db.close();
  }
}

/** `restore FILE`: replaces the embedded database with a backup (server stopped). */
export async function restoreCommand(config: Config, file: string, json: boolean): Promise<number> {
  if (config.databaseUrl !== undefined) {
    console.error('DATABASE_URL is set: restore PostgreSQL with pg_restore. Nothing was changed.');
    return 2;
  }
  const release = acquireEmbeddedLock(config.dataDir, 'salary-api restore');
  try {
    const manifest = await restoreBackup(resolve(file), pgliteDirOf(config.dataDir));
    console.log(
      json
        ? JSON.stringify({ restored: resolve(file), ...manifest })
        : `restored ${resolve(file)} (taken ${manifest.createdAt}, migration ${manifest.migration}, release ${manifest.release ?? 'none'})`,
    );
    return 0;
  } finally {
    release();
  }
}
