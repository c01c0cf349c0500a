import { existsSync, lstatSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SECRET_KEY_FILE, sellerGaps, type Config } from '../config/index.js';
import { createSecretBox } from '../lib/secret-box.js';
import { databaseNow, lastLoadedRelease, oldestWebhookSecret } from './repo.js';
import { verifySmtp } from '../notices/index.js';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../store/private-files.js';
import {
  EmbeddedLockError,
  listMigrations,
  migrationLevel,
  openDatabase,
  openRedis,
  redisReady,
  type Db,
} from '../store/index.js';

export type CheckStatus = 'ok' | 'fail' | 'skip';

export interface CheckResult {
  readonly check: string;
  readonly status: CheckStatus;
  readonly detail: string;
  /** What to do about it (failures). */
  readonly fix?: string;
}

/** What the checks share: the configuration and, when it opened, the database. */
export interface DoctorContext {
  readonly config: Config;
  readonly db: Db | undefined;
  readonly now: () => number;
}

export interface Check {
  readonly name: string;
  run(ctx: DoctorContext): Promise<Omit<CheckResult, 'check'>>;
}

const SKEW_LIMIT_MS = 2_000;
const RELEASE_AGE_WARN_DAYS = 400;

export const databaseCheck: Check = {
  name: 'database',
  async run({ db }) {
    if (db === undefined)
      return { status: 'fail', detail: 'not reachable', fix: 'see the line above' };
    const level = await migrationLevel(db).catch(() => 0);
    const known = Math.max(0, ...listMigrations().map((m) => m.version));
    if (level < known)
      return {
        status: 'fail',
        detail: `${db.kind} reachable, migrations applied up to ${level} of ${known}`,
        fix: 'run `salary-api migrate` (serve also migrates at start)',
      };
    return { status: 'ok', detail: `${db.kind} reachable, migrated (level ${level})` };
  },
};

export const redisCheck: Check = {
  name: 'redis',
  async run({ config, now }) {
    if (config.redisUrl === undefined)
      return { status: 'skip', detail: 'REDIS_URL not set: limits are per instance' };
    const redis = openRedis(config.redisUrl, {
      commandTimeoutMs: 2_000,
      name: 'salary-api-doctor',
    });
    try {
      const started = now();
      await redisReady(redis, 2_000);
      await redis.ping();
      return { status: 'ok', detail: `reachable, ping ${now() - started} ms` };
    } catch (error) {
      return {
        status: 'fail',
        detail: `not reachable (${(error as Error).message})`,
        fix: 'check REDIS_URL and that Redis is running',
      };
    } finally {
      redis.disconnect();
    }
  },
};

export const secretKeyCheck: Check = {
  name: 'secret key',
  async run({ config, db }) {
    let key = config.secretKey;
    const file = join(config.dataDir, SECRET_KEY_FILE);
    if (key === undefined && config.databaseUrl === undefined && existsSync(file))
      key = readFileSync(file, 'utf8').trim();
    if (key === undefined) {
      if (config.databaseUrl !== undefined)
        return {
          status: 'fail',
          detail: 'SECRET_KEY not set',
          fix: 'set SECRET_KEY (the same on every instance)',
        };
      return { status: 'ok', detail: `none yet: serve generates ${file} at first start` };
    }
    const stored = db === undefined ? undefined : await oldestWebhookSecret(db);
    if (stored === undefined)
      return { status: 'ok', detail: 'present; no stored secret to try it on' };
    try {
      createSecretBox(key, 'webhook-secrets').open(stored);
      return { status: 'ok', detail: 'present, and it decrypts the stored webhook secrets' };
    } catch {
      return {
        status: 'fail',
        detail: 'present, but it does not decrypt the stored webhook secrets',
        fix: 'set SECRET_KEY (or DATA_DIR/secret-key) back to the key that encrypted them',
      };
    }
  },
};

export const dataDirCheck: Check = {
  name: 'DATA_DIR permissions',
  async run({ config }) {
    if (config.databaseUrl !== undefined) return { status: 'skip', detail: 'DATABASE_URL is set' };
    if (!existsSync(config.dataDir))
      return {
        status: 'ok',
        detail: `${config.dataDir} does not exist yet (serve creates it 0700)`,
      };
    const loose: string[] = [];
    const walk = (path: string): void => {
      const stat = lstatSync(path);
      if (stat.isSymbolicLink()) return;
      const want = stat.isDirectory() ? PRIVATE_DIR_MODE : PRIVATE_FILE_MODE;
      if ((stat.mode & 0o777) !== want) loose.push(path);
      if (stat.isDirectory()) for (const name of readdirSync(path)) walk(join(path, name));
    };
    walk(config.dataDir);
    if (loose.length === 0) return { status: 'ok', detail: `${config.dataDir}: owner only` };
    return {
      status: 'fail',
      detail: `${loose.length} entries readable by others, e.g. ${loose[0]}`,
      fix: `chmod -R go-rwx ${config.dataDir} (serve also tightens them at start)`,
    };
  },
};

