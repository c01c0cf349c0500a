import { createHash } from 'node:crypto';
import { findAccount } from '../accounts/index.js';
import { recordAudit } from '../audit/index.js';
import { actorOf, type Principal } from '../auth/index.js';
import { AppError } from '../errors/index.js';
import type { Clock } from '../lib/clock.js';
import { prefixedId } from '../lib/ids.js';
import { findLicense } from '../licensing/index.js';
import { assertPlanHas, type Plan, type PlanId } from '../plans/index.js';
import type { Db } from '../store/index.js';
import type { PdfPool } from './pdf-pool.js';
import { documentById, documentContent, documentsVisibleTo, type DocumentRow } from './repo.js';

/** A document as an Enterprise account sees it. */
export interface PublicDocument {
  id: string;
  series: string;
  version: number;
  /** The newest version of its series that is not withdrawn. */
  current: boolean;
  title: string;
  description: string | null;
  period_start: string;
  period_end: string;
  file_name: string;
  size_bytes: number;
  page_count: number;
  added_at: string;
  download_url: string;
}

export function publicDocument(doc: DocumentRow, current: boolean): PublicDocument {
  return {
    id: doc.id,
    series: doc.series,
    version: doc.version,
    current,
    title: doc.title,
    description: doc.description,
    period_start: doc.periodStart,
    period_end: doc.periodEnd,
    file_name: doc.fileName,
    size_bytes: doc.sizeBytes,
    page_count: doc.pageCount,
    added_at: doc.addedAt,
    download_url: `/api/v1/compliance/documents/${doc.id}`,
  };
}

/** The stamp every served copy carries, on every page. */
export function stampText(recipient: string, accountId: string, at: Date, copy: string): string {
  const date = at.toISOString().slice(0, 16).replace('T', ' ');
  return `Confidential — provided to ${recipient} (${accountId}) on ${date} UTC, copy ${copy}`;
}

export interface StampedCopy {
  document: PublicDocument;
  downloadId: string;
  bytes: Buffer;
  /** The name the copy is saved under: series, version and copy id. */
  fileName: string;
}

export interface ComplianceDeps {
  db: Db;
  clock: Clock;
  plans: Readonly<Record<PlanId, Plan>>;
  pdf: PdfPool;
}

/** The newest version of each series that is not withdrawn. */
function currentIds(docs: readonly DocumentRow[]): Set<string> {
  const current = new Map<string, DocumentRow>();
  for (const doc of docs) {
    if (doc.withdrawnAt !== null) continue;
    const seen = current.get(doc.series);
    if (seen === undefined || seen.version < doc.version) current.set(doc.series, doc);
  }
  return new Set([...current.values()].map((d) => d.id));
}

/**
 * The customer's side of the operator's document store: list what the account may see,
 * download a copy stamped for it. Plan-gated (Enterprise); a document for another account is
 * not found, never forbidden, so its existence does not leak.
 */
export function createComplianceDocuments(deps: ComplianceDeps) {
  const { db, clock, plans, pdf } = deps;
  const gate = (principal: Principal) =>
    assertPlanHas(plans, principal.plan, (p) => p.complianceReports, 'Compliance reports');

  return {
    async list(principal: Principal): Promise<PublicDocument[]> {
      gate(principal);
      const docs = await documentsVisibleTo(db, principal.accountId as string);
      const current = currentIds(docs);
      return docs
        .filter((d) => d.withdrawnAt === null)
        .map((d) => publicDocument(d, current.has(d.id)));
    },

    /** A stamped copy; its download is in the audit log before a byte of it is sent. */
    async download(principal: Principal, id: string, ip: string): Promise<StampedCopy> {
      gate(principal);
      const accountId = principal.accountId as string;
      const doc = await documentById(db, id);
      if (doc === undefined || (doc.accountId !== null && doc.accountId !== accountId)) {
        throw new AppError('NOT_FOUND', `There is no compliance document ${id}.`);
      }
      const docs = await documentsVisibleTo(db, accountId);
      const current = currentIds(docs);
      if (doc.withdrawnAt !== null) {
        const replacement = docs.find((d) => d.series === doc.series && current.has(d.id));
        throw new AppError(
          'DOCUMENT_WITHDRAWN',
          `Compliance document ${id} (${doc.title}, version ${doc.version}) was withdrawn on ${doc.withdrawnAt.slice(0, 10)}${
            replacement === undefined ? '' : `; the current version is ${replacement.id}`
          }.`,
          {
            extensions: {
              withdrawn_at: doc.withdrawnAt,
              current_version_id: replacement?.id ?? null,
            },
          },
        );
      }
      const [content, recipient] = await Promise.all([
        documentContent(db, id),
        recipientOf(db, accountId),
      ]);
      if (content === undefined)
        throw new AppError('NOT_FOUND', `There is no compliance document ${id}.`);
      const at = new Date(clock.now());
      const downloadId = prefixedId('copy');
      const bytes = await pdf.stamp(content, stampText(recipient, accountId, at, downloadId));
      await db.transaction((tx) =>
        recordAudit(tx, {
          accountId,
          actor: actorOf(principal),
          action: 'compliance.document_downloaded',
          data: {
            document_id: doc.id,
            series: doc.series,
            version: doc.version,
            title: doc.title,
            download_id: downloadId,
            recipient,
            original_sha256: doc.sha256,
            copy_sha256: createHash('sha256').update(bytes).digest('hex'),
          },
          ip,
          at,
        }),
      );
      return {
        document: publicDocument(doc, current.has(doc.id)),
        downloadId,
        bytes,
        fileName: `${doc.series}-v${doc.version}-${downloadId}.pdf`,
      };
    },
  };
}

export type ComplianceDocuments = ReturnType<typeof createComplianceDocuments>;

/**
 * Whom a copy is stamped for: the licensee named in the account's data licence when the operator
 * recorded one (read at the download, so a licence changed a moment ago counts), otherwise the
 * account's e-mail address.
 */
export async function recipientOf(db: Db, accountId: string): Promise<string> {
  const [license, account] = await Promise.all([
    findLicense(db, accountId),
    findAccount(db, accountId),
  ]);
  return license?.licensee ?? account?.email ?? accountId;
}
