import { Readable, Writable } from 'node:stream';
import type { ByteRange } from '../http/byte-range.js';
import type { Db, Queryable } from '../store/index.js';
import { DeliveryError } from './delivery-error.js';
import { EXPORT_STORAGE_CAP_BYTES } from './types.js';

/** A webhook-destination export's file, kept until `expiresAt`. */
export interface ExportFile {
  runId: string;
  accountId: string;
  fileName: string;
  contentType: string;
  bytes: number;
  sha256: string;
  expiresAt: string;
  /**
   * The file's bytes, or those of `range` (within the file): read part by part from the
   * database as they are sent (older files: one buffer). The stream fails, rather than ends,
   * when the parts hold fewer bytes than asked (a retried run replaced the file meanwhile).
   */
  open(range?: ByteRange): Buffer | Readable;
}

/** Bytes per stored part: the most a file holds in memory while it is written or read. */
export const FILE_PART_BYTES = 256 * 1024;

/**
 * Where attempt `attempt` of run `runId` writes its file, a part at a time (each insert waited
 * for: backpressure). The file counts only once recorded by saveExportFile.
 */
export function exportFileWriter(
  db: Db,
  runId: string,
  attempt: number,
  capBytes = EXPORT_STORAGE_CAP_BYTES,
): Writable {
  let parts: Buffer[] = [];
  let held = 0;
  let seq = 0;
  let total = 0;
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
      total += chunk.length;
      if (total > capBytes) {
        done(
          new DeliveryError(
            `the file is larger than the ${capBytes / 1024 ** 3} GiB of export files an account may keep`,
            false,
          ),
        );
        return;
      }
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
 * of the run's other attempts go, and the account's oldest files beyond the cap.
 */
export async function saveExportFile(
  db: Db,
  f: Omit<ExportFile, 'open'> & { attempt: number },
  at: Date,
  capBytes = EXPORT_STORAGE_CAP_BYTES,
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
    await dropBeyondCap(tx, f.accountId, f.runId, at, capBytes);
  });
}

/**
 * Keeps the account's export files within `capBytes`: counting from `keep` (the file just
 * written) and then the newest, the files past the cap go with their parts, so the oldest are
 * dropped first, and those past their 7 days before any other.
 */
async function dropBeyondCap(
  tx: Queryable,
  accountId: string,
  keep: string,
  now: Date,
  capBytes: number,
): Promise<void> {
  await tx.query(
    `WITH beyond AS (
       SELECT run_id FROM (
         SELECT run_id, sum(bytes) OVER (
           ORDER BY run_id = $2 DESC, expires_at > $3 DESC, created_at DESC, run_id DESC
         ) AS kept
         FROM export_files WHERE account_id = $1
       ) f
       WHERE kept > $4 AND run_id <> $2
     ), files AS (
       DELETE FROM export_files WHERE run_id IN (SELECT run_id FROM beyond)
     )
     DELETE FROM export_file_parts WHERE run_id IN (SELECT run_id FROM beyond)`,
    [accountId, keep, now.toISOString(), capBytes],
  );
}

/**
 * Bytes `range.start` to `range.end` of a file's parts, in order, each part read when the
 * previous one has been taken. The parts before the range are skipped by their sizes alone.
 */
function partsOf(db: Queryable, runId: string, attempt: number, range: ByteRange): Readable {
  return Readable.from(
    (async function* () {
      let seq = 0;
      /** Position in the file of the next part's first byte. */
      let offset = 0;
      if (range.start > 0) {
        const sizes = await db.query<{ seq: number; size: number | string }>(
          `SELECT seq, octet_length(content) AS size FROM export_file_parts
           WHERE run_id = $1 AND attempt = $2 ORDER BY seq`,
          [runId, attempt],
        );
        for (const part of sizes) {
          const size = Number(part.size);
          if (part.seq !== seq || offset + size > range.start) break;
          offset += size;
          seq++;
        }
      }
      let sent = 0;
      for (; offset <= range.end; seq++) {
        const [part] = await db.query<{ content: Uint8Array }>(
          'SELECT content FROM export_file_parts WHERE run_id = $1 AND attempt = $2 AND seq = $3',
          [runId, attempt, seq],
        );
        if (part === undefined) break;
        const bytes = Buffer.from(
          part.content.buffer,
          part.content.byteOffset,
          part.content.byteLength,
        );
        const from = Math.max(range.start - offset, 0);
        const to = Math.min(range.end + 1 - offset, bytes.length);
        if (to > from) {
          sent += to - from;
          yield bytes.subarray(from, to);
        }
        offset += bytes.length;
      }
      const wanted = range.end + 1 - range.start;
      if (sent !== wanted)
        throw new Error(`export file ${runId}: ${sent} of ${wanted} bytes found (file replaced?)`);
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
  const bytes = Number(r.bytes);
  const { content } = r;
  const whole: ByteRange = { start: 0, end: bytes - 1 };
  return {
    runId: r.run_id,
    accountId: r.account_id,
    fileName: r.file_name,
    contentType: r.content_type,
    bytes,
    sha256: r.sha256,
    expiresAt: new Date(r.expires_at).toISOString(),
    open: (range = whole) =>
      content === null
        ? partsOf(db, r.run_id, r.parts_attempt ?? 0, range)
        : Buffer.from(content.buffer, content.byteOffset, content.byteLength).subarray(
            range.start,
            range.end + 1,
          ),
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
