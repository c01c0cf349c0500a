import { resolve } from 'node:path';
import { sellerGaps, type Config } from '../config/index.js';

type StartupConfig = Pick<Config, 'dataDir' | 'databaseUrl' | 'redisUrl' | 'publicBaseUrl'> &
  Partial<Pick<Config, 'seller' | 'smtpUrl'>>;

/**
 * The server's one start-up line: where it listens, which database and shared store it uses
 * (no password), and where to go, and how mail leaves; then a warning naming the SELLER_*
 * settings invoices still lack, if any. `address` is a listened address as Fastify gives it.
 */
export function startupLine(config: StartupConfig, address: string): string {
  const base = (config.publicBaseUrl ?? address).replace(/\/$/, '');
  return (
    `salary API listening at ${address}; ` +
    `database: ${describeDatabase(config)}; ` +
    `limits and caches: ${config.redisUrl === undefined ? 'in-process (no REDIS_URL)' : `Redis at ${withoutSecrets(config.redisUrl)}`}; ` +
    `open ${base}/ (start), ${base}/docs (API reference), ${base}/dashboard (account dashboard)` +
    mailNote(config) +
    sellerWarning(config)
  );
}

/**
 * Fastify's `listenTextResolver`: Fastify logs one line per listened address, so the first is
 * the start-up line and any other (every interface of 0.0.0.0) only says it is reachable there.
 */
export function listenText(config: StartupConfig): (address: string) => string {
  let first = true;
  return (address) => {
    if (!first) return `also reachable at ${address}`;
    first = false;
    return startupLine(config, address);
  };
}

/**
 * Without SMTP_URL, mail is written to the log (docs/notices.md), password-reset and
 * verification links included: whoever reads the log can use them.
 */
function mailNote(config: StartupConfig): string {
  if (!('smtpUrl' in config) || config.smtpUrl !== undefined) return '';
  return '; mail: written to this log, password-reset and verification links included (no SMTP_URL; keep the log private)';
}

function sellerWarning(config: StartupConfig): string {
  if (config.seller === undefined) return '';
  const gaps = sellerGaps(config.seller);
  if (gaps.length === 0) return '';
  return `; WARNING: invoices lack ${gaps.join(', ')} (see README set-up; \`salary-api doctor\` checks them)`;
}

function describeDatabase(config: StartupConfig): string {
  if (config.databaseUrl === undefined)
    return `embedded PGlite in ${resolve(config.dataDir, 'pglite')}`;
  return `PostgreSQL ${withoutSecrets(config.databaseUrl)}`;
}

/** `scheme://user@host:port/path`: the password and query (which may hold one) left out. */
function withoutSecrets(raw: string): string {
  const url = new URL(raw);
  const user = url.username === '' ? '' : `${decodeURIComponent(url.username)}@`;
  return `${url.protocol}//${user}${url.host}${url.pathname === '/' ? '' : url.pathname}`;
}
