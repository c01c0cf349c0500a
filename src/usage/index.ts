export { admittedFromUsage, QuotaEndpoints, seedFromUsage } from './admitted.js';
export { UsageRecorder } from './recorder.js';
export { createUsageService, type UsageQuota, type UsageService } from './service.js';
export type { UsageColumn, UsageRow } from './repo.js';
export { usageRoutes } from './routes.js';
export { AddressCounts } from './address-counts.js';
export { createUsage, type UsageParts } from './parts.js';
export { usageObserver } from './observer.js';
