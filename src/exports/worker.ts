import type { Clock } from '../lib/clock.js';
import { prefixedId } from '../lib/ids.js';
import { backoffDelay, createQueue, type Queue } from '../lib/queue.js';
import type { Logger } from '../lib/logger.js';
import { enqueueNotice } from '../notices/index.js';
import type { Db, Queryable } from '../store/index.js';
import { DeliveryError } from './delivery-error.js';
import * as repo from './repo.js';
import { purgeExpiredExportFiles } from './files-repo.js';
import { completedData, type createRunner, type Delivered } from './runner.js';
import { followingOccurrence, latestOccurrence } from './schedule.js';

/** Waits before attempts 2–5: five attempts over about an hour, then the run fails. */
export const RUN_RETRY_DELAYS_MS = [60_000, 5 * 60_000, 15 * 60_000, 40 * 60_000] as const;
export const RUN_MAX_ATTEMPTS = RUN_RETRY_DELAYS_MS.length + 1;
/** A claim outlives a large upload; an instance that died mid-run is taken over after it. */
export const RUN_LEASE_MS = 30 * 60_000;
/** While a run goes on, its lease is moved on this often (a third of the lease). */
export const RUN_HEARTBEAT_MS = RUN_LEASE_MS / 3;
const DUE_EXPORTS_PER_PASS = 100;
/** How a scheduled run's error starts when the account's quota had no room for it. */
export const QUOTA_EXCEEDED = 'quota_exceeded';
/** An `export.failed` being sent is not sent by another instance for this long (15 s deadline). */
const FAILURE_NOTICE_LEASE_MS = 5 * 60_000;

/**
 * The `exports.run` queue: `runOnce` queues the due occurrences, claims and runs due runs until
 * none is left, then sends the due `export.failed` notices of webhook destinations.
 */
export type ExportWorker = Queue;

/**
 * The `exports.run` job. Each scheduled occurrence becomes one run row (unique per export and
 * time, so several instances queue it once); after downtime only the latest missed occurrence
 * is queued. Runs go through the `exports.run` queue (lib/queue.ts) and are retried with
 * backoff. A run's end (success or final failure) is published as `export.completed` or
 * `export.failed` in the transaction that records it; a webhook destination's `export.failed`
 * is then sent with the same retries.
 */
