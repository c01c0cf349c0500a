import type { Principal } from '../auth/index.js';
import { AppError } from '../errors/index.js';
import type { Clock } from '../lib/clock.js';
import { prefixedId } from '../lib/ids.js';
import type { SecretBox } from '../lib/secret-box.js';
import { assertFormatAllowed, assertPlanHas, type Plan, type PlanId } from '../plans/index.js';
import type { Db } from '../store/index.js';
import * as repo from './repo.js';
import { nextOccurrence, scheduleProblem } from './schedule.js';
import type { SftpTarget } from './sftp.js';
import { testDestination, type DestinationTestAnswer } from './destination-test.js';
import type { DownloadLinks } from './download-link.js';
import { findExportFile, type ExportFile } from './files-repo.js';
import {
  checkTargetUrl,
  generateSigningSecret,
  targetHostRefusal,
  TEST_SEND_RULE,
  throttleAccount,
  type WebhookSender,
} from '../webhooks/index.js';
import type { RateLimiter } from '../limits/index.js';
import { runQuota } from './quota.js';
import type {
  DestinationInput,
  DestinationSecret,
  ExportFormat,
  ExportQuery,
  PublicDestination,
} from './types.js';

/** Exports per account, and runs listed per page. */
export const MAX_EXPORTS = 50;
const RUNS_LISTED = 100;

export interface ExportInput {
  name: string;
  schedule: string;
  timezone?: string;
  query: ExportQuery;
  format: ExportFormat;
  compression?: 'gzip' | 'none';
  destination: DestinationInput;
}

export interface PublicExport {
  id: string;
  name: string;
  schedule: string;
  timezone: string;
  query: ExportQuery;
  format: ExportFormat;
  compression: 'gzip' | 'none';
  destination: PublicDestination;
  next_run_at: string;
  created_at: string;
  updated_at: string;
}

export interface PublicRun {
  id: string;
  export_id: string;
  trigger: 'schedule' | 'manual';
  status: repo.RunRow['status'];
  scheduled_at: string;
  started_at: string | null;
  finished_at: string | null;
  next_attempt_at: string | null;
  rows: number | null;
  bytes: number | null;
  sha256: string | null;
  file_name: string | null;
  attempts: number;
  error: string | null;
}

export function publicExport(e: repo.ExportRow): PublicExport {
  return {
    id: e.id,
    name: e.name,
    schedule: e.schedule,
    timezone: e.timezone,
    query: e.query,
    format: e.format as ExportFormat,
    compression: e.compression ?? 'none',
    destination: e.destination,
    next_run_at: e.nextRunAt,
    created_at: e.createdAt,
    updated_at: e.updatedAt,
  };
}

export function publicRun(r: repo.RunRow): PublicRun {
  return {
    id: r.id,
    export_id: r.exportId,
    trigger: r.trigger,
    status: r.status,
    scheduled_at: r.scheduledAt,
    started_at: r.startedAt,
    finished_at: r.finishedAt,
    next_attempt_at: r.status === 'queued' ? r.nextAttemptAt : null,
    rows: r.rows,
    bytes: r.bytes,
    sha256: r.sha256,
    file_name: r.fileName,
    attempts: r.attempts,
    error: r.error,
  };
}

/** The SFTP target of a stored export, its credential opened. */
export function sftpTarget(box: SecretBox, e: repo.ExportRow): SftpTarget {
  const d = e.destination;
  if (d.type !== 'sftp') throw new Error('not an SFTP destination');
  const secret = JSON.parse(box.open(e.secretEnc ?? '')) as DestinationSecret;
  return {
    host: d.host,
    port: d.port,
    username: d.username,
    ...('password' in secret ? { password: secret.password } : {}),
    ...('private_key' in secret ? { privateKey: secret.private_key } : {}),
    hostKeySha256: d.host_key_sha256,
    path: d.path,
  };
}

export type ExportService = ReturnType<typeof createExportService>;

