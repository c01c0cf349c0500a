import { createHash } from 'node:crypto';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { findAccount } from '../accounts/index.js';
import type { Principal } from '../auth/index.js';
import { AppError } from '../errors/index.js';
import type { SecretBox } from '../lib/secret-box.js';
import { MEDIA_TYPES, type RenderPool } from '../formats/index.js';
import type { Clock } from '../lib/clock.js';
import { applyContract, type Plan, type PlanId } from '../plans/index.js';
import type { RateLimiter } from '../limits/index.js';
import { runQuota, type RunSpend } from './quota.js';
import {
  salaryFileStream,
  withSchemaFields,
  type Labelling,
  type SalaryService,
  type Selection,
} from '../salary/index.js';
import type { Db } from '../store/index.js';
import type { WebhookSender } from '../webhooks/index.js';
import { DeliveryError } from './delivery-error.js';
import type { DownloadLinks } from './download-link.js';
import { exportFileWriter, saveExportFile } from './files-repo.js';
import type { ExportRow, RunRow } from './repo.js';
import { sftpTarget } from './service.js';
import { uploadFile, withSftp } from './sftp.js';
import { EXPORT_FILE_TTL_MS, type ExportFormat, type ExportQuery } from './types.js';
import { announce, destinationSecret } from './webhook-destination.js';

export interface Delivered {
  rows: number;
  bytes: number;
  sha256: string;
  fileName: string;
  /** Webhook destinations: the signed link to the kept file, and when it stops working. */
  download?: { url: string; expiresAt: string };
}

/** Counts and hashes the bytes that pass. */
class Meter extends Transform {
  bytes = 0;
  readonly #hash = createHash('sha256');
  override _transform(chunk: Buffer, _: BufferEncoding, done: () => void): void {
    this.bytes += chunk.length;
    this.#hash.update(chunk);
    this.push(chunk);
    done();
  }
  digest(): string {
    return this.#hash.digest('hex');
  }
}

function selectionOf(q: ExportQuery): Selection {
  return {
    ...(q.kind === 'job' ? { job: q.job } : {}),
    ...(q.kind === 'country' ? { country: q.country } : {}),
    ...(q.years === 'current' ? {} : { year: 'all' as const }),
    ...(q.fields !== undefined ? { fields: q.fields } : {}),
  };
}

/** `2026-11-23` in the export's time zone: the date part of the delivered file's name. */
export function scheduledDate(at: string, timezone: string): string {
  let format = DATE_FORMATS.get(timezone);
  if (format === undefined) {
    // Making a format costs milliseconds of the main thread; each time zone's is kept.
    format = new Intl.DateTimeFormat('en-CA', { timeZone: timezone });
    DATE_FORMATS.set(timezone, format);
  }
  return format.format(new Date(at));
}
const DATE_FORMATS = new Map<string, Intl.DateTimeFormat>();

/** The file name: the export's name made safe, the scheduled date, the format, `.gz`. */
export function fileNameOf(e: ExportRow, run: RunRow): string {
  const stem = e.name.replace(/[^A-Za-z0-9_-]+/g, '-').replace(/^-+|-+$/g, '') || 'export';
  const ext = `${e.format}${e.compression === 'gzip' ? '.gz' : ''}`;
  return `${stem}-${scheduledDate(run.scheduledAt, e.timezone)}.${ext}`;
}

/**
 * Produces one run's file and delivers it: the account's plan and custom schema as they are
 * now, the same writers as the bulk endpoints (in the render pool's worker), the rows read and
 * the file streamed through gzip and a hash to the socket (or the kept file) as fast as it
 * takes them: memory stays flat however large the export.
 */
