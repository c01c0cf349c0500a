import {
  claimRows,
  claimSql,
  extendLease,
  jsonColumn,
  releaseClaims,
  settleClaimed,
  type Queryable,
  type QueueTable,
} from '../store/index.js';
import type { ExportQuery, PublicDestination } from './types.js';

type Time = Date | string;
const iso = (t: Time): string => new Date(t).toISOString();
const isoOrNull = (t: Time | null): string | null => (t === null ? null : iso(t));

export interface ExportRow {
  id: string;
  accountId: string;
  name: string;
  schedule: string;
  timezone: string;
  query: ExportQuery;
  format: string;
  compression: 'gzip' | null;
  destination: PublicDestination;
  secretEnc: string | null;
  nextRunAt: string;
  createdAt: string;
  updatedAt: string;
}

interface ExportDbRow {
  id: string;
  account_id: string;
  name: string;
  schedule: string;
  timezone: string;
  query: unknown;
  format: string;
  compression: string | null;
  destination: unknown;
  secret_enc: string | null;
  next_run_at: Time;
  created_at: Time;
  updated_at: Time;
}

const EXPORT_COLUMNS =
  'id, account_id, name, schedule, timezone, query, format, compression, destination, secret_enc, next_run_at, created_at, updated_at';

function toExport(r: ExportDbRow): ExportRow {
  return {
    id: r.id,
    accountId: r.account_id,
    name: r.name,
    schedule: r.schedule,
    timezone: r.timezone,
    query: jsonColumn(r.query) as ExportQuery,
    format: r.format,
    compression: r.compression === 'gzip' ? 'gzip' : null,
    destination: jsonColumn(r.destination) as PublicDestination,
    secretEnc: r.secret_enc,
    nextRunAt: iso(r.next_run_at),
    createdAt: iso(r.created_at),
    updatedAt: iso(r.updated_at),
  };
}

export type NewExport = Omit<ExportRow, 'createdAt' | 'updatedAt'>;

export async function insertExport(db: Queryable, e: NewExport, at: Date): Promise<ExportRow> {
  const rows = await db.query<ExportDbRow>(
    `INSERT INTO exports (id, account_id, name, schedule, timezone, query, format, compression,
       destination, secret_enc, next_run_at, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $12) RETURNING ${EXPORT_COLUMNS}`,
    [
      e.id,
      e.accountId,
      e.name,
      e.schedule,
      e.timezone,
      JSON.stringify(e.query),
      e.format,
      e.compression,
      JSON.stringify(e.destination),
      e.secretEnc,
      e.nextRunAt,
      at.toISOString(),
    ],
  );
  return toExport(rows[0]!);
}

/** Every column but the keys may change; the whole row is written back. */
export async function updateExport(db: Queryable, e: ExportRow, at: Date): Promise<ExportRow> {
  const rows = await db.query<ExportDbRow>(
    `UPDATE exports SET name = $2, schedule = $3, timezone = $4, query = $5, format = $6,
       compression = $7, destination = $8, secret_enc = $9, next_run_at = $10, updated_at = $11
     WHERE id = $1 RETURNING ${EXPORT_COLUMNS}`,
    [
      e.id,
      e.name,
      e.schedule,
      e.timezone,
      JSON.stringify(e.query),
      e.format,
      e.compression,
      JSON.stringify(e.destination),
      e.secretEnc,
      e.nextRunAt,
      at.toISOString(),
    ],
  );
  return toExport(rows[0]!);
}

export async function listExports(db: Queryable, accountId: string): Promise<ExportRow[]> {
  const rows = await db.query<ExportDbRow>(
    `SELECT ${EXPORT_COLUMNS} FROM exports WHERE account_id = $1 ORDER BY created_at, id`,
    [accountId],
  );
  return rows.map(toExport);
}

export async function countExports(db: Queryable, accountId: string): Promise<number> {
  const rows = await db.query<{ n: number | string }>(
    'SELECT count(*) AS n FROM exports WHERE account_id = $1',
    [accountId],
  );
  return Number(rows[0]?.n ?? 0);
}

export async function findExport(
  db: Queryable,
  id: string,
  accountId?: string,
): Promise<ExportRow | undefined> {
  const rows = await db.query<ExportDbRow>(
    `SELECT ${EXPORT_COLUMNS} FROM exports WHERE id = $1 AND ($2::text IS NULL OR account_id = $2)`,
    [id, accountId ?? null],
  );
  return rows[0] === undefined ? undefined : toExport(rows[0]);
}

export async function deleteExport(db: Queryable, accountId: string, id: string): Promise<void> {
  await db.query('DELETE FROM exports WHERE account_id = $1 AND id = $2', [accountId, id]);
}