export function createExportService(deps: {
  db: Db;
  clock: Clock;
  box: SecretBox;
  plans: Readonly<Record<PlanId, Plan>>;
  allowPrivateTargets: boolean;
  /** Outbound HTTP for webhook destinations' test pings. */
  sender: WebhookSender;
  /** Checks the signed links of webhook destinations' files. */
  links: DownloadLinks;
  /** The shared limiter: destination tests' allowance, and the quota manual runs spend. */
  limiter: RateLimiter;
}) {
  const { db, clock, box, plans, allowPrivateTargets } = deps;

  function accountOf(principal: Principal): string {
    assertPlanHas(plans, principal.plan, (p) => p.scheduledExports, 'Scheduled exports');
    if (principal.accountId === null) throw new AppError('UNAUTHENTICATED', 'Sign in first.');
    return principal.accountId;
  }

  const quota = runQuota({ limiter: deps.limiter, clock });

  function oneAtATime(id: string, pending: repo.RunRow): AppError {
    return new AppError(
      'CONFLICT',
      `Export ${id} already has a manual run ${pending.status} (${pending.id}); one manual run at a time, so run it again once that one has ended.`,
      { extensions: { run_id: pending.id } },
    );
  }

  function invalid(name: string, reason: string): AppError {
    return AppError.invalidParams([{ name, reason }]);
  }

  function checkQuery(q: ExportQuery): void {
    if (q.kind === 'job' && q.job === undefined)
      throw invalid('query.job', 'required with kind job');
    if (q.kind === 'country' && q.country === undefined)
      throw invalid('query.country', 'required with kind country');
    if (q.kind !== 'job' && q.job !== undefined) throw invalid('query.job', 'only with kind job');
    if (q.kind !== 'country' && q.country !== undefined)
      throw invalid('query.country', 'only with kind country');
  }

  /**
   * The stored (public) destination and its sealed secret, checked. A webhook destination gets
   * a new signing secret (`secret`), which the caller shows once.
   */
  function destinationOf(d: DestinationInput): {
    destination: PublicDestination;
    secretEnc: string;
    secret?: string;
  } {
    if (d.type === 'webhook') {
      const check = checkTargetUrl(d.url, allowPrivateTargets);
      if (!check.ok) throw invalid('destination.url', check.reason);
      const secret = generateSigningSecret();
      const sealed: DestinationSecret = { webhook_secret: secret };
      return {
        destination: { type: 'webhook', url: check.url.href },
        secretEnc: box.seal(JSON.stringify(sealed)),
        secret,
      };
    }
    if ((d.password === undefined) === (d.private_key === undefined))
      throw invalid('destination', 'give exactly one of password and private_key');
    if (!d.path.startsWith('/')) throw invalid('destination.path', 'must be an absolute path');
    // Refused here as the run would refuse it (the address is checked again when connecting).
    const hostRefusal = targetHostRefusal(d.host, allowPrivateTargets);
    if (hostRefusal !== null) throw invalid('destination.host', hostRefusal);
    const secret: DestinationSecret =
      d.password !== undefined ? { password: d.password } : { private_key: d.private_key! };
    return {
      destination: {
        type: 'sftp',
        host: d.host,
        port: d.port ?? 22,
        username: d.username,
        auth: d.password !== undefined ? 'password' : 'private_key',
        host_key_sha256: d.host_key_sha256,
        path: d.path.replace(/(.)\/+$/, '$1'),
      },
      secretEnc: box.seal(JSON.stringify(secret)),
    };
  }

  function firstRun(schedule: string, timezone: string): string {
    const problem = scheduleProblem(schedule, timezone);
    if (problem !== null)
      throw invalid(problem.includes('time zone') ? 'timezone' : 'schedule', problem);
    return nextOccurrence(schedule, timezone, new Date(clock.now())).toISOString();
  }

  async function mustFind(accountId: string, id: string): Promise<repo.ExportRow> {
    const row = await repo.findExport(db, id, accountId);
    if (row === undefined) throw new AppError('NOT_FOUND', `No export ${id} on this account.`);
    return row;
  }

  return {
    async create(
      principal: Principal,
      input: ExportInput,
    ): Promise<PublicExport & { secret?: string }> {
      const accountId = accountOf(principal);
      assertFormatAllowed(plans, principal.plan, input.format);
      checkQuery(input.query);
      const timezone = input.timezone ?? 'UTC';
      const nextRunAt = firstRun(input.schedule, timezone);
      const { destination, secretEnc, secret } = destinationOf(input.destination);
      return db.transaction(async (tx) => {
        if ((await repo.countExports(tx, accountId)) >= MAX_EXPORTS)
          throw new AppError(
            'EXPORT_LIMIT_REACHED',
            `An account has at most ${MAX_EXPORTS} exports.`,
          );
        const row = await repo.insertExport(
          tx,
          {
            id: prefixedId('exp'),
            accountId,
            name: input.name,
            schedule: input.schedule,
            timezone,
            query: input.query,
            format: input.format,
            compression: input.compression === 'gzip' ? 'gzip' : null,
            destination,
            secretEnc,
            nextRunAt,
          },
          new Date(clock.now()),
        );
        return { ...publicExport(row), ...(secret === undefined ? {} : { secret }) };
      });
    },

    async list(principal: Principal): Promise<PublicExport[]> {
      return (await repo.listExports(db, accountOf(principal))).map(publicExport);
    },

    async get(principal: Principal, id: string): Promise<PublicExport> {
      return publicExport(await mustFind(accountOf(principal), id));
    },

    async update(
      principal: Principal,
      id: string,
      changes: Partial<ExportInput>,
    ): Promise<PublicExport & { secret?: string }> {
      const accountId = accountOf(principal);
      const row = await mustFind(accountId, id);
      let secret: string | undefined;
      const next: repo.ExportRow = { ...row };
      if (changes.name !== undefined) next.name = changes.name;
      if (changes.format !== undefined) {
        assertFormatAllowed(plans, principal.plan, changes.format);
        next.format = changes.format;
      }
      if (changes.compression !== undefined)
        next.compression = changes.compression === 'gzip' ? 'gzip' : null;
      if (changes.query !== undefined) {
        checkQuery(changes.query);
        next.query = changes.query;
      }
      if (changes.schedule !== undefined || changes.timezone !== undefined) {
        next.schedule = changes.schedule ?? row.schedule;
        next.timezone = changes.timezone ?? row.timezone;
        next.nextRunAt = firstRun(next.schedule, next.timezone);
      }
      if (changes.destination !== undefined) {
        const d = destinationOf(changes.destination);
        next.destination = d.destination;
        next.secretEnc = d.secretEnc;
        secret = d.secret;
      }
      const updated = publicExport(await repo.updateExport(db, next, new Date(clock.now())));
      return { ...updated, ...(secret === undefined ? {} : { secret }) };
    },

    async remove(principal: Principal, id: string): Promise<void> {
      const accountId = accountOf(principal);
      await mustFind(accountId, id);
      await repo.deleteExport(db, accountId, id);
    },

    /**
     * Queues a run now, beside the schedule (it does not move the next occurrence). One manual
     * run at a time per export (409 while one is queued or running), and the run spends the
     * account's quota as the bulk request it equals, now: refused (429) it queues nothing.
     */
    async runNow(principal: Principal, id: string): Promise<PublicRun> {
      const row = await mustFind(accountOf(principal), id);
      const pending = await repo.pendingManualRun(db, row.id);
      if (pending !== undefined) throw oneAtATime(id, pending);
      const spent = await quota.spend(principal.limitBucket, principal.plan);
      if (!spent.allowed) throw spent.error;
      const at = new Date(clock.now());
      try {
        const run = await repo.insertRun(
          db,
          {
            id: prefixedId('run'),
            exportId: row.id,
            accountId: row.accountId,
            trigger: 'manual',
            scheduledAt: at,
          },
          at,
        );
        return publicRun(run!);
      } catch (error) {
        await spent.release();
        // Another request queued one in between (the database keeps one per export).
        const raced = await repo.pendingManualRun(db, row.id);
        if (raced !== undefined) throw oneAtATime(id, raced);
        throw error;
      }
    },

    async runs(principal: Principal, id: string): Promise<PublicRun[]> {
      const row = await mustFind(accountOf(principal), id);
      return (await repo.listRuns(db, row.id, RUNS_LISTED)).map(publicRun);
    },

    async run(principal: Principal, runId: string): Promise<PublicRun> {
      const run = await repo.findRun(db, accountOf(principal), runId);
      if (run === undefined)
        throw new AppError('NOT_FOUND', `No export run ${runId} on this account.`);
      return publicRun(run);
    },

    /**
     * A run's file for the account it belongs to (the dashboard's download), while it is kept
     * (webhook destinations: 7 days; an SFTP destination's file is on that server only).
     */
    async file(principal: Principal, runId: string): Promise<ExportFile> {
      const run = await repo.findRun(db, accountOf(principal), runId);
      const file =
        run === undefined ? undefined : await findExportFile(db, runId, new Date(clock.now()));
      if (file === undefined)
        throw new AppError('NOT_FOUND', `No file of export run ${runId} is kept on this account.`);
      return file;
    },

    /**
     * A webhook destination's file through its signed link, which is the only credential:
     * an altered or expired link, or a file no longer kept, is DOWNLOAD_LINK_INVALID (403).
     */
    async download(runId: string, expires: string, signature: string): Promise<ExportFile> {
      const now = clock.now();
      const refusal = deps.links.refusal(runId, expires, signature, now);
      const file = refusal === null ? await findExportFile(db, runId, new Date(now)) : undefined;
      if (file === undefined)
        throw new AppError(
          'DOWNLOAD_LINK_INVALID',
          `This download link does not give a file: ${refusal ?? 'the file is no longer kept'}.`,
        );
      return file;
    },

    /**
     * Checks a destination without exporting (see destination-test.ts), within the account's
     * test-send allowance shared with webhook test sends. SFTP: connect, host key, write and
     * remove a file. Webhook: a signed `export.test` ping, signed with a one-off secret that
     * the answer returns (the export's own secret is made when the export is created).
     * `exportId`: the export being edited, whose saved host may hear its host key named.
     */
    async testDestination(
      principal: Principal,
      input: DestinationInput,
      exportId?: string,
    ): Promise<{ answer: DestinationTestAnswer; detail: string | null }> {
      const accountId = accountOf(principal);
      const saved = exportId === undefined ? undefined : await mustFind(accountId, exportId);
      const { destination, secretEnc, secret } = destinationOf(input);
      await throttleAccount(deps.limiter, clock, accountId, TEST_SEND_RULE, 'test sends');
      const savedHost = saved?.destination.type === 'sftp' ? saved.destination.host : null;
      return testDestination(
        { sender: deps.sender, allowPrivateTargets, nowMs: clock.now() },
        destination,
        destination.type === 'webhook'
          ? { secret: secret! }
          : { sftp: sftpTarget(box, { destination, secretEnc, id: 'test' } as repo.ExportRow) },
        savedHost,
      );
    },
  };
}
