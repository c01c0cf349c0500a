import cluster from 'node:cluster';
import { parseArgs } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { ConfigError, loadConfig, type Config } from '../config/index.js';
import { AppError } from '../errors/index.js';
import {
  ACCOUNT_USAGE,
  CliUsageError,
  COMPLIANCE_USAGE,
  LICENSE_USAGE,
  OAUTH_USAGE,
  SLA_USAGE,
} from './cli-usage.js';

// Each command loads only its own module: an operator command does not pay for the server's.
const USAGE = `Usage: salary-api <command>

Commands:
  serve [--workers N] [--role all|api|worker]
                        Serve the API and run the background jobs (PORT, HOST; embedded database in
                        DATA_DIR unless DATABASE_URL); --workers N runs N processes sharing the port
                        (needs DATABASE_URL and REDIS_URL); --role api or worker runs one role only
                        (needs DATABASE_URL and REDIS_URL, and PUBLIC_BASE_URL for the worker)
  migrate               Apply pending database migrations
  data load FILE        Validate a data release file completely, then load it in one transaction
  data status           Show the active data release
  data list [--json]    List the kept data releases, newest first (the first is active)
  data retire VERSION   Retire an older release: its records are deleted; the active one stays
  data diff A B [--json]
                        What changed from release A to release B: cells moved beyond 1, 5 and
                        10 %, per country and job, with the reasons
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
/** A command that cannot run as asked; its message says why. */
class CommandFailure extends Error {}

/** Errors whose message is the whole story, by name (their modules load only with their command). */
const KNOWN_ERRORS = new Set([
  'ReleaseValidationError',
  'ReleaseConflictError',
  'ReleaseRetireError',
  'DataCommandError',
  'EmbeddedLockError',
  'BackupFormatError',
  'RestoreRefused',
]);

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
        // account create / contract: who a paid plan's invoices are made out to
        'billing-name': { type: 'string' },
        address: { type: 'string' },
        country: { type: 'string' },
        'vat-number': { type: 'string' },
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
        'print-link': { type: 'boolean' },
        yes: { type: 'boolean' },
        // payments sepa-batch
        out: { type: 'string' },
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
  if (command === 'doctor') return (await import('./cli-doctor.js')).doctorCommand(values.json);
  const config = loadConfig();
  if (command === 'account' && (sub === 'license' || sub === 'host'))
    return (await import('./cli-licensing.js')).licenseCommand(config, positionals, values);
  switch (command) {
    case 'serve': {
      const role = values.role ?? 'all';
      if (role !== 'all' && role !== 'api' && role !== 'worker')
        throw new UsageError('--role must be all, api or worker');
      if (role !== 'all') splitRoleNeeds(config, role);
      if (values.workers === undefined || cluster.isWorker) return serve(config, role);
      const workers = Number(values.workers);
      if (!Number.isInteger(workers) || workers < 1 || workers > 64)
        throw new UsageError('--workers must be a whole number from 1 to 64');
      const [{ runPrimary, WorkersError }, { createLogger }] = await Promise.all([
        import('./cluster.js'),
        import('./logger.js'),
      ]);
      return runPrimary(config, workers, createLogger(config)).catch((error: unknown) => {
        throw error instanceof WorkersError ? new CommandFailure(error.message) : error;
      });
    }
    case 'migrate':
      return (await import('./cli-data.js')).migrateCommand(config);
    case 'data': {
      const data = await import('./cli-data.js');
      if (sub === 'load' && arg !== undefined) return data.loadCommand(config, arg, values.json);
      if (sub === 'status') return data.statusCommand(config, values.json);
      if (sub === 'list') return data.listCommand(config, values.json);
      if (sub === 'retire' && arg !== undefined)
        return data.retireCommand(config, arg, values.json);
      const to = positionals[3];
      if (sub === 'diff' && arg !== undefined && to !== undefined)
        return data.diffCommand(config, arg, to, values.json);
      throw new UsageError(
        'data takes "load FILE", "status", "list", "retire VERSION" or "diff A B"',
      );
    }
    case 'oauth':
      return (await import('./cli-oauth.js')).oauthCommand(config, sub, arg, values.json);
    case 'backup':
      if (sub === undefined) throw new UsageError('backup takes FILE');
      return (await import('./cli-backup.js')).backupCommand(config, sub, values.json);
    case 'restore':
      if (sub === undefined) throw new UsageError('restore takes FILE');
      return (await import('./cli-backup.js')).restoreCommand(config, sub, values.json);
    case 'compliance':
      return (await import('./cli-compliance.js')).complianceCommand(config, sub, arg, values);
    case 'account':
    case 'invoice':
    case 'billing':
    case 'payments':
      return (await import('./cli-accounts.js')).accountCommand(config, positionals, values);
    case 'probe':
    case 'incident':
    case 'maintenance':
    case 'sla':
      return (await import('./cli-sla.js')).slaCommand(config, positionals, values);
    default:
      throw new UsageError(`unknown command "${command}"`);
  }
}

/**
 * What a process of one role needs, refused before anything starts: the embedded database and
 * an in-process limiter belong to one process (export runs on the worker spend the quota that
 * lookups on the API spend, so the counters must be shared), and the worker signs export links
 * and notices for the API's address, which it cannot know from its own.
 */
function splitRoleNeeds(config: Config, role: 'api' | 'worker'): void {
  if (config.databaseUrl === undefined)
    throw new UsageError(
      `--role ${role} needs DATABASE_URL: the embedded database belongs to one process`,
    );
  if (config.redisUrl === undefined)
    throw new UsageError(
      `--role ${role} needs REDIS_URL: the API and worker roles spend one quota per account (export runs count as the lookups they equal), which only shared counters keep exact`,
    );
  if (role === 'worker' && config.publicBaseUrl === undefined)
    throw new UsageError(
      '--role worker needs PUBLIC_BASE_URL: the export links and notices it signs must name the API’s address, not the worker’s own',
    );
}

async function serve(config: Config, role: 'all' | 'api' | 'worker'): Promise<number> {
  const [{ startServer }, { createLogger }, { openConfiguredDatabase }, { systemClock }] =
    await Promise.all([
      import('./serve.js'),
      import('./logger.js'),
      import('./cli-database.js'),
      import('../lib/clock.js'),
    ]);
  const logger = createLogger(config, true);
  for (const warning of config.warnings) logger.warn(warning);
  if (role === 'api' && config.publicBaseUrl === undefined)
    logger.warn(
      'PUBLIC_BASE_URL is not set: this API instance names itself by its own address, so OAuth tokens it issues are refused by API instances on other addresses, and links and OpenAPI servers differ between them; set it to the address clients use',
    );
  const db = await openConfiguredDatabase(config, logger, 'server');
  const server = await startServer(config, { clock: systemClock, logger, db }, role);
  // The API's start-up line is Fastify's own listening line (startup-line.ts).
  await server.listen();
  if (role === 'worker') logger.info({ role, database: db.kind }, 'salary API worker running');

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

// The embedded database is PostgreSQL compiled to WebAssembly (PGlite). V8 compiles it with its
// baseline compiler only: the optimizing tier's code and compile memory made the server about
// 60 MiB larger, and speeds up only the heavy queries, which are off the request path (the
// figures are in docs/dependencies.md). Set before any WebAssembly is compiled.
setFlagsFromString('--liftoff-only');

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof UsageError || error instanceof CliUsageError) {
      console.error(`salary-api: ${error.message}\n\n${USAGE}`);
      process.exit(2);
    }
    const known =
      error instanceof ConfigError ||
      error instanceof AppError ||
      error instanceof CommandFailure ||
      KNOWN_ERRORS.has((error as Error).name);
    console.error(
      `salary-api: ${known ? (error as Error).message : String((error as Error).stack ?? error)}`,
    );
    process.exit(1);
  },
);
