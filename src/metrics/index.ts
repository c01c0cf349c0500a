export { Metrics, type LimitOutcome, type ObserveRequest } from './metrics.js';
export { registerSources, type MetricSources } from './sources.js';
export { metricsApp, metricsRoute, tokenMatcher } from './routes.js';
