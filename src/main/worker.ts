import { startBackupSchedule } from '../backup/index.js';
import { createExportWorker, createRunner, releaseAllRunClaims } from '../exports/index.js';
import { RenderPool } from '../formats/index.js';
import { purgeIdempotencyKeys } from '../http/idempotency.js';
import { queueGraceNotices } from '../keys/index.js';
import { intervalJob, startJobs, type Job } from '../lib/job.js';
import {
  createNoticeWorker,
  logTransport,
  releaseAllNoticeClaims,
  smtpTransport,
} from '../notices/index.js';
import { accountEventPublisher, createWebhookWorker, releaseAllClaims } from '../webhooks/index.js';
import { createActionTokens } from '../lib/action-tokens.js';
import type { Core, ProcessDeps } from './core.js';

/** A poller of a feature (webhook, notice, export worker) as a job. */
function pollerJob(
  name: string,
  everyMs: number,
  poller: { start(ms: number): void; stop(): Promise<void> },
): Job {
  return { name, start: () => poller.start(everyMs), stop: () => poller.stop() };
}

/**
 * The worker role: everything that runs on a schedule rather than per request. Each is a job
 * (`feature.verb`) started in order and stopped in reverse; claims in the database let every
 * instance run them, each piece of work once.
 */
export async function createWorker(core: Core, deps: Pick<ProcessDeps, 'mailTransport'>) {
  const { config, clock, logger, db, metrics, plans } = core;
  const webhookWorker = createWebhookWorker({
    db,
    clock,
    box: core.webhookBox,
    sender: core.sender,
    logger,
    concurrency: config.webhookConcurrency,
    labelling: core.labelling,
    ...(metrics === undefined
      ? {}
      : {
          onAttempt: (ok: boolean) => metrics.webhookAttempts.inc({ result: ok ? 'ok' : 'failed' }),
        }),
  });
  const transport =
    deps.mailTransport ??
    (config.smtpUrl === undefined ? logTransport(logger) : smtpTransport(config.smtpUrl));
  const notices = createNoticeWorker({
    db,
    clock,
    transport,
    from: config.mailFrom,
    baseUrl: core.issuer,
    logger,
    actionTokens: createActionTokens(core.secretKey),
  });
  // Export files are written in a worker thread of their own (runs go one at a time), so an
  // export never holds the main thread that serves lookups.
  const exportRenderer = new RenderPool(1);
  const exportWorker = createExportWorker({
    db,
    clock,
    logger,
    publish: accountEventPublisher(plans, clock),
    heartbeatMs: config.exportHeartbeatMs,
    runner: createRunner({
      db,
      clock,
      box: core.exportBox,
      salary: core.salary,
      plans,
      allowPrivateTargets: config.outboundAllowPrivateTargets,
      labelling: core.labelling,
      sender: core.sender,
      links: core.exportLinks,
      pool: exportRenderer,
      limiter: core.limiter,
    }),
    ...(metrics === undefined
      ? {}
      : {
          onAttempt: (result, destination, seconds) => {
            metrics.exportRuns.inc({ result, destination });
            metrics.exportRunSeconds.observe({ destination }, seconds);
          },
        }),
  });
  if (config.databaseUrl === undefined && db.kind === 'pglite') {
    // Embedded mode: this process holds the data directory's lock, so claims in the tables are
    // left from a process that stopped mid-work; they are due again now, not after the lease.
    const deliveries = await releaseAllClaims(db);
    if (deliveries > 0) logger.info({ deliveries }, 'webhook deliveries resumed');
    const runs = await releaseAllRunClaims(db);
    if (runs > 0) logger.info({ runs }, 'export runs resumed');
    const released = await releaseAllNoticeClaims(db);
    if (released > 0) logger.info({ notices: released }, 'notices resumed');
  }
  // A release brings webhook deliveries (written with it): sent now, not at the next poll.
  if (config.webhookPollMs > 0) core.onTopic('release', () => webhookWorker.runOnce());

  const every = config.billingIntervalMs;
  const jobs: Job[] = [];
  if (config.webhookPollMs > 0)
    jobs.push(pollerJob('webhooks.deliver', config.webhookPollMs, webhookWorker));
  if (config.noticePollMs > 0) jobs.push(pollerJob('notices.send', config.noticePollMs, notices));
  if (config.exportPollMs > 0)
    jobs.push(pollerJob('exports.run', config.exportPollMs, exportWorker));
  jobs.push(
    intervalJob('billing.cycle', every, () => core.services.billing(every), logger),
    // Idempotency rows past their 24 hours; every instance may do it, the delete is the same.
    intervalJob('idempotency.purge', every, () => purgeIdempotencyKeys(db, clock.now()), logger),
    // Rotated keys about to stop working, still in use: their accounts are told once.
    intervalJob(
      'keys.grace-notices',
      every,
      () => queueGraceNotices(db, new Date(clock.now())),
      logger,
    ),
    intervalJob('sla.close-month', every, () => core.sla.service.closeMonth(), logger),
  );
  if (config.backupDir !== undefined && db.snapshot !== undefined) {
    const backupDir = config.backupDir;
    let stopBackups: (() => void) | undefined;
    jobs.push({
      name: 'backup.snapshot',
      start: () => {
        stopBackups = startBackupSchedule({
          db,
          clock,
          logger,
          dir: backupDir,
          schedule: config.backupSchedule,
          keep: config.backupKeep,
          release: () => core.data.index?.release.version ?? null,
          metrics,
        });
      },
      stop: async () => stopBackups?.(),
    });
  }
  if (config.backupDir !== undefined && db.snapshot === undefined)
    logger.warn({}, 'BACKUP_DIR is ignored on PostgreSQL: back it up with pg_dump');

  let stopJobs: (() => Promise<void>) | undefined;
  return {
    webhookWorker,
    notices,
    exportWorker,
    jobs,
    start(): void {
      stopJobs ??= startJobs(jobs, logger);
    },
    /** Stops every job (reverse order), then what they used. */
    async stop(): Promise<void> {
      await stopJobs?.();
      await webhookWorker.stop();
      await notices.stop();
      await exportWorker.stop();
      transport.close();
      await exportRenderer.close();
    },
  };
}

export type Worker = Awaited<ReturnType<typeof createWorker>>;