export async function dueExports(db: Queryable, now: Date, limit: number): Promise<ExportRow[]> {
  const rows = await db.query<ExportDbRow>(
    `SELECT ${EXPORT_COLUMNS} FROM exports WHERE next_run_at <= $1 ORDER BY next_run_at LIMIT $2`,
    [now.toISOString(), limit],
  );
  return rows.map(toExport);
}

/** Moves the schedule on only if no other instance moved it first (compare and set). */
export async function advanceSchedule(
  db: Queryable,
  id: string,
  from: string,
  to: Date,
): Promise<boolean> {
  const rows = await db.query<{ id: string }>(
    'UPDATE exports SET next_run_at = $3 WHERE id = $1 AND next_run_at = $2 RETURNING id',
    [id, from, to.toISOString()],
  );
  return rows.length === 1;
}

export interface RunRow {
  id: string;
  exportId: string;
  accountId: string;
  trigger: 'schedule' | 'manual';
  scheduledAt: string;
  status: 'queued' | 'running' | 'succeeded' | 'failed';
  attempts: number;
  nextAttemptAt: string | null;
  startedAt: string | null;
  finishedAt: string | null;
  rows: number | null;
  bytes: number | null;
  sha256: string | null;
  fileName: string | null;
  error: string | null;
  createdAt: string;
}

interface RunDbRow {
  id: string;
  export_id: string;
  account_id: string;
  trigger: RunRow['trigger'];
  scheduled_at: Time;
  status: RunRow['status'];
  attempts: number;
  next_attempt_at: Time | null;
  started_at: Time | null;
  finished_at: Time | null;
  rows: number | null;
  bytes: number | string | null;
  sha256: string | null;
  file_name: string | null;
  error: string | null;
  created_at: Time;
}

const RUN_COLUMNS =
  'id, export_id, account_id, trigger, scheduled_at, status, attempts, next_attempt_at, started_at, finished_at, rows, bytes, sha256, file_name, error, created_at';

function toRun(r: RunDbRow): RunRow {
  return {
    id: r.id,
    exportId: r.export_id,
    accountId: r.account_id,
    trigger: r.trigger,
    scheduledAt: iso(r.scheduled_at),
    status: r.status,
    attempts: r.attempts,
    nextAttemptAt: isoOrNull(r.next_attempt_at),
    startedAt: isoOrNull(r.started_at),
    finishedAt: isoOrNull(r.finished_at),
    rows: r.rows,
    bytes: r.bytes === null ? null : Number(r.bytes),
    sha256: r.sha256,
    fileName: r.file_name,
    error: r.error,
    createdAt: iso(r.created_at),
  };
}

/** A run for one occurrence; undefined when that scheduled occurrence already has its run. */
export async function insertRun(
  db: Queryable,
  r: {
    id: string;
    exportId: string;
    accountId: string;
    trigger: RunRow['trigger'];
    scheduledAt: Date;
  },
  at: Date,
): Promise<RunRow | undefined> {
  const rows = await db.query<RunDbRow>(
    `INSERT INTO export_runs (id, export_id, account_id, trigger, scheduled_at, next_attempt_at,
       created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $6, $6)
     ON CONFLICT (export_id, scheduled_at) WHERE trigger = 'schedule' DO NOTHING
     RETURNING ${RUN_COLUMNS}`,
    [r.id, r.exportId, r.accountId, r.trigger, r.scheduledAt.toISOString(), at.toISOString()],
  );
  return rows[0] === undefined ? undefined : toRun(rows[0]);
}

/** The export's manual run that is queued or running, if any (at most one is). */
export async function pendingManualRun(
  db: Queryable,
  exportId: string,
): Promise<RunRow | undefined> {
  const rows = await db.query<RunDbRow>(
    `SELECT ${RUN_COLUMNS} FROM export_runs
     WHERE export_id = $1 AND trigger = 'manual' AND status IN ('queued', 'running') LIMIT 1`,
    [exportId],
  );
  return rows[0] === undefined ? undefined : toRun(rows[0]);
}

export async function findRun(
  db: Queryable,
  accountId: string,
  id: string,
): Promise<RunRow | undefined> {
  const rows = await db.query<RunDbRow>(
    `SELECT ${RUN_COLUMNS} FROM export_runs WHERE account_id = $1 AND id = $2`,
    [accountId, id],
  );
  return rows[0] === undefined ? undefined : toRun(rows[0]);
}

export async function listRuns(db: Queryable, exportId: string, limit: number): Promise<RunRow[]> {
  const rows = await db.query<RunDbRow>(
    `SELECT ${RUN_COLUMNS} FROM export_runs WHERE export_id = $1
     ORDER BY scheduled_at DESC, created_at DESC LIMIT $2`,
    [exportId, limit],
  );
  return rows.map(toRun);
}

