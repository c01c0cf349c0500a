export { LicenseRegistry, normalHost } from './registry.js';
export {
  createLicenseService,
  licenseProblems,
  licenseView,
  type LicenseInput,
  type LicenseService,
  type LicenseView,
} from './service.js';
export { licenseRoutes, licenseeDocuments, LicenseSchema } from './routes.js';
export { findLicense, type LicenseRow } from './repo.js';
