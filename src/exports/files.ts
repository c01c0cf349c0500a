import type { Queryable } from '../store/index.js';

/** A webhook-destination export's file, kept until `expiresAt`. */
export interface ExportFile {
  runId: string;
  accountId: string;
  fileName: string;
  contentType: string;
  content: Buffer;
  bytes: number;
  sha256: string;
  expiresAt: string;
}

/** Stores (or, on a retried run, replaces) a run's file. */
export async function saveExportFile(db: Queryable, f: ExportFile, at: Date): Promise<void> {
  await db.query(
    `INSERT INTO export_files (run_id, account_id, file_name, content_type, content, bytes, sha256, expires_at, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
     ON CONFLICT (run_id) DO UPDATE SET file_name = $3, content_type = $4, content = $5,
       bytes = $6, sha256 = $7, expires_at = $8, created_at = $9`,
    [
      f.runId,
      f.accountId,
      f.fileName,
      f.contentType,
      f.content,
      f.bytes,
      f.sha256,
      f.expiresAt,
      at.toISOString(),
    ],
  );
}

/** A run's file while it is kept. */
export async function findExportFile(
  db: Queryable,
  runId: string,
  now: Date,
): Promise<ExportFile | undefined> {
  const [r] = await db.query<{
    run_id: string;
    account_id: string;
    file_name: string;
    content_type: string;
    content: Uint8Array;
    bytes: string | number;
    sha256: string;
    expires_at: Date | string;
  }>(
    `SELECT run_id, account_id, file_name, content_type, content, bytes, sha256, expires_at
     FROM export_files WHERE run_id = $1 AND expires_at > $2`,
    [runId, now.toISOString()],
  );
  if (r === undefined) return undefined;
  return {
    runId: r.run_id,
    accountId: r.account_id,
    fileName: r.file_name,
    contentType: r.content_type,
    content: Buffer.from(r.content.buffer, r.content.byteOffset, r.content.byteLength),
    bytes: Number(r.bytes),
    sha256: r.sha256,
    expiresAt: new Date(r.expires_at).toISOString(),
  };
}

/** Deletes files past their 7 days; returns how many. */
export async function purgeExpiredExportFiles(db: Queryable, now: Date): Promise<number> {
  const rows = await db.query('DELETE FROM export_files WHERE expires_at <= $1 RETURNING run_id', [
    now.toISOString(),
  ]);
  return rows.length;
}
