export {
  createExportService,
  MAX_EXPORTS,
  type ExportService,
  type PublicExport,
  type PublicRun,
} from './service.js';
export {
  createExportWorker,
  RUN_HEARTBEAT_MS,
  RUN_LEASE_MS,
  RUN_MAX_ATTEMPTS,
  RUN_RETRY_DELAYS_MS,
  type ExportWorker,
} from './worker.js';
export { createRunner } from './runner.js';
export { hostKeyFingerprint } from './sftp.js';

export {
  exportRoutes,
  exportSchemas,
  ExportNameSchema,
  ExportScheduleSchema,
  ExportTimezoneSchema,
} from './routes.js';
export { createDownloadLinks, type DownloadLinks } from './download-link.js';
export { findExportFile, purgeExpiredExportFiles, type ExportFile } from './files-repo.js';
export { EXPORT_FORMATS, type DestinationInput, type ExportQuery } from './types.js';
export type { ExportInput } from './service.js';
