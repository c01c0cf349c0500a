import cluster from 'node:cluster';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, type Config } from '../config/index.js';
import { AppError } from '../errors/index.js';
import { systemClock } from '../lib/clock.js';
import {
  createReleaseService,
  readReleaseFile,
  ReleaseConflictError,
  ReleaseValidationError,
} from '../releases/index.js';
import { resolvePlans } from '../plans/index.js';
import { EmbeddedLockError, openPublishingBus } from '../store/index.js';
import { webhookPublisher } from '../webhooks/index.js';
import { BackupFormatError, RestoreRefused } from '../backup/index.js';
import { ACCOUNT_USAGE, accountCommand, CliUsageError } from './cli-accounts.js';
import { LICENSE_USAGE, licenseCommand } from './cli-licensing.js';
import { OAUTH_USAGE, oauthCommand } from './cli-oauth.js';
import { COMPLIANCE_USAGE, complianceCommand } from './cli-compliance.js';
import { backupCommand, restoreCommand } from './cli-backup.js';
import { doctorCommand } from './cli-doctor.js';
import { SLA_USAGE, slaCommand } from './cli-sla.js';
import { runPrimary, WorkersError } from './cluster.js';
import { createLogger, openMigratedDatabase } from './setup.js';
import { createRole, createServer, type Role } from './wire.js';

const USAGE = `Usage: salary-api <command>

Commands:
  serve [--workers N] [--role all|api|worker]
                        Serve the API and run the background jobs (PORT, HOST; embedded database in
                        DATA_DIR unless DATABASE_URL); --workers N runs N processes sharing the port
                        (needs DATABASE_URL and REDIS_URL); --role api or worker runs one role only
                        (needs DATABASE_URL)
  migrate               Apply pending database migrations
  data load FILE        Validate a data release file completely, then load it in one transaction
  data status           Show the active data release
  backup FILE           Snapshot the embedded database to FILE (server stopped); on PostgreSQL,
                        prints the pg_dump command to use instead
  doctor [--json]       Check the deployment: configuration, database, Redis, SECRET_KEY, DATA_DIR
                        permissions, release age, clock skew; exit 0 only when every check passes
  restore FILE          Replace the embedded database with a backup (server stopped); checks the
                        manifest, the SHA-256 and the migration level first
${ACCOUNT_USAGE}
${LICENSE_USAGE}
${OAUTH_USAGE}
${COMPLIANCE_USAGE}
${SLA_USAGE}

Configuration comes from the environment; see the README.`;

class UsageError extends Error {}

async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        json: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
        email: { type: 'string' },
        password: { type: 'string' },
        plan: { type: 'string' },
        'price-cents': { type: 'string' },
        limit: { type: 'string' },
        sla: { type: 'string' },
        formats: { type: 'string' },
        name: { type: 'string' },
        'manager-email': { type: 'string' },
        workers: { type: 'string' },
        role: { type: 'string' },
        // compliance add / withdraw
        title: { type: 'string' },
        'period-start': { type: 'string' },
        'period-end': { type: 'string' },
        series: { type: 'string' },
        description: { type: 'string' },
        reason: { type: 'string' },
        // Uptime SLA and status page (cli-sla.ts); `title` is shared with compliance.
        component: { type: 'string' },
        status: { type: 'string' },
        message: { type: 'string' },
        start: { type: 'string' },
        end: { type: 'string' },
        url: { type: 'string' },
        key: { type: 'string' },
        bands: { type: 'string' },
        month: { type: 'string' },
        licensee: { type: 'string' },
        attribution: { type: 'string' },
        'white-label': { type: 'boolean' },
        'permitted-use': { type: 'string' },
        'term-end': { type: 'string' },
        host: { type: 'string' },
        remove: { type: 'boolean' },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { positionals, values } = parsed;
  const [command, sub, arg] = positionals;
  if (values.help || command === undefined || command === 'help') {
    console.log(USAGE);
    return command === undefined && !values.help ? 2 : 0;
  }
  if (command === 'doctor') return doctorCommand(values.json);
  const config = loadConfig();
  if (command === 'account' && (sub === 'license' || sub === 'host'))
    return licenseCommand(config, positionals, values);
  switch (command) {
    case 'serve': {
      const role = values.role ?? 'all';
      if (role !== 'all' && role !== 'api' && role !== 'worker')
        throw new UsageError('--role must be all, api or worker');
      if (role !== 'all' && config.databaseUrl === undefined)
        throw new UsageError(
          `--role ${role} needs DATABASE_URL: the embedded database belongs to one process`,
        );
      if (values.workers === undefined || cluster.isWorker) return serve(config, role);
      const workers = Number(values.workers);
      if (!Number.isInteger(workers) || workers < 1 || workers > 64)
        throw new UsageError('--workers must be a whole number from 1 to 64');
      return runPrimary(config, workers, createLogger(config));
    }
    case 'migrate':
      return migrateCommand(config);
    case 'data':
      if (sub === 'load' && arg !== undefined) return loadCommand(config, arg, values.json);
      if (sub === 'status') return statusCommand(config, values.json);
      throw new UsageError('data takes "load FILE" or "status"');
    case 'oauth':
      return oauthCommand(config, sub, arg, values.json);
    case 'backup':
      if (sub === undefined) throw new UsageError('backup takes FILE');
      return backupCommand(config, sub, values.json);
    case 'restore':
      if (sub === undefined) throw new UsageError('restore takes FILE');
      return restoreCommand(config, sub, values.json);
    case 'compliance':
      return complianceCommand(config, sub, arg, values);
    case 'account':
    case 'invoice':
    case 'billing':
      return accountCommand(config, positionals, values);
    case 'probe':
    case 'incident':
    case 'maintenance':
    case 'sla':
      return slaCommand(config, positionals, values);
    default:
      throw new UsageError(`unknown command "${command}"`);
  }
}

