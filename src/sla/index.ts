import type { SlaCounter } from './counter.js';
import type { SlaService } from './service.js';
import type { StatusService } from './status.js';

/** What the HTTP application needs of the SLA feature. */
export interface SlaParts {
  counter: SlaCounter;
  service: SlaService;
  status: StatusService;
}

export { SlaCounter } from './counter.js';
export { createSla } from './parts.js';
export { Heartbeat } from './heartbeat.js';
export { createSlaService, CLOSE_DELAY_MS, type SlaService, type CloseResult } from './service.js';
export {
  createStatusService,
  COMPONENTS,
  INCIDENT_STATUSES,
  type StatusService,
  type StatusDocument,
  type Incident,
} from './status.js';
export { runProbe, probeOnce, PROBE_EVERY_MS, type ProbeResult } from './probe.js';
export {
  INTERVAL_MS,
  measure,
  monthOf,
  monthRange,
  parseBands,
  businessBands,
  enterpriseBands,
  creditPercent,
  creditCents,
  formatPercent,
  type CreditBand,
} from './measure.js';
export { setContractBands, contractBands } from './repo.js';
export { slaRoutes, slaSchemas } from './routes.js';
