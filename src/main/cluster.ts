import cluster, { type Worker } from 'node:cluster';
import { releaseFilesFor, type Config } from '../config/index.js';
import { systemClock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import { createReleaseService, ensureRelease } from '../releases/index.js';
import { openConfiguredDatabase } from './cli-database.js';

export class WorkersError extends Error {}

/** Why `serve --workers N` cannot run with this configuration, if it cannot. */
export function workersProblem(config: Config): string | undefined {
  if (config.redisUrl === undefined)
    return '--workers needs REDIS_URL: limits and caches must be shared between the processes';
  if (config.databaseUrl === undefined)
    return '--workers needs DATABASE_URL: the embedded database belongs to one process';
  return undefined;
}

const RESTART_DELAY_MS = 1000;

/**
 * The primary of `serve --workers N`: migrates and loads the bundled release once, then forks N
 * workers that share the listening port (node:cluster). A worker that dies is replaced (after
 * a second, so a crash loop does not spin); SIGTERM or SIGINT stops every worker gracefully,
 * then the primary.
 */
export async function runPrimary(config: Config, workers: number, logger: Logger): Promise<number> {
  const problem = workersProblem(config);
  if (problem !== undefined) throw new WorkersError(problem);
  const db = await openConfiguredDatabase(config, logger, 'server');
  try {
    await ensureRelease(
      createReleaseService({ db, clock: systemClock }),
      releaseFilesFor(config.releaseFile),
      logger,
    );
  } finally {
    await db.close();
  }

  let stopping = false;
  const fork = (): Worker => {
    const worker = cluster.fork();
    logger.info({ worker: worker.process.pid }, 'worker started');
    return worker;
  };
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) return;
    logger.error(
      { worker: worker.process.pid, code, signal },
      'worker died; starting a replacement',
    );
    setTimeout(() => {
      if (!stopping) fork();
    }, RESTART_DELAY_MS);
  });
  for (let i = 0; i < workers; i++) fork();
  logger.info({ workers, pid: process.pid }, 'primary started workers');

  return new Promise<number>((resolve) => {
    const stop = (signal: NodeJS.Signals): void => {
      if (stopping) return;
      stopping = true;
      logger.info({ signal }, 'stopping workers');
      const alive = Object.values(cluster.workers ?? {}).filter(
        (w): w is Worker => w !== undefined && !w.isDead(),
      );
      const force = setTimeout(() => {
        for (const w of alive) w.process.kill('SIGKILL');
        resolve(1);
      }, config.shutdownTimeoutMs + 2000);
      force.unref();
      let left = alive.length;
      if (left === 0) resolve(0);
      for (const w of alive) {
        w.once('exit', () => {
          if (--left === 0) {
            clearTimeout(force);
            logger.info({}, 'all workers stopped');
            resolve(0);
          }
        });
        w.process.kill('SIGTERM');
      }
    };
    process.on('SIGTERM', () => stop('SIGTERM'));
    process.on('SIGINT', () => stop('SIGINT'));
  });
}