async function serve(config: Config, role: Role): Promise<number> {
  const logger = createLogger(config, true);
  const db = await openMigratedDatabase(config, logger);
  const deps = { clock: systemClock, logger, db };
  const server =
    role === 'all' ? await createServer(config, deps) : await createRole(config, deps, role);
  const address = await server.listen();
  if (address === undefined) logger.info({ role, database: db.kind }, 'salary API worker running');
  else logger.info({ address, role, database: db.kind }, 'salary API listening');

  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: finishing in-flight requests');
    const force = setTimeout(() => {
      logger.error('shutdown timed out; exiting');
      process.exit(1);
    }, config.shutdownTimeoutMs);
    force.unref();
    server
      .drain()
      .then(() => server.close())
      .then(() => db.close())
      .then(() => {
        logger.info('shutdown complete');
        process.exit(0);
      })
      .catch((error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      });
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  return new Promise<number>(() => undefined);
}

async function migrateCommand(config: Config): Promise<number> {
  const logger = createLogger(config);
  const db = await openMigratedDatabase(config, logger);
  await db.close();
  console.log('database schema is up to date');
  return 0;
}

async function loadCommand(config: Config, file: string, json: boolean): Promise<number> {
  const parsed = await readReleaseFile(file);
  const logger = createLogger({ ...config, logLevel: 'warn' });
  const db = await openMigratedDatabase(config, logger);
  try {
    const onEvent = webhookPublisher(resolvePlans(config.planOverrides), systemClock);
    const result = await createReleaseService({ db, clock: systemClock, onEvent }).load(parsed);
    // Running instances switch to it now rather than at their next poll.
    const changes = await openPublishingBus(config.redisUrl, config.redisKeyPrefix, logger);
    await changes.bus.publish('release');
    await changes.close();
    const summary = {
      release: result.release.version,
      records: result.release.recordCount,
      event: { id: result.eventId, type: 'data.updated', data: result.event },
    };
    console.log(
      json
        ? JSON.stringify(summary, null, 2)
        : `loaded release ${summary.release} (${summary.records} records); event ${result.eventId} data.updated recorded`,
    );
    return 0;
  } finally {
    await db.close();
  }
}

async function statusCommand(config: Config, json: boolean): Promise<number> {
  const logger = createLogger({ ...config, logLevel: 'warn' });
  const db = await openMigratedDatabase(config, logger);
  try {
    const id = await createReleaseService({ db, clock: systemClock }).activeId();
    const rows = await db.query<{ version: string; loaded_at: Date; record_count: number }>(
      'SELECT version, loaded_at, record_count FROM data_releases WHERE id = $1',
      [id ?? 0],
    );
    const active = rows[0];
    const out =
      active === undefined
        ? { active: null }
        : {
            active: {
              version: active.version,
              loaded_at: new Date(active.loaded_at).toISOString(),
              records: active.record_count,
            },
          };
    console.log(
      json
        ? JSON.stringify(out)
        : active === undefined
          ? 'no release loaded'
          : `active release ${active.version}, ${active.record_count} records, loaded ${out.active?.loaded_at}`,
    );
    return 0;
  } finally {
    await db.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof UsageError || error instanceof CliUsageError) {
      console.error(`salary-api: ${error.message}\n\n${USAGE}`);
      process.exit(2);
    }
    const known = [
      ConfigError,
      ReleaseValidationError,
      ReleaseConflictError,
      EmbeddedLockError,
      AppError,
      WorkersError,
      BackupFormatError,
      RestoreRefused,
    ].some((k) => error instanceof k);
    console.error(
      `salary-api: ${known ? (error as Error).message : String((error as Error).stack ?? error)}`,
    );
    process.exit(1);
  },
);
