export {
  RELEASE_FORMAT,
  ReleaseHeaderSchema,
  ReleaseRecordSchema,
  type ReleaseHeader,
  type ReleaseRecord,
  type RecordBasis,
} from './format.js';
export { readReleaseFile, parseRelease, ReleaseValidationError, type ParsedRelease } from './parse.js';
export {
  createReleaseService,
  ReleaseConflictError,
  ReleaseRetireError,
  type ReleaseService,
  type LoadResult,
  type DataUpdatedEvent,
  type EventHook,
} from './service.js';
export { insertEvent, type ReleaseRow } from './repo.js';
export { compareReleaseVersions } from './version.js';
export { ensureRelease } from './ensure.js';
export {
  diffReleases,
  summarise,
  relative,
  CHANGE_REASONS,
  type CellChange,
  type ChangeReason,
  type ChangeSummary,
  type ReleaseDiff,
} from './diff.js';
export {
  createReleaseCatalog,
  type ReleaseCatalog,
  type ReleaseView,
  type ChangesView,
} from './catalog.js';
export { releaseRoutes } from './routes.js';
