export { SalaryDataStore } from './data-store.js';
export { SalaryIndex } from './salary-index.js';
export {
  createSalaryService,
  type SalaryResult,
  type SalaryService,
  type Selection,
} from './service.js';
export { LOOKUP_AUTH, SALARY_QUOTA, salaryResponses, salaryRoutes } from './routes.js';
export { negotiateFormat } from './format.js';
export { JSON_TYPE } from './render.js';
export { salaryFileStream, type SalaryFileStream } from './file-stream.js';
export {
  HistoryQuerySchema,
  SalaryQuerySchema,
  VintageQuery,
  SalaryResponseSchema,
  type SalaryQuery,
  type SalaryResponse,
} from './schemas.js';
export { EXTRA_FIELD_NAMES, FULL_TIME_HOURS_PER_YEAR } from './fields.js';
export {
  SCHEMA_SOURCE_FIELDS,
  schemaProblems,
  withSchemaFields,
  type CustomSchema,
} from './custom-schema.js';
export { FileCache, FILE_CACHE_BYTES, type CachedFile } from './file-cache.js';
export { type Labelling } from './render.js';
export {
  createSalaryResponder,
  type SalaryResponder,
  type SalaryResponderOptions,
} from './responder.js';
export { SalaryMetaSchema, SalaryRecordSchema, type SalaryMeta } from './schemas.js';
export { SALARY_COLUMNS } from './table.js';
export { EXTRA_FIELDS } from './fields.js';
export {
  createPayPositionService,
  type PayPosition,
  type PayPositionQuery,
  type PayPositionResult,
  type PayPositionService,
} from './position.js';
export { BANDS, percentileOf, type Band } from './position-model.js';
export { PositionQuerySchema, PositionResponseSchema, positionRoutes } from './position-routes.js';
export { labelled } from './render.js';
export { applySchema } from './custom-schema.js';
export { salaryTable } from './table.js';
