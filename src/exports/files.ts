import { Readable, Writable } from 'node:stream';
import type { Db, Queryable } from '../store/index.js';

/** A webhook-destination export's file, kept until `expiresAt`. */
export interface ExportFile {
  runId: string;
  accountId: string;
  fileName: string;
  contentType: string;
  /** Read part by part from the database as it is sent (older files: one buffer). */
  content: Buffer | Readable;
  bytes: number;
  sha256: string;
  expiresAt: string;
}

/** Bytes per stored part: the most a file holds in memory while it is written or read. */
export const FILE_PART_BYTES = 256 * 1024;

/**
 * Where attempt `attempt` of run `runId` writes its file, a part at a time (each insert waited
 * for: backpressure). The file counts only once recorded by saveExportFile.
 */
export function exportFileWriter(db: Db, runId: string, attempt: number): Writable {
  let parts: Buffer[] = [];
  let held = 0;
  let seq = 0;
  const insert = async (content: Buffer) => {
    await db.query(
      'INSERT INTO export_file_parts (run_id, attempt, seq, content) VALUES ($1, $2, $3, $4)',
      [runId, attempt, seq++, content],
    );
  };
  const flush = async () => {
    if (held === 0) return;
    const content = Buffer.concat(parts, held);
    parts = [];
    held = 0;
    await insert(content);
  };
  let cleared: Promise<unknown> | null = null;
  const clear = () =>
    (cleared ??= db.query('DELETE FROM export_file_parts WHERE run_id = $1 AND attempt = $2', [
      runId,
      attempt,
    ]));
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      parts.push(chunk);
      held += chunk.length;
      const work = held >= FILE_PART_BYTES ? clear().then(flush) : clear();
      work.then(() => done(), done);
    },
    final(done) {
      clear()
        .then(flush)
        .then(() => done(), done);
    },
  });
}

/**
 * Records (or, on a retried run, replaces) a run's file, whose parts `attempt` wrote; the parts
 * of the run's other attempts go.
 */
export async function saveExportFile(
  db: Db,
  f: Omit<ExportFile, 'content'> & { attempt: number },
  at: Date,
): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.query(
      `INSERT INTO export_files (run_id, account_id, file_name, content_type, content, parts_attempt, bytes, sha256, expires_at, created_at)
       VALUES ($1, $2, $3, $4, NULL, $5, $6, $7, $8, $9)
       ON CONFLICT (run_id) DO UPDATE SET file_name = $3, content_type = $4, content = NULL,
         parts_attempt = $5, bytes = $6, sha256 = $7, expires_at = $8, created_at = $9`,
      [
        f.runId,
        f.accountId,
        f.fileName,
        f.contentType,
        f.attempt,
        f.bytes,
        f.sha256,
        f.expiresAt,
        at.toISOString(),
      ],
    );
    await tx.query('DELETE FROM export_file_parts WHERE run_id = $1 AND attempt <> $2', [
      f.runId,
      f.attempt,
    ]);
  });
}

/** The parts of a file in order, each read when the previous one has been taken. */
function partsOf(db: Queryable, runId: string, attempt: number): Readable {
  return Readable.from(
    (async function* () {
      for (let seq = 0; ; seq++) {
        const [part] = await db.query<{ content: Uint8Array }>(
          'SELECT content FROM export_file_parts WHERE run_id = $1 AND attempt = $2 AND seq = $3',
          [runId, attempt, seq],
        );
        if (part === undefined) return;
        yield Buffer.from(part.content.buffer, part.content.byteOffset, part.content.byteLength);
      }
    })(),
    { objectMode: false },
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
    content: Uint8Array | null;
    parts_attempt: number | null;
    bytes: string | number;
    sha256: string;
    expires_at: Date | string;
  }>(
    `SELECT run_id, account_id, file_name, content_type, content, parts_attempt, bytes, sha256, expires_at
     FROM export_files WHERE run_id = $1 AND expires_at > $2`,
    [runId, now.toISOString()],
  );
  if (r === undefined) return undefined;
  return {
    runId: r.run_id,
    accountId: r.account_id,
    fileName: r.file_name,
    contentType: r.content_type,
    content:
      r.content === null
        ? partsOf(db, r.run_id, r.parts_attempt ?? 0)
        : Buffer.from(r.content.buffer, r.content.byteOffset, r.content.byteLength),
    bytes: Number(r.bytes),
    sha256: r.sha256,
    expiresAt: new Date(r.expires_at).toISOString(),
  };
}

/**
 * Deletes files past their 7 days, and the parts of attempts that never finished a file (of
 * runs not running now); returns how many files.
 */
export async function purgeExpiredExportFiles(db: Queryable, now: Date): Promise<number> {
  const rows = await db.query('DELETE FROM export_files WHERE expires_at <= $1 RETURNING run_id', [
    now.toISOString(),
  ]);
  await db.query(
    `DELETE FROM export_file_parts p
     WHERE NOT EXISTS (SELECT 1 FROM export_files f WHERE f.run_id = p.run_id AND f.parts_attempt = p.attempt)
       AND NOT EXISTS (SELECT 1 FROM export_runs r WHERE r.id = p.run_id AND r.status = 'running')`,
  );
  return rows.length;
}
