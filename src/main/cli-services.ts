import { bankTransferCollector } from '../billing/index.js';
import type { Config } from '../config/index.js';
import { CredentialCache } from '../keys/index.js';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import { resolvePlans } from '../plans/index.js';
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
  const plans = resolvePlans(config.planOverrides);
  let announced = false;
  const cache = new CredentialCache({
    db,
    clock,
    plans,
    logger,
    onChange: () => {
      announced = true;
    },
  });
  return {
    plans,
    ...accountServices(config, {
      clock,
      logger,
      db,
      plans,
      cache,
      collector: bankTransferCollector,
    }),
    /** Tells the running instances once that credentials changed, if they did. */
    async announce(): Promise<void> {
      if (announced) await bus.publish('credentials');
    },
  };
}
