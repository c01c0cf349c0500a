export { admittedFromUsage } from './admitted.js';
export { UsageRecorder } from './recorder.js';
export { createUsageService, type UsageService } from './service.js';
export { usageRoutes } from './routes.js';