export function createExportWorker(deps: {
  db: Db;
  clock: Clock;
  runner: ReturnType<typeof createRunner>;
  logger: Logger;
  /** Records an account event (and its webhook deliveries) in the caller's transaction. */
  publish?: (
    tx: Queryable,
    event: { type: 'export.completed' | 'export.failed'; accountId: string; data: unknown },
  ) => Promise<unknown>;
  /** Told of every attempt's outcome (metrics): retry means queued again after a failure. */
  onAttempt?: (
    outcome: 'succeeded' | 'retry' | 'failed',
    destination: 'sftp' | 'webhook',
    seconds: number,
  ) => void;
  /** How often a running attempt renews its lease (tests shorten it). */
  heartbeatMs?: number;
  /** Runs this process works on at once (1 unless told). */
  concurrency?: number;
}): ExportWorker {
  const { db, clock, runner, logger } = deps;

  async function enqueueDue(): Promise<void> {
    const now = new Date(clock.now());
    for (const e of await repo.dueExports(db, now, DUE_EXPORTS_PER_PASS)) {
      const occurrence = latestOccurrence(e.schedule, e.timezone, new Date(e.nextRunAt), now);
      const following = followingOccurrence(e.schedule, e.timezone, occurrence);
      await db.transaction(async (tx) => {
        // Only the instance that moves the schedule on queues the occurrence.
        if (!(await repo.advanceSchedule(tx, e.id, e.nextRunAt, following))) return;
        const trigger = 'schedule';
        const run = {
          id: prefixedId('run'),
          exportId: e.id,
          accountId: e.accountId,
          trigger,
          scheduledAt: occurrence,
        } as const;
        await repo.insertRun(tx, run, now);
      });
    }
  }

  async function attempt(run: repo.RunRow, id: string): Promise<void> {
    const e = await repo.findExport(db, run.exportId);
    if (e === undefined) return; // deleted meanwhile: its runs went with it
    let outcome: repo.RunOutcome;
    let done: Delivered | null = null;
    const started = performance.now();
    try {
      // A scheduled run spends the quota once, at its first attempt (a manual one did when asked).
      if (run.trigger === 'schedule' && run.attempts === 1) {
        const spent = await runner.spend(e);
        if (!spent.allowed)
          throw new DeliveryError(`${QUOTA_EXCEEDED}: ${spent.error.detail}`, false);
      }
      done = await runner.deliver(e, run);
      outcome = {
        status: 'succeeded',
        nextAttemptAt: null,
        error: null,
        rows: done.rows,
        bytes: done.bytes,
        sha256: done.sha256,
        fileName: done.fileName,
      };
    } catch (error) {
      const known = error instanceof DeliveryError;
      if (!known) logger.error({ err: error, run: run.id }, 'export run failed unexpectedly');
      const message = known ? error.message : 'internal error while producing the file';
      const delay = (known ? error.retry : true)
        ? backoffDelay(RUN_RETRY_DELAYS_MS, run.attempts)
        : null;
      outcome =
        delay === null
          ? { status: 'failed', nextAttemptAt: null, error: message }
          : { status: 'queued', nextAttemptAt: new Date(clock.now() + delay), error: message };
    }
    deps.onAttempt?.(
      outcome.status === 'queued' ? 'retry' : outcome.status,
      e.destination.type,
      (performance.now() - started) / 1000,
    );
    const at = new Date(clock.now());
    await db.transaction(async (tx) => {
      if (!(await repo.settleRun(tx, run.id, id, outcome, at))) return false; // lease lost
      if (outcome.status === 'failed') {
        // A webhook destination hears of it too, retried as its other deliveries are.
        if (e.destination.type === 'webhook') await repo.scheduleFailureNotice(tx, run.id, at);
        await enqueueNotice(
          tx,
          {
            accountId: e.accountId,
            kind: 'export.failed',
            data: { export_id: e.id, reason: outcome.error ?? 'unknown' },
          },
          at,
        );
      }
      if (outcome.status === 'queued' || deps.publish === undefined) return true;
      await deps.publish(tx, {
        type: outcome.status === 'succeeded' ? 'export.completed' : 'export.failed',
        accountId: e.accountId,
        data: completedData(e, run, done, outcome.error),
      });
      return true;
    });
    logger.info(
      {
        run: run.id,
        export: e.id,
        attempt: run.attempts,
        status: outcome.status,
        error: outcome.error,
      },
      'export run attempted',
    );
  }

  /**
   * Sends one due `export.failed` notice to its webhook destination: a refused one is sent again
   * after the runs' delays (1, 5, 15 and 40 minutes: five attempts over about an hour), with the
   * same `webhook-id` each time, then given up.
   */
  async function notifyFailure(notice: { id: string; attempts: number }, id: string) {
    const run = await repo.runById(db, notice.id);
    if (run === undefined) return; // its export was deleted: the notice went with it
    const e = await repo.findExport(db, run.exportId);
    let next: Date | null = null;
    let sent = false;
    if (e !== undefined) {
      try {
        await runner.announceFailure(e, run, run.error ?? 'unknown');
        sent = true;
      } catch (error) {
        const delay =
          error instanceof DeliveryError && !error.retry
            ? null
            : backoffDelay(RUN_RETRY_DELAYS_MS, notice.attempts);
        if (delay !== null) next = new Date(clock.now() + delay);
        logger.info(
          {
            run: run.id,
            attempt: notice.attempts,
            err: (error as Error).message,
            retry: next !== null,
          },
          'export.failed not accepted by the webhook destination',
        );
      }
    }
    await repo.settleFailureNotice(db, run.id, id, next, sent, new Date(clock.now()));
  }

  const failureNotices = createQueue<{ id: string; attempts: number }>({
    name: 'exports.notify-failure',
    concurrency: 1,
    leaseMs: FAILURE_NOTICE_LEASE_MS,
    clock,
    logger,
    claim: (holder, now, leaseUntil, limit) =>
      repo.claimFailureNotices(db, holder, now, leaseUntil, limit),
    handle: notifyFailure,
  });

  const queue = createQueue<repo.RunRow>({
    name: 'exports.run',
    concurrency: deps.concurrency ?? 1,
    leaseMs: RUN_LEASE_MS,
    clock,
    logger,
    claim: (holder, now, leaseUntil, limit) =>
      repo.claimDueRuns(db, holder, now, leaseUntil, limit),
    handle: attempt,
    heartbeat: {
      everyMs: deps.heartbeatMs ?? RUN_HEARTBEAT_MS,
      extend: (run, holder, leaseUntil) => repo.extendRunLease(db, run.id, holder, leaseUntil),
    },
    before: async () => {
      await enqueueDue();
      // Every instance may do it: the delete is the same.
      await purgeExpiredExportFiles(db, new Date(clock.now()));
    },
    // The failure notices of the runs just ended go out in the same pass.
    after: async () => {
      await failureNotices.runOnce();
    },
    releaseClaims: async () =>
      (await repo.releaseAllRunClaims(db)) + (await repo.releaseAllFailureNoticeClaims(db)),
  });
  return {
    ...queue,
    get stopping() {
      return queue.stopping;
    },
    async stop(graceMs?: number) {
      await queue.stop(graceMs);
      await failureNotices.stop(graceMs);
    },
  };
}
