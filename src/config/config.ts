import { isIP } from 'node:net';
import { Cron } from 'croner';
import { readdirSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parsePlanOverrides, type PlanOverrides } from '../plans/index.js';
import type { Seller } from './eu-vat.js';
import { legalFilesOf, type LegalDocument } from './legal.js';
import { parseSeller } from './seller.js';
import { parseTrustProxy } from './trust-proxy.js';
import { PRODUCT_NAME } from '../lib/product-name.js';

/** Everything the process is configured with, parsed once at start and frozen. */
export interface Config {
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
  readonly databaseUrl: string | undefined;
  readonly redisUrl: string | undefined;
  /** Prefix of every Redis key and channel, so several deployments can share one Redis. */
  readonly redisKeyPrefix: string;
  readonly redisTimeoutMs: number;
  readonly trustProxy: readonly string[];
  readonly webhookAllowPrivateTargets: boolean;
  readonly secretKey: string | undefined;
  /** How often this process looks for due webhook deliveries; 0: no webhook worker here. */
  readonly webhookPollMs: number;
  /** Webhook deliveries sent at the same time by this process. */
  readonly webhookConcurrency: number;
  /** How often this process queues due export occurrences and runs queued exports; 0: never. */
  readonly exportPollMs: number;
  readonly logLevel: string;
  readonly accessLog: boolean;
  readonly planOverrides: PlanOverrides;
  readonly releaseFile: string;
  readonly releasePollMs: number;
  readonly credentialRefreshMs: number;
  /** Lifetime of OAuth access tokens, seconds. */
  readonly oauthTokenTtlSeconds: number;
  /** Where DPoP proofs must carry a server-provided nonce (RFC 9449 §8, §9): off, token, all. */
  readonly dpopNonce: 'off' | 'token' | 'all';
  readonly usageFlushMs: number;
  readonly billingIntervalMs: number;
  readonly shutdownTimeoutMs: number;
  readonly publicBaseUrl: string | undefined;
  /** The EU's VIES REST service, which verifies buyers' VAT numbers; off when unset. */
  readonly viesUrl: string | undefined;
  /** Bearer token of `GET /metrics` on the API port; without it (and METRICS_PORT) no metrics. */
  readonly metricsToken: string | undefined;
  /** A loopback-only port serving `GET /metrics`; undefined: none. */
  readonly metricsPort: number | undefined;
  /** Where `serve` writes snapshots of the embedded database; undefined: no scheduled backups. */
  readonly backupDir: string | undefined;
  /** Cron expression (UTC) of the scheduled snapshots. */
  readonly backupSchedule: string;
  /** Snapshots kept in BACKUP_DIR; older ones are deleted after a new one is complete. */
  readonly backupKeep: number;
  /** SMTP server for notices; without it mail is written to the log. */
  readonly smtpUrl: string | undefined;
  readonly mailFrom: string;
  /** Where support requests are mailed. */
  readonly supportEmail: string | undefined;
  /** Where Enterprise enquiries go (SALES_EMAIL); the plans offer SUPPORT_EMAIL without it. */
  readonly salesEmail: string | undefined;
  /** The operator's own legal texts (Markdown files, LEGAL_*_FILE); a template stands in for each one not set. */
  readonly legalFiles: Readonly<Partial<Record<LegalDocument, string>>>;
  /** The community channel Free accounts are pointed to for support. */
  readonly communityUrl: string;
  /** How often this process looks for due notices; 0: no notice worker here. */
  readonly noticePollMs: number;
  /** How often an instance records its SLA heartbeat; 0: not at all (tests beat by hand). */
  readonly slaHeartbeatMs: number;
  /** How often a running export renews its 30-minute lease (the upload heartbeat). */
  readonly exportHeartbeatMs: number;
  /** The operator as invoices name it (SELLER_*); its VAT number decides whether VAT is charged. */
  readonly seller: Seller;
}

export const BUNDLED_RELEASE = fileURLToPath(
  new URL('../../releases/salary-2026.11.6.jsonl.gz', import.meta.url),
);

const RELEASE_NAME = /^salary-(\d+)\.(\d+)\.(\d+)\.jsonl(\.gz)?$/;