/**
 * The `exports.run` queue's table: a run is queued, or running (an instance that died left it
 * so; its lease lapses); a claimed run is running, started at its first claim.
 */
const RUNS: QueueTable = {
  table: 'export_runs',
  open: ['queued', 'running'],
  onClaim: "status = 'running', started_at = COALESCE(started_at, $2)",
};

/** Claims up to `limit` due runs for `holder` until `leaseUntil` (store/queue-repo.ts). */
export async function claimDueRuns(
  db: Queryable,
  holder: string,
  now: Date,
  leaseUntil: Date,
  limit: number,
): Promise<RunRow[]> {
  const rows = await db.query<RunDbRow>(claimSql(RUNS, RUN_COLUMNS), [
    holder,
    now.toISOString(),
    leaseUntil.toISOString(),
    limit,
  ]);
  return rows.map(toRun);
}

export interface RunOutcome {
  status: 'queued' | 'succeeded' | 'failed';
  nextAttemptAt: Date | null;
  rows?: number;
  bytes?: number;
  sha256?: string;
  fileName?: string;
  error: string | null;
}

/** Records an attempt's outcome if `holder` still holds the run; false when it lost it. */
export function settleRun(
  db: Queryable,
  id: string,
  holder: string,
  o: RunOutcome,
  at: Date,
): Promise<boolean> {
  return settleClaimed(
    db,
    RUNS,
    id,
    holder,
    {
      status: o.status,
      next_attempt_at: o.nextAttemptAt,
      rows: o.rows,
      bytes: o.bytes,
      sha256: o.sha256,
      file_name: o.fileName,
      error: o.error,
      finished_at: o.status === 'queued' ? null : at,
    },
    at,
  );
}

/** Embedded mode, at start: runs left claimed by a process that stopped are due again now. */
export function releaseAllRunClaims(db: Queryable): Promise<number> {
  return releaseClaims(db, RUNS);
}

/**
 * The heartbeat of a long run: moves its lease on while `holder` still holds it, so no other
 * instance takes over an upload that is still going; false when the claim was lost.
 */
export function extendRunLease(
  db: Queryable,
  id: string,
  holder: string,
  leaseUntil: Date,
): Promise<boolean> {
  return extendLease(db, RUNS, id, holder, leaseUntil);
}

/** A run by its id alone (the worker's, which holds a claim on it or on its notice). */
export async function runById(db: Queryable, id: string): Promise<RunRow | undefined> {
  const rows = await db.query<RunDbRow>(`SELECT ${RUN_COLUMNS} FROM export_runs WHERE id = $1`, [
    id,
  ]);
  const r = rows[0];
  return r === undefined ? undefined : toRun(r);
}

/**
 * The `exports.notify-failure` queue's table: a webhook destination's `export.failed`, one per
 * failed run (keyed by the run), pending until the destination accepts it or it is given up.
 */
const FAILURE_NOTICES: QueueTable = { table: 'export_failure_notices', open: ['pending'] };

/** Queues `export.failed` for a webhook destination (in the transaction that fails the run). */
export async function scheduleFailureNotice(db: Queryable, runId: string, at: Date): Promise<void> {
  await db.query(
    `INSERT INTO export_failure_notices (id, next_attempt_at, updated_at) VALUES ($1, $2, $2)
     ON CONFLICT (id) DO NOTHING`,
    [runId, at.toISOString()],
  );
}

/** Claims up to `limit` due `export.failed` notices (their run ids) for `holder`. */
export function claimFailureNotices(
  db: Queryable,
  holder: string,
  now: Date,
  leaseUntil: Date,
  limit: number,
): Promise<{ id: string; attempts: number }[]> {
  return claimRows(db, FAILURE_NOTICES, holder, now, leaseUntil, limit);
}

/**
 * After an attempt, while `holder` holds the notice: due again at `next`, or ended (`sent`, or
 * given up); false when the claim was lost.
 */
export function settleFailureNotice(
  db: Queryable,
  runId: string,
  holder: string,
  next: Date | null,
  sent: boolean,
  at: Date,
): Promise<boolean> {
  const status = next !== null ? 'pending' : sent ? 'sent' : 'failed';
  return settleClaimed(db, FAILURE_NOTICES, runId, holder, { status, next_attempt_at: next }, at);
}

/** Embedded mode, at start: notices left claimed by a process that stopped are due again now. */
export function releaseAllFailureNoticeClaims(db: Queryable): Promise<number> {
  return releaseClaims(db, FAILURE_NOTICES);
}
