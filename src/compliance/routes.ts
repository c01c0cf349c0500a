import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { problemResponses } from '../http/openapi-responses.js';
import { StringEnum } from '../lib/string-enum.js';
import type { AccessReviews } from './access-review.js';
import type { ComplianceDocuments } from './documents.js';
import { DOCUMENT_EXAMPLE, DOCUMENT_LIST_EXAMPLE } from './examples.js';
import type { PdfPool } from './pdf-pool.js';
import { reviewCsv, reviewReport } from './review-render.js';
import { AccessReviewSchema } from './review-schema.js';

export const ComplianceDocumentSchema = Type.Object(
  {
    id: Type.String(),
    series: Type.String({ description: 'The report this is a version of, e.g. `soc2-type2`.' }),
    version: Type.Integer({ minimum: 1 }),
    current: Type.Boolean({ description: 'The newest version of its series still in force.' }),
    title: Type.String(),
    description: Type.Union([Type.String(), Type.Null()]),
    period_start: Type.String({ format: 'date', description: 'The period the report covers.' }),
    period_end: Type.String({ format: 'date' }),
    file_name: Type.String(),
    size_bytes: Type.Integer(),
    page_count: Type.Integer(),
    added_at: Type.String({ format: 'date-time' }),
    download_url: Type.String(),
  },
  { $id: 'ComplianceDocument', additionalProperties: false, examples: [DOCUMENT_EXAMPLE] },
);

const REVIEW_FORMATS = ['json', 'csv', 'pdf'] as const;
const MEDIA = {
  json: 'application/json; charset=utf-8',
  csv: 'text/csv; charset=utf-8',
  pdf: 'application/pdf',
};

/** The format asked for by `format=`, else by Accept (CSV or PDF named there), else JSON. */
function reviewFormat(
  format: string | undefined,
  accept: string | undefined,
): 'json' | 'csv' | 'pdf' {
  if (format !== undefined) return format as 'json' | 'csv' | 'pdf';
  const a = accept ?? '';
  if (/application\/pdf/i.test(a)) return 'pdf';
  if (/text\/csv/i.test(a)) return 'csv';
  return 'json';
}

export interface ComplianceRoutesOptions {
  documents: ComplianceDocuments;
  reviews: AccessReviews;
  pdf: PdfPool;
}

export const complianceRoutes: FastifyPluginAsyncTypebox<ComplianceRoutesOptions> = async (
  app,
  opts,
) => {
  const { documents, reviews, pdf } = opts;
  const tags = ['Compliance'];
  const auth = { auth: { access: 'account', scope: 'compliance:read' } } as const;

  app.get(
    '/api/v1/compliance/documents',
    {
      schema: {
        operationId: 'listComplianceDocuments',
        tags,
        summary: 'Compliance documents (Enterprise)',
        description:
          'The SOC 2 reports, penetration-test summaries and other documents the operator publishes to Enterprise accounts, every version still in force (`current` marks the newest of each series). Withdrawn versions are not listed.',
        response: {
          200: Type.Object(
            { data: Type.Array(Type.Ref('ComplianceDocument')) },
            { examples: [DOCUMENT_LIST_EXAMPLE] },
          ),
          ...problemResponses(401, 403),
        },
      },
      config: auth,
    },
    async (request) => ({ data: await documents.list(request.principal) }),
  );

  app.get(
    '/api/v1/compliance/documents/:id',
    {
      schema: {
        operationId: 'downloadComplianceDocument',
        tags,
        summary: 'Download a compliance document, stamped for the account (Enterprise)',
        description:
          'The PDF, with every page stamped "Confidential — provided to <account> (<account id>) on <date> UTC, copy <copy id>". Each download is a new copy with its own id, recorded in the audit log (`compliance.document_downloaded`). The unstamped original is never served. A withdrawn document answers 410 naming the current version.',
        params: Type.Object({ id: Type.String({ pattern: '^cdoc_[A-Za-z0-9_-]{1,40}$' }) }),
        response: {
          200: {
            description: 'The stamped PDF.',
            content: { 'application/pdf': { schema: { type: 'string', format: 'binary' } } },
          },
          ...problemResponses(401, 403, 404, 410, 429, 503),
        },
      },
      config: auth,
    },
    async (request, reply) => {
      const leave = await app.downloads.enter(request.principal.limitBucket);
      try {
        const copy = await documents.download(request.principal, request.params.id, request.ip);
        return await reply
          .header('content-type', 'application/pdf')
          .header('content-disposition', `attachment; filename="${copy.fileName}"`)
          .header('cache-control', 'no-store')
          .header('x-copy-id', copy.downloadId)
          .send(copy.bytes);
      } finally {
        leave();
      }
    },
  );

  app.get(
    '/api/v1/compliance/access-review',
    {
      schema: {
        operationId: 'getAccessReview',
        tags,
        summary: 'User access review from live data (Enterprise)',
        description:
          'SOC 2 evidence (CC6.1–CC6.3): every API key and OAuth client that existed during the period with scopes, allowlists, creation, last use, age and rotation; sessions; webhook and export destinations; and the verification of the hash-chained audit log over the period. JSON, CSV or PDF (`format=` or Accept). The period is `from` to `to` (ISO 8601 dates or times; default the last 90 days, at most 366). Generating one is recorded in the audit log.',
        querystring: Type.Object(
          {
            format: Type.Optional(StringEnum(REVIEW_FORMATS)),
            from: Type.Optional(Type.String({ maxLength: 40, description: 'Start (inclusive).' })),
            to: Type.Optional(
              Type.String({ maxLength: 40, description: 'End (exclusive); default now.' }),
            ),
          },
          { additionalProperties: false },
        ),
        response: {
          200: {
            description: 'The review.',
            content: {
              'application/json': { schema: Type.Ref('AccessReview') },
              'text/csv': { schema: { type: 'string' } },
              'application/pdf': { schema: { type: 'string', format: 'binary' } },
            },
          },
          ...problemResponses(400, 401, 403, 429, 503),
        },
      },
      // Its size grows with the period asked for: judged by its status alone (docs/sla.md).
      config: { ...auth, sla: { timed: false } },
    },
    async (request, reply) => {
      const format = reviewFormat(request.query.format, request.headers.accept);
      const review = await reviews.generate(
        request.principal,
        { from: request.query.from, to: request.query.to, format },
        request.ip,
      );
      reply.header('cache-control', 'no-store');
      if (format === 'json')
        return reply.header('content-type', MEDIA.json).send(JSON.stringify(review));
      const name = `access-review-${review.period.to.slice(0, 10)}-${review.id}`;
      reply.header('content-disposition', `attachment; filename="${name}.${format}"`);
      if (format === 'csv') return reply.header('content-type', MEDIA.csv).send(reviewCsv(review));
      const leave = await app.downloads.enter(request.principal.limitBucket);
      try {
        return await reply
          .header('content-type', MEDIA.pdf)
          .send(await pdf.report(reviewReport(review)));
      } finally {
        leave();
      }
    },
  );
};

export const complianceSchemas = [ComplianceDocumentSchema, AccessReviewSchema];
