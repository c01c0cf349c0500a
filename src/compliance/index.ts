export {
  createComplianceDocuments,
  stampText,
  type ComplianceDocuments,
  type PublicDocument,
} from './documents.js';
export {
  createDocumentStore,
  MAX_DOCUMENT_BYTES,
  type DocumentStore,
  type NewDocument,
} from './store.js';
export {
  createAccessReviews,
  reviewPeriod,
  type AccessReview,
  type AccessReviews,
} from './access-review.js';
export { PdfPool } from './pdf-pool.js';
export { complianceRoutes, complianceSchemas } from './routes.js';
export { reviewCsv, reviewReport } from './review-render.js';
export type { DocumentRow } from './repo.js';
export { createCompliance, type ComplianceParts } from './parts.js';
