import type { Clock } from '../lib/clock.js';
import type { Plan, PlanId } from '../plans/index.js';
import type { Db } from '../store/index.js';
import { createAccessReviews } from './access-review.js';
import { createComplianceDocuments } from './documents.js';
import { PdfPool } from './pdf-pool.js';

/**
 * Compliance documents and access reviews (Enterprise), their PDFs stamped and laid out in a
 * worker thread of their own (`pdf`, closed by its owner when the API stops).
 */
export function createCompliance(deps: {
  db: Db;
  clock: Clock;
  plans: Readonly<Record<PlanId, Plan>>;
}) {
  const pdf = new PdfPool();
  return {
    documents: createComplianceDocuments({ ...deps, pdf }),
    reviews: createAccessReviews(deps),
    pdf,
  };
}

export type ComplianceParts = ReturnType<typeof createCompliance>;
