import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import { MemoryRateLimiter, RedisRateLimiter, type RateLimiter } from '../limits/index.js';
import type { Plan, PlanId } from '../plans/index.js';
import type { Db } from '../store/index.js';
import { AddressCounts } from './address-counts.js';
import { admittedFromUsage, seedFromUsage, type QuotaEndpoints } from './admitted.js';
import { UsageRecorder } from './recorder.js';
import { createUsageService } from './service.js';

/**
 * Usage of an API process: the recorder counting every answer (its flush is a job of the API
 * role), the reports, and the limiter's floor from usage: a Redis limiter rebuilds lost shared
 * counters from it; an in-process one starts from it (`restoreLimits`) and keeps anonymous
 * callers' counts in the database across a restart.
 */
export function createUsage(deps: {
  db: Db;
  clock: Clock;
  logger: Logger;
  limiter: RateLimiter;
  plans: Readonly<Record<PlanId, Plan>>;
  secretKey: string;
  /** Every route's declared quota cost, filled as the routes are registered. */
  quotaEndpoints: QuotaEndpoints;
  /** Also written with each flush (keys' last-use times). */
  alsoOnFlush: (db: Db) => Promise<void>;
}) {
  const { db, clock, logger, limiter, quotaEndpoints } = deps;
  const addressCounts =
    limiter instanceof MemoryRateLimiter
      ? new AddressCounts({ clock, limiter, secretKey: deps.secretKey })
      : undefined;
  const recorder = new UsageRecorder(db, deps.alsoOnFlush, addressCounts);
  if (limiter instanceof RedisRateLimiter)
    limiter.reconcileWith(admittedFromUsage(db, recorder, quotaEndpoints));
  return {
    recorder,
    service: createUsageService({ db, clock, limiter, recorder, plans: deps.plans }),
    /**
     * Once the routes are registered (their quota costs known): an in-process limiter starts
     * from what today's usage already spent, and anonymous callers from their stored counts.
     */
    async restoreLimits(): Promise<void> {
      if (!(limiter instanceof MemoryRateLimiter)) return;
      const seeded = await seedFromUsage(db, quotaEndpoints, limiter, clock.now());
      if (seeded > 0) logger.info({ accounts: seeded }, "limit counters raised to today's usage");
      const addresses = await addressCounts?.seed(db);
      if (addresses !== undefined && addresses > 0)
        logger.info({ addresses }, 'anonymous limit counters kept from before the restart');
    },
  };
}

export type UsageParts = ReturnType<typeof createUsage>;
