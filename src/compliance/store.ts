import { createHash } from 'node:crypto';
import { basename } from 'node:path';
import { findAccountByEmail } from '../accounts/index.js';
import { recordAudit } from '../audit/index.js';
import { AppError } from '../errors/index.js';
import type { Clock } from '../lib/clock.js';
import { prefixedId } from '../lib/ids.js';
import type { Db } from '../store/index.js';
import {
  allDocuments,
  documentById,
  insertDocument,
  withdrawDocument,
  type DocumentRow,
} from './repo.js';

/** The largest document the store takes: a SOC 2 report is a few megabytes. */
export const MAX_DOCUMENT_BYTES = 50 * 1024 * 1024;
const SERIES = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

export interface NewDocument {
  content: Uint8Array;
  /** The file's name as added; only its base name is kept. */
  fileName: string;
  title: string;
  /** Groups the versions of one report (`soc2-type2`); from the title when omitted. */
  series?: string | undefined;
  description?: string | undefined;
  periodStart: string;
  periodEnd: string;
  /** Only this account (by e-mail) may see it; every Enterprise account when omitted. */
  accountEmail?: string | undefined;
}

function invalid(name: string, reason: string): AppError {
  return new AppError('INVALID_PARAMETER', `${name}: ${reason}`, {
    extensions: { invalid_params: [{ name, reason }] },
  });
}

function validDate(name: string, value: string): string {
  const date = new Date(`${value}T00:00:00Z`);
  if (
    !DATE.test(value) ||
    Number.isNaN(date.getTime()) ||
    date.toISOString().slice(0, 10) !== value
  )
    throw invalid(name, `"${value}" is not a date (YYYY-MM-DD)`);
  return value;
}

export function seriesOf(title: string): string {
  return (
    title
      .normalize('NFKD')
      .replace(/\p{M}/gu, '')
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 80)
      .replace(/-+$/, '') || 'document'
  );
}

/**
 * The operator's document store (the CLI): add a version, list every version, withdraw one.
 * A document is checked before it is stored: a readable, unencrypted PDF that can be stamped,
 * so no download can fail on it later. Each change is in the audit log.
 */
export function createDocumentStore(deps: { db: Db; clock: Clock }) {
  const { db, clock } = deps;
  return {
    async add(input: NewDocument): Promise<DocumentRow> {
      const title = input.title.trim();
      if (title.length === 0 || title.length > 200)
        throw invalid('title', 'must be 1 to 200 characters');
      const series = input.series ?? seriesOf(title);
      if (!SERIES.test(series) || series.length > 80)
        throw invalid(
          'series',
          `"${series}" must be lower-case words joined by hyphens, at most 80 characters`,
        );
      const description = input.description?.trim() || null;
      if (description !== null && description.length > 2000)
        throw invalid('description', 'at most 2,000 characters');
      const periodStart = validDate('period-start', input.periodStart);
      const periodEnd = validDate('period-end', input.periodEnd);
      if (periodEnd < periodStart) throw invalid('period-end', 'is before period-start');
      if (input.content.byteLength > MAX_DOCUMENT_BYTES)
        throw invalid('FILE', `larger than ${MAX_DOCUMENT_BYTES / 1024 / 1024} MiB`);
      if (Buffer.from(input.content.subarray(0, 5)).toString('latin1') !== '%PDF-')
        throw invalid('FILE', 'not a PDF (it does not start with %PDF-)');
      // pdf-lib is loaded on first use (about 0.3 s), not with the server.
      const { openPdf, stampPdf, UnusablePdfError } = await import('./stamp.js');
      let pageCount: number;
      try {
        pageCount = (await openPdf(input.content)).getPageCount();
        if (pageCount === 0) throw new UnusablePdfError('the PDF has no pages');
        await stampPdf(input.content, 'Confidential — stamp check');
      } catch (error) {
        if (error instanceof UnusablePdfError) throw invalid('FILE', error.message);
        throw invalid('FILE', `cannot be stamped (${(error as Error).message})`);
      }
      let accountId: string | null = null;
      if (input.accountEmail !== undefined) {
        const account = await findAccountByEmail(db, input.accountEmail);
        if (account === undefined)
          throw invalid('account', `no account with e-mail ${input.accountEmail}`);
        accountId = account.id;
      }
      const at = new Date(clock.now());
      return db.transaction(async (tx) => {
        const doc = await insertDocument(
          tx,
          {
            id: prefixedId('cdoc'),
            series,
            title,
            description,
            periodStart,
            periodEnd,
            accountId,
            fileName: basename(input.fileName).slice(0, 200),
            sha256: createHash('sha256').update(input.content).digest('hex'),
            sizeBytes: input.content.byteLength,
            pageCount,
            addedAt: at.toISOString(),
          },
          input.content,
        );
        await recordAudit(tx, {
          accountId,
          actor: 'operator',
          action: 'compliance.document_added',
          data: { document_id: doc.id, series, version: doc.version, title, sha256: doc.sha256 },
          at,
        });
        return doc;
      });
    },

    list: (): Promise<DocumentRow[]> => allDocuments(db),

    async withdraw(id: string, reason: string | undefined): Promise<DocumentRow> {
      const at = new Date(clock.now());
      return db.transaction(async (tx) => {
        const doc = await withdrawDocument(tx, id, at.toISOString(), reason?.trim() || null);
        if (doc === undefined) {
          const existing = await documentById(tx, id);
          throw new AppError(
            'NOT_FOUND',
            existing === undefined
              ? `There is no compliance document ${id}.`
              : `Compliance document ${id} was already withdrawn on ${existing.withdrawnAt}.`,
          );
        }
        await recordAudit(tx, {
          accountId: doc.accountId,
          actor: 'operator',
          action: 'compliance.document_withdrawn',
          data: {
            document_id: id,
            series: doc.series,
            version: doc.version,
            reason: doc.withdrawnReason,
          },
          at,
        });
        return doc;
      });
    },
  };
}

export type DocumentStore = ReturnType<typeof createDocumentStore>;
