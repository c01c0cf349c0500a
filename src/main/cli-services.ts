import { createAccountService } from '../accounts/index.js';
import { bankTransferCollector, createSubscriptionService, runBilling } from '../billing/index.js';
import type { Config } from '../config/index.js';
import { CredentialCache, createKeyService } from '../keys/index.js';
import type { Clock } from '../lib/clock.js';
import { holderId } from '../lib/ids.js';
import type { Logger } from '../lib/logger.js';
import { resolvePlans } from '../plans/index.js';
import type { ChangeBus, Db } from '../store/index.js';

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
  const keys = createKeyService({ db, clock, plans, cache });
  const collector = bankTransferCollector;
  const { seller } = config;
  return {
    plans,
    accounts: createAccountService({ db, clock, plans, cache }),
    keys,
    subscriptions: createSubscriptionService({ db, clock, plans, keys, cache, collector, seller }),
    billing: () =>
      runBilling({ db, clock, plans, cache, collector, logger, seller, holder: holderId() }),
    /** Tells the running instances once that credentials changed, if they did. */
    async announce(): Promise<void> {
      if (announced) await bus.publish('credentials');
    },
  };
}
