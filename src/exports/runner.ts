import { createHash } from 'node:crypto';
import { Transform, type Readable } from 'node:stream';
import { createGzip } from 'node:zlib';
import { findAccount } from '../accounts/index.js';
import type { Principal } from '../auth/index.js';
import { AppError } from '../errors/index.js';
import type { SecretBox } from '../lib/secret-box.js';
import type { Plan, PlanId } from '../plans/index.js';
import {
  salaryFileStream,
  type Labelling,
  type SalaryService,
  type Selection,
} from '../salary/index.js';
import type { Db } from '../store/index.js';
import { DeliveryError } from './delivery-error.js';
import type { ExportRow, RunRow } from './repo.js';
import { sftpTarget } from './service.js';
import { uploadFile, withSftp } from './sftp.js';
import type { ExportFormat, ExportQuery } from './types.js';

export interface Delivered {
  rows: number;
  bytes: number;
  sha256: string;
  fileName: string;
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
  return new Intl.DateTimeFormat('en-CA', { timeZone: timezone }).format(new Date(at));
}

/** The file name: the export's name made safe, the scheduled date, the format, `.gz`. */
export function fileNameOf(e: ExportRow, run: RunRow): string {
  const stem = e.name.replace(/[^A-Za-z0-9_-]+/g, '-').replace(/^-+|-+$/g, '') || 'export';
  const ext = `${e.format}${e.compression === 'gzip' ? '.gz' : ''}`;
  return `${stem}-${scheduledDate(run.scheduledAt, e.timezone)}.${ext}`;
}

/**
 * Produces one run's file and delivers it: the account's plan and custom schema as they are
 * now, the same writers as the bulk endpoints, streamed through gzip and a hash to the socket.
 */
export function createRunner(deps: {
  db: Db;
  box: SecretBox;
  salary: SalaryService;
  plans: Readonly<Record<PlanId, Plan>>;
  allowPrivateTargets: boolean;
  /** A white-label account's labelling: its files name the licensee, never this service. */
  labelling?: (accountId: string) => Labelling | null;
}) {
  const { db, box, salary, plans } = deps;

  async function content(e: ExportRow): Promise<{ stream: Readable; rows: number }> {
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
    let result;
    try {
      result = salary.select(selectionOf(e.query), principal, format, { feature: 'bulk' });
    } catch (error) {
      if (error instanceof AppError) throw new DeliveryError(error.detail, false);
      throw error;
    }
    const last = /^last (\d+)$/.exec(e.query.years);
    if (last !== null) {
      const from = result.meta.release.current_year - Number(last[1]) + 1;
      const data = result.data.filter((r) => r.year >= from);
      result = { ...result, data, meta: { ...result.meta, count: data.length } };
    }
    const labelling = deps.labelling?.(account.id) ?? null;
    return {
      stream: await salaryFileStream(result, format, schema, labelling),
      rows: result.data.length,
    };
  }

  return {
    async deliver(e: ExportRow, run: RunRow): Promise<Delivered> {
      const fileName = fileNameOf(e, run);
      const target = sftpTarget(box, e);
      return withSftp(target, deps.allowPrivateTargets, async (sftp) => {
        const { stream, rows } = await content(e);
        const meter = new Meter();
        const body =
          e.compression === 'gzip' ? stream.pipe(createGzip()).pipe(meter) : stream.pipe(meter);
        stream.on('error', (error) => meter.destroy(error));
        const path = await uploadFile(sftp, target.path, fileName, run.id, body, () => meter.bytes);
        return { rows, bytes: meter.bytes, sha256: meter.digest(), fileName: path };
      });
    },
  };
}
