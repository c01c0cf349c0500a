import type { Clock } from '../lib/clock.js';
import { holderId } from '../lib/ids.js';
import type { Logger } from '../lib/logger.js';
import type { Plan, PlanId } from '../plans/index.js';
import type { Db } from '../store/index.js';
import { SlaCounter } from './counter.js';
import { createSlaService, type AccountEventPublisher } from './service.js';
import { createStatusService, type ServiceEventPublisher } from './status.js';

/**
 * The uptime SLA of a process (docs/sla.md): the per-interval counts (flushed by the API role),
 * the month close and the customer's report, the status page. `instanceId` names this process
 * in the month-close lease and in its heartbeats.
 */
export function createSla(deps: {
  db: Db;
  clock: Clock;
  logger: Logger;
  plans: Readonly<Record<PlanId, Plan>>;
  /** Records an account's event (`sla.credit`) with its webhook deliveries. */
  publishAccount: AccountEventPublisher;
  /** Records a service event (incidents, maintenance) with its webhook deliveries. */
  publishService: ServiceEventPublisher;
}) {
  const { db, clock } = deps;
  const instanceId = holderId();
  const counter = new SlaCounter(db);
  return {
    instanceId,
    counter,
    service: createSlaService({
      db,
      clock,
      plans: deps.plans,
      logger: deps.logger,
      publish: deps.publishAccount,
      counter,
      holder: instanceId,
    }),
    status: createStatusService({ db, clock, publish: deps.publishService }),
  };
}
