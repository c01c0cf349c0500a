export { Metrics, type LimitOutcome, type ObserveRequest } from './metrics.js';
export { registerSources, type MetricSources } from './sources.js';
export { metricsRoute, metricsServer, tokenMatcher } from './routes.js';