export const smtpCheck: Check = {
  name: 'SMTP',
  async run({ config }) {
    if (config.smtpUrl === undefined)
      return {
        status: 'skip',
        detail: 'SMTP_URL not set: notices are written to the log and kept in the outbox',
      };
    const host = new URL(config.smtpUrl).host;
    try {
      await verifySmtp(config.smtpUrl);
      return { status: 'ok', detail: `${host} reachable, greeting and log-in accepted` };
    } catch (error) {
      return {
        status: 'fail',
        detail: `${host}: ${(error as Error).message}`,
        fix: 'check SMTP_URL (host, port, user, password, smtp:// or smtps://) and that the mail server is up',
      };
    }
  },
};

export const trustProxyCheck: Check = {
  name: 'TRUST_PROXY',
  async run({ config }) {
    if (config.trustProxy.length > 0)
      return { status: 'ok', detail: `trusting ${config.trustProxy.join(', ')}` };
    return {
      status: 'ok',
      detail:
        'not set: client addresses are the socket peers; behind a proxy or load balancer set it, or every client shares the proxy address for limits',
    };
  },
};

export const releaseCheck: Check = {
  name: 'data release',
  async run({ db, now }) {
    if (db === undefined) return { status: 'skip', detail: 'no database' };
    const read = await lastLoadedRelease(db).then(
      (release) => ({ release }),
      () => undefined,
    );
    if (read === undefined) return { status: 'skip', detail: 'database not migrated yet' };
    const row = read.release;
    if (row === undefined)
      return { status: 'ok', detail: 'none yet: serve loads the bundled release at first start' };
    const days = Math.floor((now() - row.loadedAt) / 86_400_000);
    if (days > RELEASE_AGE_WARN_DAYS)
      return {
        status: 'fail',
        detail: `${row.version}, loaded ${days} days ago`,
        fix: 'load a newer release with `salary-api data load FILE`',
      };
    return { status: 'ok', detail: `${row.version}, loaded ${days} days ago` };
  },
};

export const clockCheck: Check = {
  name: 'clock',
  async run({ db, now }) {
    if (db === undefined || db.kind !== 'postgres')
      return { status: 'skip', detail: 'embedded database: same clock' };
    const before = now();
    const at = await databaseNow(db);
    const after = now();
    const skew = at - (before + after) / 2;
    if (Math.abs(skew) > SKEW_LIMIT_MS)
      return {
        status: 'fail',
        detail: `${Math.round(skew)} ms apart from PostgreSQL`,
        fix: 'synchronise the clocks (NTP) of this host and the database host',
      };
    return { status: 'ok', detail: `${Math.round(skew)} ms apart from PostgreSQL` };
  },
};

export const sellerCheck: Check = {
  name: 'seller (invoices)',
  async run({ config }) {
    const gaps = sellerGaps(config.seller);
    if (gaps.length === 0)
      return { status: 'ok', detail: `${config.seller.name}, ${config.seller.vatNumber}` };
    return {
      status: 'fail',
      detail: `invoices would lack ${gaps.join(', ')}`,
      fix: `set ${gaps.join(', ')} (README set-up, docs/configuration.md)`,
    };
  },
};

/** Run before the database opens (opening it tightens DATA_DIR's modes). */
export const BEFORE_OPEN_CHECKS: readonly Check[] = [dataDirCheck];

/** The checks after configuration and database; add to this list (e.g. SMTP) to extend. */
export const DEFAULT_CHECKS: readonly Check[] = [
  databaseCheck,
  redisCheck,
  secretKeyCheck,
  trustProxyCheck,
  smtpCheck,
  sellerCheck,
  releaseCheck,
  clockCheck,
];

/** Opens the database for the checks, or says why it could not. */
export async function openForDoctor(
  config: Config,
): Promise<{ db: Db | undefined; result: CheckResult }> {
  try {
    const db = await openDatabase(config);
    return { db, result: { check: 'database connection', status: 'ok', detail: 'opened' } };
  } catch (error) {
    const inUse = error instanceof EmbeddedLockError;
    return {
      db: undefined,
      result: {
        check: 'database connection',
        status: 'fail',
        detail: (error as Error).message,
        fix: inUse
          ? 'run doctor while the server is stopped, or use GET /ready on the running server'
          : 'check DATABASE_URL (or DATA_DIR) and that the database is running',
      },
    };
  }
}

/** Runs every check (a throwing check is a failure), one result each. */
export async function runChecks(
  ctx: DoctorContext,
  checks: readonly Check[] = DEFAULT_CHECKS,
): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  for (const check of checks) {
    try {
      results.push({ check: check.name, ...(await check.run(ctx)) });
    } catch (error) {
      results.push({ check: check.name, status: 'fail', detail: (error as Error).message });
    }
  }
  return results;
}

/** One line per check: `ok   database  postgres reachable …  → what to do`. */
export function formatResults(results: readonly CheckResult[]): string {
  const width = Math.max(...results.map((r) => r.check.length));
  return results
    .map(
      (r) =>
        `${r.status.toUpperCase().padEnd(4)}  ${r.check.padEnd(width)}  ${r.detail}${r.fix === undefined ? '' : `  → ${r.fix}`}`,
    )
    .join('\n');
}
