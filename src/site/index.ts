export { siteRoutes, type SiteDeps } from './routes.js';
export { PRODUCT_NAME } from './brand.js';
export { PAGE_CSP } from './layout.js';
export { siteSettings } from './settings.js';