export function createRunner(deps: {
  db: Db;
  clock: Clock;
  box: SecretBox;
  salary: SalaryService;
  plans: Readonly<Record<PlanId, Plan>>;
  allowPrivateTargets: boolean;
  /** A white-label account's labelling: its files name the licensee, never this service. */
  labelling?: (accountId: string) => Labelling | null;
  /** Outbound HTTP of webhook destinations (the webhooks' sender and its address guard). */
  sender: WebhookSender;
  links: DownloadLinks;
  /** Writes file formats off the main thread, as the rows come. */
  pool: RenderPool;
  /** The shared limiter scheduled runs spend the account's quota on. */
  limiter: RateLimiter;
}) {
  const { db, clock, box, salary, plans } = deps;
  const quota = runQuota({ limiter: deps.limiter, clock });

  async function content(e: ExportRow): Promise<{ stream: Readable; rows: () => number }> {
    const account = await findAccount(db, e.accountId);
    if (account === undefined) throw new DeliveryError('the account no longer exists', false);
    const plan = plans[account.plan];
    if (!plan.scheduledExports)
      throw new DeliveryError(`the ${plan.name} plan does not include scheduled exports`, false);
    const schema = plan.customSchemas ? account.responseSchema : null;
    const principal: Principal = {
      kind: 'anonymous',
      plan,
      accountId: account.id,
      keyId: null,
      sessionId: null,
      scopes: null,
      allowlists: [],
      responseSchema: schema,
      limitBucket: `acct:${account.id}`,
    };
    const format = e.format as ExportFormat;
    const selection = selectionOf(e.query);
    const fields = withSchemaFields(selection.fields, schema);
    try {
      const prepared = salary.prepare({ ...selection, fields }, principal, format, {
        feature: 'bulk',
      });
      const last = /^last (\d+)$/.exec(e.query.years);
      const from =
        last === null ? -Infinity : prepared.meta(0).release.current_year - Number(last[1]) + 1;
      const labelling = deps.labelling?.(account.id) ?? null;
      return await salaryFileStream(
        prepared,
        format,
        schema,
        labelling,
        deps.pool,
        (r) => r.year >= from,
      );
    } catch (error) {
      if (error instanceof AppError) throw new DeliveryError(error.detail, false);
      throw error;
    }
  }

  /** The file's bytes as they leave: through gzip when asked, counted and hashed. */
  async function metered(
    e: ExportRow,
  ): Promise<{ body: Readable; meter: Meter; rows: () => number }> {
    const { stream, rows } = await content(e);
    const meter = new Meter();
    const body =
      e.compression === 'gzip' ? stream.pipe(createGzip()).pipe(meter) : stream.pipe(meter);
    stream.on('error', (error) => meter.destroy(error));
    // A reader that gives up (a failed upload) stops the file's production.
    meter.on('close', () => stream.destroy());
    return { body, meter, rows };
  }

  /**
   * Webhook destination: the file is kept 7 days in the database and announced by a signed
   * `export.completed` whose `download_url` needs no other credential; the run succeeds when
   * the receiver accepts the announcement (2xx), and is retried otherwise.
   */
  async function deliverByWebhook(
    e: ExportRow & { destination: { type: 'webhook' } },
    run: RunRow,
  ): Promise<Delivered> {
    const { body, meter, rows } = await metered(e);
    try {
      await pipeline(body, exportFileWriter(db, run.id, run.attempts));
    } catch (error) {
      if (error instanceof DeliveryError) throw error;
      throw new DeliveryError(`the file could not be kept: ${(error as Error).message}`, true);
    }
    const fileName = fileNameOf(e, run);
    const now = clock.now();
    const expiresAt = new Date(now + EXPORT_FILE_TTL_MS);
    const delivered: Delivered = {
      rows: rows(),
      bytes: meter.bytes,
      sha256: meter.digest(),
      fileName,
      download: { url: deps.links.url(run.id, expiresAt), expiresAt: expiresAt.toISOString() },
    };
    await saveExportFile(
      db,
      {
        runId: run.id,
        attempt: run.attempts,
        accountId: e.accountId,
        fileName,
        contentType:
          e.compression === 'gzip' ? 'application/gzip' : MEDIA_TYPES[e.format as ExportFormat],
        bytes: delivered.bytes,
        sha256: delivered.sha256,
        expiresAt: expiresAt.toISOString(),
      },
      new Date(now),
    );
    await announce(
      deps.sender,
      e.destination.url,
      destinationSecret(box, e),
      `msg_${run.id}`,
      'export.completed',
      completedData(e, run, delivered, null),
      now,
      deps.allowPrivateTargets,
    );
    return delivered;
  }

  return {
    /** Spends the account's quota (its plan as its contract sets it) as the run's bulk request. */
    async spend(e: ExportRow): Promise<RunSpend> {
      const account = await findAccount(db, e.accountId);
      const plan =
        account === undefined ? undefined : applyContract(plans[account.plan], account.contract);
      // No account (deleted meanwhile): nothing to spend; the delivery says why it fails.
      if (plan === undefined) return { allowed: true, release: () => Promise.resolve() };
      return quota.spend(`acct:${e.accountId}`, plan);
    },

    async deliver(e: ExportRow, run: RunRow): Promise<Delivered> {
      if (e.destination.type === 'webhook')
        return deliverByWebhook(e as ExportRow & { destination: { type: 'webhook' } }, run);
      const fileName = fileNameOf(e, run);
      const target = sftpTarget(box, e);
      let sent: Readable | undefined;
      try {
        return await withSftp(target, deps.allowPrivateTargets, async (sftp) => {
          const { body, meter, rows } = await metered(e);
          sent = body;
          const path = await uploadFile(
            sftp,
            target.path,
            fileName,
            run.id,
            body,
            () => meter.bytes,
          );
          return { rows: rows(), bytes: meter.bytes, sha256: meter.digest(), fileName: path };
        });
      } finally {
        // A connection that ended mid-upload may leave the upload waiting: the file's
        // production (a render worker's task) stops here either way.
        sent?.destroy();
      }
    },

    /**
     * Tells a webhook destination that a run gave up (`export.failed`), one attempt (the
     * worker retries it); the same message id on every attempt, for deduplication.
     */
    async announceFailure(e: ExportRow, run: RunRow, error: string): Promise<void> {
      if (e.destination.type !== 'webhook') return;
      await announce(
        deps.sender,
        e.destination.url,
        destinationSecret(box, e),
        `msg_${run.id}_failed`,
        'export.failed',
        completedData(e, run, null, error),
        clock.now(),
        deps.allowPrivateTargets,
      );
    },
  };
}

/** The `data` of `export.completed` and `export.failed`, for destinations and endpoints alike. */
export function completedData(
  e: ExportRow,
  run: RunRow,
  delivered: Partial<Delivered> | null,
  error: string | null,
): Record<string, unknown> {
  return {
    export_id: e.id,
    run_id: run.id,
    name: e.name,
    scheduled_at: run.scheduledAt,
    format: e.format,
    compression: e.compression ?? 'none',
    attempts: run.attempts,
    rows: delivered?.rows ?? null,
    bytes: delivered?.bytes ?? null,
    sha256: delivered?.sha256 ?? null,
    file_name: delivered?.fileName ?? null,
    ...(delivered?.download === undefined
      ? {}
      : { download_url: delivered.download.url, expires_at: delivered.download.expiresAt }),
    error,
  };
}
