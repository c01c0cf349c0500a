export { dashboardRoutes } from './routes.js';
export type { DashboardDeps } from './context.js';
export * as dashboardViews from './view-models.js';
