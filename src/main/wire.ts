import pino from 'pino';
import type { CredentialResolver } from '../auth/index.js';
import { noCredentialsIssued } from '../auth/index.js';
import type { Config } from '../config/index.js';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import { MemoryRateLimiter, type RateLimiter } from '../limits/index.js';
import { resolvePlans } from '../plans/index.js';
import { createReleaseService, readReleaseFile, type ReleaseService } from '../releases/index.js';
import { createSalaryService, SalaryDataStore } from '../salary/index.js';
import { migrate, openDatabase, type Db } from '../store/index.js';
import { buildApp } from '../http/app.js';
import { databaseCheck } from '../http/health-routes.js';

export function createLogger(config: Config): pino.Logger {
  return pino({ level: config.logLevel, base: { service: 'salary-api' } });
}

/** Opens the database named by the configuration and brings its schema up to date. */
export async function openMigratedDatabase(config: Config, logger: Logger): Promise<Db> {
  const db = await openDatabase(config);
  try {
    const applied = await migrate(db);
    if (applied.length > 0) logger.info({ migrations: applied }, 'migrations applied');
    return db;
  } catch (error) {
    await db.close();
    throw error;
  }
}

/** On first start (no release in the database yet) the bundled release is loaded. */
export async function ensureRelease(
  releases: ReleaseService,
  file: string,
  logger: Logger,
): Promise<void> {
  if ((await releases.activeId()) !== undefined) return;
  const parsed = await readReleaseFile(file);
  const result = await releases.load(parsed);
  logger.info(
    { release: result.release.version, records: parsed.records.length, file },
    'bundled data release loaded',
  );
}

export interface Server {
  listen(): Promise<string>;
  close(): Promise<void>;
}

/** Wires every part of the API process together over one database. */
export async function createServer(
  config: Config,
  deps: {
    clock: Clock;
    logger: pino.Logger;
    db: Db;
    limiter?: RateLimiter;
    credentials?: CredentialResolver;
  },
): Promise<Server & { app: Awaited<ReturnType<typeof buildApp>> }> {
  const { clock, logger, db } = deps;
  const plans = resolvePlans(config.planOverrides);
  const releases = createReleaseService({ db, clock });
  await ensureRelease(releases, config.releaseFile, logger);
  const data = new SalaryDataStore(releases, logger);
  await data.refresh();
  data.watch(config.releasePollMs);
  const limiter = deps.limiter ?? new MemoryRateLimiter();
  if (config.redisUrl !== undefined) {
    logger.warn(
      'REDIS_URL is set, but this version keeps limits in process (one instance is exact; shared limits come with the Redis limiter)',
    );
  }
  const app = await buildApp({
    config,
    clock,
    plans,
    limiter,
    credentials: deps.credentials ?? noCredentialsIssued,
    data,
    salary: createSalaryService({ data, plans }),
    readiness: [databaseCheck(db)],
    logger: logger,
  });
  return {
    app,
    listen: () => app.listen({ port: config.port, host: config.host }),
    async close() {
      data.stop();
      await app.close();
      await limiter.close();
    },
  };
}