/**
 * The releases a new database is given, oldest first: for the bundled release, every release
 * file kept beside it in `releases/` that is older than it, then it; any other file alone.
 */
export function releaseFilesFor(file: string): string[] {
  if (file !== BUNDLED_RELEASE) return [file];
  const order = (name: string): number[] => RELEASE_NAME.exec(name)!.slice(1, 4).map(Number);
  const newer = (a: number[], b: number[]): number =>
    a[0]! - b[0]! || a[1]! - b[1]! || a[2]! - b[2]!;
  const own = order(basename(file));
  const older = readdirSync(dirname(file))
    .filter((name) => RELEASE_NAME.test(name) && newer(order(name), own) < 0)
    .sort((a, b) => newer(order(a), order(b)));
  return [...older.map((name) => join(dirname(file), name)), file];
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Reads the environment into a Config. Collects every problem before failing, so an
 * operator fixes them in one go. The variables are listed in the README.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): Config {
  const problems: string[] = [];
  const str = (name: string): string | undefined => {
    const value = env[name]?.trim();
    return value === undefined || value === '' ? undefined : value;
  };
  const int = (name: string, fallback: number, min: number, max: number): number => {
    const raw = str(name);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!/^\d+$/.test(raw) || value < min || value > max) {
      problems.push(`${name} must be a whole number from ${min} to ${max} (got "${raw}")`);
      return fallback;
    }
    return value;
  };
  const bool = (name: string, fallback: boolean): boolean => {
    const raw = str(name)?.toLowerCase();
    if (raw === undefined) return fallback;
    if (raw === 'true' || raw === '1') return true;
    if (raw === 'false' || raw === '0') return false;
    problems.push(`${name} must be true or false (got "${raw}")`);
    return fallback;
  };
  const url = (name: string, protocols: string[]): string | undefined => {
    const raw = str(name);
    if (raw === undefined) return undefined;
    try {
      const parsed = new URL(raw);
      if (!protocols.includes(parsed.protocol)) throw new Error('protocol');
      return raw;
    } catch {
      problems.push(`${name} must be a URL starting with ${protocols.join(' or ')}//`);
      return undefined;
    }
  };

  const logLevel = str('LOG_LEVEL') ?? 'info';
  if (!LOG_LEVELS.includes(logLevel))
    problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);

  const dpopNonce = (str('DPOP_NONCE') ?? 'off').toLowerCase();
  if (dpopNonce !== 'off' && dpopNonce !== 'token' && dpopNonce !== 'all')
    problems.push(`DPOP_NONCE must be one of off, token, all (got "${dpopNonce}")`);

  let trustProxy: string[] = [];
  try {
    trustProxy = parseTrustProxy(str('TRUST_PROXY'));
  } catch (error) {
    problems.push(`TRUST_PROXY: ${(error as Error).message}`);
  }

  let planOverrides: PlanOverrides = {};
  try {
    planOverrides = parsePlanOverrides(str('PLAN_OVERRIDES'));
  } catch (error) {
    problems.push(`PLAN_OVERRIDES: ${(error as Error).message}`);
  }

  const secretKey = str('SECRET_KEY');
  if (secretKey !== undefined && secretKey.length < 32) {
    problems.push('SECRET_KEY must be at least 32 characters');
  }

  const metricsToken = str('METRICS_TOKEN');
  if (metricsToken !== undefined && metricsToken.length < 16)
    problems.push('METRICS_TOKEN must be at least 16 characters');
  const backupSchedule = str('BACKUP_SCHEDULE') ?? '0 3 * * *';
  try {
    new Cron(backupSchedule, { paused: true, timezone: 'UTC' }).stop();
  } catch (error) {
    problems.push(`BACKUP_SCHEDULE must be a cron expression: ${(error as Error).message}`);
  }
  const email = (name: string, fallback?: string): string | undefined => {
    const raw = str(name) ?? fallback;
    if (raw === undefined) return undefined;
    const address = /<([^<>]+)>\s*$/.exec(raw)?.[1] ?? raw;
    if (!/^[^\s@<>]+@[^\s@<>]+$/.test(address)) {
      problems.push(
        `${name} must be an e-mail address, optionally "Name <address>" (got "${raw}")`,
      );
    }
    return raw;
  };

  const pathOf = (raw: string): string => (isAbsolute(raw) ? raw : resolve(cwd, raw));
  const config: Config = {
    port: int('PORT', 3000, 0, 65535),
    host: str('HOST') ?? '127.0.0.1',
    dataDir: pathOf(str('DATA_DIR') ?? './data'),
    databaseUrl: url('DATABASE_URL', ['postgres:', 'postgresql:']),
    redisUrl: url('REDIS_URL', ['redis:', 'rediss:']),
    redisKeyPrefix: str('REDIS_KEY_PREFIX') ?? 'salary-api:',
    redisTimeoutMs: int('REDIS_TIMEOUT_MS', 500, 10, 10_000),
    trustProxy,
    webhookAllowPrivateTargets: bool('WEBHOOK_ALLOW_PRIVATE_TARGETS', false),
    secretKey,
    webhookPollMs: int('WEBHOOK_POLL_MS', 1000, 0, 600_000),
    webhookConcurrency: int('WEBHOOK_CONCURRENCY', 8, 1, 256),
    exportPollMs: int('EXPORT_POLL_MS', 30_000, 0, 600_000),
    logLevel,
    accessLog: bool('ACCESS_LOG', true),
    planOverrides,
    releaseFile: pathOf(str('RELEASE_FILE') ?? BUNDLED_RELEASE),
    releasePollMs: int('RELEASE_POLL_SECONDS', 5, 1, 3600) * 1000,
    credentialRefreshMs: int('CREDENTIAL_REFRESH_MS', 1000, 100, 60_000),
    oauthTokenTtlSeconds: int('OAUTH_TOKEN_TTL_SECONDS', 3600, 60, 86_400),
    dpopNonce: dpopNonce === 'token' || dpopNonce === 'all' ? dpopNonce : 'off',
    usageFlushMs: int('USAGE_FLUSH_SECONDS', 5, 1, 3600) * 1000,
    billingIntervalMs: int('BILLING_INTERVAL_SECONDS', 60, 1, 86_400) * 1000,
    shutdownTimeoutMs: int('SHUTDOWN_TIMEOUT_SECONDS', 10, 1, 600) * 1000,
    publicBaseUrl: url('PUBLIC_BASE_URL', ['http:', 'https:']),
    viesUrl: url('VIES_URL', ['http:', 'https:']),
    metricsToken,
    metricsPort: str('METRICS_PORT') === undefined ? undefined : int('METRICS_PORT', 0, 1, 65535),
    backupDir: str('BACKUP_DIR') === undefined ? undefined : pathOf(str('BACKUP_DIR')!),
    backupSchedule,
    backupKeep: int('BACKUP_KEEP', 7, 1, 1000),
    smtpUrl: url('SMTP_URL', ['smtp:', 'smtps:']),
    mailFrom: email('MAIL_FROM', `${PRODUCT_NAME} <no-reply@localhost>`)!,
    supportEmail: email('SUPPORT_EMAIL'),
    salesEmail: email('SALES_EMAIL'),
    legalFiles: legalFilesOf(str, pathOf, problems),
    communityUrl:
      url('COMMUNITY_URL', ['http:', 'https:']) ??
      'https://github.com/salary-api/community/discussions',
    noticePollMs: int('NOTICE_POLL_MS', 1000, 0, 600_000),
    slaHeartbeatMs: int('SLA_HEARTBEAT_SECONDS', 60, 0, 600) * 1000,
    exportHeartbeatMs: int('EXPORT_HEARTBEAT_MS', 600_000, 100, 900_000),
    seller: parseSeller(str, problems),
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze(config);
}

/**
 * The server's own URL without a trailing slash: `PUBLIC_BASE_URL`, or the listening address
 * (an IPv6 one in brackets, as a URL needs it). The OAuth issuer, the OpenAPI servers and links
 * the service writes all start with it.
 */
export function baseUrlOf(config: Pick<Config, 'publicBaseUrl' | 'host' | 'port'>): string {
  if (config.publicBaseUrl !== undefined) return config.publicBaseUrl.replace(/\/$/, '');
  const host = isIP(config.host) === 6 ? `[${config.host}]` : config.host;
  return `http://${host}:${config.port}`;
}
