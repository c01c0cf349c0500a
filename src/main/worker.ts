import { backupJob } from '../backup/index.js';
import { createExportWorker, createRunner } from '../exports/index.js';
import { RenderPool } from '../formats/index.js';
import { purgeIdempotencyKeys } from '../http/idempotency.js';
import { queueGraceNotices } from '../keys/index.js';
import { createActionTokens } from '../lib/action-tokens.js';
import { closing, intervalJob, pollerJob, type Job } from '../lib/job.js';
import { createNoticeWorker, mailTransport } from '../notices/index.js';
import { accountEventPublisher, createWebhookWorker } from '../webhooks/index.js';
import type { Core, ProcessDeps } from './core.js';

/**
 * The worker role: everything that runs on a schedule rather than per request, each a job
 * (`feature.verb`) started in this order and stopped in the reverse one: the three queues
 * (webhook deliveries, notices, export runs), the billing cycle, the idempotency purge, the
 * grace notices of rotated keys, the SLA's month close and the embedded database's backups.
 * Claims in the database let every instance run them, each piece of work once.
 */
export async function createWorker(core: Core, deps: Pick<ProcessDeps, 'mailTransport'>) {
  const { config, clock, logger, db, metrics, plans } = core.base;
  const webhookWorker = createWebhookWorker({
    db,
    clock,
    box: core.webhooks.box,
    sender: core.webhooks.sender,
    logger,
    concurrency: config.webhookConcurrency,
    labelling: core.licenses.labelling,
    ...(metrics === undefined ? {} : { onAttempt: metrics.webhookAttempted }),
  });
  const transport = deps.mailTransport ?? mailTransport(config.smtpUrl, logger);
  const notices = createNoticeWorker({
    db,
    clock,
    transport,
    from: config.mailFrom,
    baseUrl: core.base.issuer,
    logger,
    actionTokens: createActionTokens(core.base.secretKey),
    concurrency: config.noticeConcurrency,
  });
  // Export files are written in worker threads of their own (one per run at once), so an
  // export never holds the main thread that serves lookups.
  const exportRenderer = new RenderPool(config.exportConcurrency);
  const exportWorker = createExportWorker({
    db,
    clock,
    logger,
    publish: accountEventPublisher(plans, clock),
    heartbeatMs: config.exportHeartbeatMs,
    concurrency: config.exportConcurrency,
    runner: createRunner({
      db,
      clock,
      box: core.exports.box,
      salary: core.data.salary,
      plans,
      allowPrivateTargets: config.outboundAllowPrivateTargets,
      labelling: core.licenses.labelling,
      sender: core.webhooks.sender,
      links: core.exports.links,
      pool: exportRenderer,
      limiter: core.shared.limiter,
    }),
    ...(metrics === undefined ? {} : { onAttempt: metrics.exportAttempted }),
  });
  // The embedded database belongs to this process alone: claims left in its outboxes are those
  // of a process that stopped mid-work, due again now rather than after their lease.
  if (config.databaseUrl === undefined && db.kind === 'pglite')
    for (const queue of [webhookWorker, notices, exportWorker]) await queue.resumeClaims();
  // A release brings webhook deliveries (written with it): sent now, not at the next poll.
  if (config.webhookPollMs > 0) core.shared.changes.on('release', () => webhookWorker.runOnce());
  if (config.backupDir !== undefined && db.snapshot === undefined)
    logger.warn({}, 'BACKUP_DIR is ignored on PostgreSQL: back it up with pg_dump');

  const every = config.billingIntervalMs;
  const jobs: Job[] = [
    closing('notices.transport', () => transport.close()),
    closing('exports.renderer', () => exportRenderer.close()),
    pollerJob('webhooks.deliver', config.webhookPollMs, webhookWorker),
    pollerJob('notices.send', config.noticePollMs, notices),
    pollerJob('exports.run', config.exportPollMs, exportWorker),
    intervalJob('billing.cycle', every, () => core.accounts.billing(every), logger),
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
  ];
  if (config.backupDir !== undefined && db.snapshot !== undefined)
    jobs.push(
      backupJob({
        db,
        clock,
        logger,
        dir: config.backupDir,
        schedule: config.backupSchedule,
        keep: config.backupKeep,
        release: () => core.data.store.index?.release.version ?? null,
        metrics,
      }),
    );
  return { webhookWorker, notices, exportWorker, jobs };
}

export type Worker = Awaited<ReturnType<typeof createWorker>>;
