import type { Config } from '../config/index.js';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import type { ChangeBus, Db } from '../store/index.js';
import { accountServices } from './account-services.js';

/**
 * The account, key and billing services an operator command uses, over one database. Unlike the
 * server's, the credential cache is not loaded: a command only writes through it, and the
 * running instances hear of what it changed through `bus` (or their next poll).
 */
export function commandServices(
  config: Config,
  deps: { clock: Clock; logger: Logger; db: Db; bus: ChangeBus },
) {
  const { clock, logger, db, bus } = deps;
  let announced = false;
  return {
    ...accountServices(config, {
      clock,
      logger,
      db,
      onChange: () => {
        announced = true;
      },
    }),
    /** Tells the running instances once that credentials changed, if they did. */
    async announce(): Promise<void> {
      if (announced) await bus.publish('credentials');
    },
  };
}
