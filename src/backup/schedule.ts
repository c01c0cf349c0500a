import { Cron } from 'croner';
import { join } from 'node:path';
import type { Clock } from '../lib/clock.js';
import type { Job } from '../lib/job.js';
import type { Logger } from '../lib/logger.js';
import type { Metrics } from '../metrics/index.js';
import type { Db } from '../store/index.js';
import { backupName, pruneBackups, writeBackup } from './snapshot.js';

export interface BackupScheduleDeps {
  db: Db;
  clock: Clock;
  logger: Logger;
  dir: string;
  /** Cron expression, evaluated in UTC. */
  schedule: string;
  keep: number;
  release: () => string | null;
  metrics?: Metrics | undefined;
}

/**
 * One snapshot into `dir`, then the oldest beyond `keep` deleted. A failure is logged and
 * counted; the backups already there stay as they were.
 */
export async function backupOnce(deps: Omit<BackupScheduleDeps, 'schedule'>): Promise<boolean> {
  const now = new Date(deps.clock.now());
  const file = join(deps.dir, backupName(now));
  try {
    const manifest = await writeBackup(deps.db, file, { release: deps.release(), now });
    const pruned = pruneBackups(deps.dir, deps.keep);
    deps.metrics?.backups.inc({ result: 'ok' });
    deps.metrics?.lastBackup.set(now.getTime() / 1000);
    deps.logger.info(
      { file, bytes: manifest.bytes, migration: manifest.migration, pruned: pruned.length },
      'backup written',
    );
    return true;
  } catch (error) {
    deps.metrics?.backups.inc({ result: 'failed' });
    deps.logger.error({ err: error, file }, 'backup failed; the previous backups are kept');
    return false;
  }
}

/** The `backup.snapshot` job: snapshots on the cron schedule, never two at once. */
export function backupJob(deps: BackupScheduleDeps): Job {
  let cron: Cron | undefined;
  return {
    name: 'backup.snapshot',
    start() {
      cron ??= new Cron(deps.schedule, { timezone: 'UTC', protect: true }, async () => {
        await backupOnce(deps);
      });
    },
    async stop() {
      cron?.stop();
      cron = undefined;
    },
  };
}
