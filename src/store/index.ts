import { join } from 'node:path';
import type { Db } from './db.js';
import { acquireEmbeddedLock } from './embedded-lock.js';
import { openPglite, type PgliteCreateOptions } from './pglite.js';
import { openPostgres } from './postgres.js';
import { restrictTree } from './private-files.js';

export {
  jsonColumn,
  pingDatabase,
  type AmbientTransaction,
  type Db,
  type Queryable,
} from './db.js';
export { migrate, listMigrations, migrationLevel } from './migrate.js';
export { openPglite, wrapPglite, type PgliteCreateOptions } from './pglite.js';
export {
  dataImageCurrent,
  findDataImage,
  imageInputs,
  pgliteVersion,
  sha256File,
  writeDataImage,
  type DataImage,
  type ImageManifest,
} from './data-image.js';
export { openPostgres } from './postgres.js';
export { EmbeddedLockError, acquireEmbeddedLock, lockHolder } from './embedded-lock.js';
export { isConnectionError } from './faults.js';
export { lockAccount } from './account-lock.js';

/** PostgreSQL when DATABASE_URL is set, otherwise PGlite in DATA_DIR/pglite (locked). */
export async function openDatabase(
  options: {
    databaseUrl: string | undefined;
    dataDir: string;
  },
  open: PgliteCreateOptions & {
    /** What this process is, named to another that finds the embedded database held. */
    role?: string;
  } = {},
): Promise<Db> {
  if (options.databaseUrl !== undefined) return openPostgres(options.databaseUrl);
  const release = acquireEmbeddedLock(options.dataDir, open.role);
  try {
    // Everything in DATA_DIR (the secret key, files left by an older version or a copy) too;
    // the database's own folder is swept by openPglite once the database is open.
    await restrictTree(options.dataDir, 'pglite');
    const db = await openPglite(join(options.dataDir, 'pglite'), open);
    return {
      ...db,
      close: async () => {
        try {
          await db.close();
        } finally {
          release();
        }
      },
    };
  } catch (error) {
    release();
    throw error;
  }
}
export { openRedis, redisReady, type Redis } from './redis.js';
export {
  ChangeHandlers,
  coalescedAnnouncer,
  LocalChangeBus,
  RedisChangeBus,
  openPublishingBus,
  openSharedRedis,
  type ChangeBus,
  type SharedRedis,
  type ChangeTopic,
} from './change-bus.js';
export { runClaimed, type JobClaim } from './leases.js';
export {
  claimRows,
  claimSql,
  extendLease,
  releaseClaims,
  settleClaimed,
  type QueueTable,
} from './queue-repo.js';
