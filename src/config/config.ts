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
import { readEnvironment, type EnvironmentName } from './environment.js';

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
  /** Webhook endpoints and export destinations may be http and private/loopback addresses. */
  readonly outboundAllowPrivateTargets: boolean;
  readonly secretKey: string | undefined;
  /** How often this process looks for due webhook deliveries; 0: no webhook worker here. */
  readonly webhookPollMs: number;
  /** Webhook deliveries sent at the same time by this process. */
  readonly webhookConcurrency: number;
  /** How often this process queues due export occurrences and runs queued exports; 0: never. */
  readonly exportPollMs: number;
  /** Export runs worked on at the same time by this process (one render thread each). */
  readonly exportConcurrency: number;
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
  /** Notices sent at the same time by this process. */
  readonly noticeConcurrency: number;
  /** How often an instance records its SLA heartbeat; 0: not at all (tests beat by hand). */
  readonly slaHeartbeatMs: number;
  /** How often a running export renews its 30-minute lease (the upload heartbeat). */
  readonly exportHeartbeatMs: number;
  /** The operator as invoices name it (SELLER_*); its VAT number decides whether VAT is charged. */
  readonly seller: Seller;
  /** Lines to log at start: former variable names read as their new names. */
  readonly warnings: readonly string[];
}

export const BUNDLED_RELEASE = fileURLToPath(
  new URL('../../releases/salary-2026.11.8.jsonl.gz', import.meta.url),
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

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Reads the environment into a Config: each variable validated against the schema in
 * `environment.ts`, then the settings that have a syntax of their own (trusted proxies, plan
 * overrides, the backup schedule, the seller, the legal texts). Collects every problem before
 * failing, so an operator fixes them in one go. docs/configuration.md lists the variables.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): Config {
  const problems: string[] = [];
  const warnings: string[] = [];
  const e = readEnvironment(env, problems, warnings);
  const ms = (s: number): number => Math.round(s * 1000);
  const str = (name: EnvironmentName): string | undefined => e[name] as string | undefined;

  let trustProxy: string[] = [];
  try {
    trustProxy = parseTrustProxy(e.TRUST_PROXY);
  } catch (error) {
    problems.push(`TRUST_PROXY: ${(error as Error).message}`);
  }

  let planOverrides: PlanOverrides = {};
  try {
    planOverrides = parsePlanOverrides(e.PLAN_OVERRIDES);
  } catch (error) {
    problems.push(`PLAN_OVERRIDES: ${(error as Error).message}`);
  }

  try {
    new Cron(e.BACKUP_SCHEDULE, { paused: true, timezone: 'UTC' }).stop();
  } catch (error) {
    problems.push(`BACKUP_SCHEDULE must be a cron expression: ${(error as Error).message}`);
  }

  const pathOf = (raw: string): string => (isAbsolute(raw) ? raw : resolve(cwd, raw));
  const config: Config = {
    port: e.PORT,
    host: e.HOST,
    dataDir: pathOf(e.DATA_DIR),
    databaseUrl: e.DATABASE_URL,
    redisUrl: e.REDIS_URL,
    redisKeyPrefix: e.REDIS_KEY_PREFIX,
    redisTimeoutMs: ms(e.REDIS_TIMEOUT_SECONDS),
    trustProxy,
    outboundAllowPrivateTargets: e.OUTBOUND_ALLOW_PRIVATE_TARGETS,
    secretKey: e.SECRET_KEY,
    webhookPollMs: ms(e.WEBHOOK_POLL_SECONDS),
    webhookConcurrency: e.WEBHOOK_CONCURRENCY,
    exportPollMs: ms(e.EXPORT_POLL_SECONDS),
    exportConcurrency: e.EXPORT_CONCURRENCY,
    logLevel: e.LOG_LEVEL,
    accessLog: e.ACCESS_LOG,
    planOverrides,
    releaseFile: pathOf(e.RELEASE_FILE ?? BUNDLED_RELEASE),
    releasePollMs: e.RELEASE_POLL_SECONDS * 1000,
    credentialRefreshMs: ms(e.CREDENTIAL_REFRESH_SECONDS),
    oauthTokenTtlSeconds: e.OAUTH_TOKEN_TTL_SECONDS,
    dpopNonce: e.DPOP_NONCE,
    usageFlushMs: e.USAGE_FLUSH_SECONDS * 1000,
    billingIntervalMs: e.BILLING_INTERVAL_SECONDS * 1000,
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_SECONDS * 1000,
    publicBaseUrl: e.PUBLIC_BASE_URL,
    viesUrl: e.VIES_URL,
    metricsToken: e.METRICS_TOKEN,
    metricsPort: e.METRICS_PORT,
    backupDir: e.BACKUP_DIR === undefined ? undefined : pathOf(e.BACKUP_DIR),
    backupSchedule: e.BACKUP_SCHEDULE,
    backupKeep: e.BACKUP_KEEP,
    smtpUrl: e.SMTP_URL,
    mailFrom: e.MAIL_FROM,
    supportEmail: e.SUPPORT_EMAIL,
    salesEmail: e.SALES_EMAIL,
    legalFiles: legalFilesOf(str, pathOf, problems),
    communityUrl: e.COMMUNITY_URL,
    noticePollMs: ms(e.NOTICE_POLL_SECONDS),
    noticeConcurrency: e.NOTICE_CONCURRENCY,
    slaHeartbeatMs: e.SLA_HEARTBEAT_SECONDS * 1000,
    exportHeartbeatMs: ms(e.EXPORT_HEARTBEAT_SECONDS),
    seller: parseSeller(str, problems),
    warnings,
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
