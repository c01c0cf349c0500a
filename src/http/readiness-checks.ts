import { pingDatabase, type Db } from '../store/index.js';
import type { ReadinessCheck } from './health-routes.js';

/** The database answers a trivial query. */
export function databaseCheck(db: Db): ReadinessCheck {
  return { name: 'database', check: () => pingDatabase(db) };
}

/** Redis answers a PING. */
export function redisCheck(redis: { ping(): Promise<string> }): ReadinessCheck {
  return { name: 'redis', check: async () => void (await redis.ping()) };
}
