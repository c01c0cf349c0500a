/**
 * Salary lookup benchmark: our API against a bare Fastify hello-world, in one run.
 *
 *   npm run bench -- [--duration 5] [--rounds 3] [--warmup 3] [--connections 50] [--cpu-prof DIR]
 *   npm run bench -- --redis [--redis-url URL] [--database-url URL]   (see bench/lib/redis-scenarios.ts)
 *
 * The load generator is wrk (one thread; `apt-get install -y wrk`; the bench says so when it
 * is missing). Builds (npm run build), starts a bare Fastify hello-world (bench/hello-world.ts,
 * plain node, GET /) and keeps it up, then starts our server as `npm start` runs it
 * (`node dist/main/cli.js serve`, default logging: an access line per request) and measures:
 *   - the DE senior lookup (anonymous), the same with an Enterprise key
 *   - a 429 flood (a Developer key over its limit), a 401 flood with a different random
 *     `sk_live_` key per request and one with random `sess_` tokens (wrk Lua scripts)
 *   - a legitimate client (Enterprise key, 5 connections) alone, then while a random-key flood
 *     runs at full speed on 50 other connections: its share of its unloaded req/s and its p99;
 *     once at full speed itself, once paced as an integration (a request per 10 ms per connection)
 *   - /health (2 connections) while 8 clients download the full archive as Excel in a loop
 *   - the embedded server's resident memory after its first start (the data release loaded)
 * then restarts it with ACCESS_LOG=false for the DE lookup.
 * Every paired row alternates hello-world and ours (--rounds, 3 by default; each side first in
 * turn, and the servers' CPU per response compared too, which steal time does not move); the
 * row's ratio is the median of the rounds' ratios, so a drift of the machine's speed (other
 * tenants) does not show as a difference between the servers. Only one server is under load at a time.
 * Our server's stdout (pino) goes to a file in the run's temp dir, as a log shipper reading a
 * file would see it; its stderr is inherited. The embedded database (DATA_DIR) is fresh per
 * bench run, so only the first start loads the data release.
 *
 * wrk runs beside the server on the same cores, so absolute numbers are lower than on separate
 * machines; compare the ratio to hello-world. Its Lua scripts (random credentials) cost the
 * generator more per request than plain runs; the server stayed the limit in our runs.
 *
 * Prints a table, then the JSON summary as the last line of stdout; progress goes to stderr.
 * Exits 1 when a server fails to start or a response is not what the row expects.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import {
  helloWorld,
  measure,
  measureAgainst,
  measurePaired,
  serverCpuPerRequestUs,
  type Measurement,
  type Scenario,
} from './lib/load.js';
import { OptionsError, parseOptions, type BenchOptions } from './lib/options.js';
import {
  benchExitCode,
  buildProject,
  cpuProfileFlags,
  createAccountWithCli,
  freePort,
  killChildrenOnExit,
  LOOPBACK,
  progress,
  spawnServer,
  stopServer,
  waitUntilOk,
  type ServerProcess,
} from './lib/processes.js';
import { benchRedis } from './lib/redis-scenarios.js';
import { formatTable, isNoisy, isUnsteady, ratio } from './lib/report.js';
import { readRss } from './lib/rss.js';
import { healthUnderDownloads } from './lib/downloads.js';
import { legitimateUnderFlood } from './lib/flood.js';
import { assertWrkInstalled, pacedScript, randomTokenScript } from './lib/wrk.js';
import { oauthAccessToken, RANDOM_JWT_PREFIX } from './lib/oauth.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** A row measured against our server: its request, and what every response must be. */
interface Row {
  readonly label: string;
  readonly path: string;
  /** Sent with this account's API key. */
  readonly key?: 'enterprise' | 'developer' | 'oauth';
  /** A wrk Lua script sending a different random credential with this prefix per request. */
  readonly randomToken?: 'sk_live_' | 'sess_' | typeof RANDOM_JWT_PREFIX;
  readonly expect?: 'ok' | 'refused';
  /** A legitimate client on 5 connections, alone and under a random-key flood. */
  readonly legitimateUnderFlood?: boolean;
  /** Each connection waits this long after each answer before its next request (wrk `delay`). */
  readonly paceMs?: number;
  /** /health while 8 clients download the full archive as Excel (Enterprise key). */
  readonly healthUnderDownloads?: boolean;
  /**
   * The lookup's exact bytes and headers from a bare Fastify route (no product logic), with or
   * without our access line; against hello-world.
   */
  readonly replica?: 'bare' | 'logged';
  /**
   * Our lookup measured against the logged replica rather than hello-world: the row's ratio is
   * what our logic leaves of a logged Fastify route answering the same bytes.
   */
  readonly againstLoggedReplica?: boolean;
  /**
   * Measured against the Enterprise-key lookup on the same server, round by round: the row's
   * ratio is its rate over that lookup's (a refusal's cost beside serving a key).
   */
  readonly againstKeyedLookup?: boolean;
}

const DE = '/api/v1/salary?country=DE&job=software-engineer&level=senior';
/** The paced legitimate client's wait after each answer, per connection. */
const PACE_MS = 10;

const ROWS_DEFAULT: readonly Row[] = [
  { label: 'DE lookup', path: DE },
  { label: "the lookup's bytes from a bare Fastify route", path: DE, replica: 'bare' },
  {
    label: "the lookup's bytes from a bare Fastify route with our access line",
    path: DE,
    replica: 'logged',
  },
  {
    label: 'DE lookup against that logged route (ratio to it, not to hello-world)',
    path: DE,
    againstLoggedReplica: true,
  },
  { label: 'DE lookup, Enterprise key', path: DE, key: 'enterprise' },
  // An older kept release: read from the database once, then from the cache of older releases.
  {
    label: 'DE lookup pinned to the previous release, Enterprise key',
    path: `${DE}&release=2026.11.7`,
    key: 'enterprise',
  },
  {
    label: '429 flood (Developer key over its limit)',
    path: DE,
    key: 'developer',
    expect: 'refused',
  },
  {
    label: '429 flood against the Enterprise-key lookup (ratio to it, not to hello-world)',
    path: DE,
    key: 'developer',
    expect: 'refused',
    againstKeyedLookup: true,
  },
  {
    label: '401 flood, random sk_live_ key per request',
    path: DE,
    randomToken: 'sk_live_',
    expect: 'refused',
  },
  {
    label: '401 flood, random sess_ token per request',
    path: DE,
    randomToken: 'sess_',
    expect: 'refused',
  },
  {
    label: 'legitimate client (5 conn., full speed) under a random-key flood',
    path: DE,
    key: 'enterprise',
    legitimateUnderFlood: true,
  },
  // The same client as an integration works: each connection waits PACE_MS after each answer, so
  // alone it sends about 490 requests a second (over 400 times the Business plan's daily limit
  // spread evenly) and does not itself saturate the server.
  {
    label: `legitimate client (5 conn., paced ${PACE_MS} ms) under a random-key flood`,
    path: DE,
    key: 'enterprise',
    legitimateUnderFlood: true,
    paceMs: PACE_MS,
  },
  {
    label: '/health under downloads',
    path: '/health',
    key: 'enterprise',
    healthUnderDownloads: true,
  },
  // OAuth: the lookup with an access token (verified once, then from memory), and a
  // flood of random JWT-shaped bearer tokens (refused before any crypto).
  { label: 'DE lookup, OAuth access token', path: DE, key: 'oauth' },
  {
    label: '401 flood, random JWT-shaped bearer per request',
    path: DE,
    randomToken: RANDOM_JWT_PREFIX,
    expect: 'refused',
  },
];

/** One start of our server and the rows measured against it. */
interface OursConfig {
  /** undefined: the default, as `npm start` runs it (an access line per request). */
  readonly accessLog: boolean | undefined;
  /** Metrics on (METRICS_TOKEN set): requests counted and timed on every path. */
  readonly metrics?: boolean;
  readonly rows: readonly Row[];
}

const OUR_CONFIGS: readonly OursConfig[] = [
  { accessLog: undefined, rows: ROWS_DEFAULT },
  { accessLog: false, rows: [{ label: 'DE lookup', path: DE }] },
  { accessLog: false, metrics: true, rows: [{ label: 'DE lookup', path: DE }] },
];

/** `--metrics`: the cost of the metrics alone, without the access line. */
const METRICS_CONFIGS = OUR_CONFIGS.filter((c) => c.accessLog === false);

/**
 * Lifts the Free limit (the limiter stays on the measured path but never refuses) and sets the
 * Developer limit to one request a day: the bench's Developer key is over it (the 429 flood).
 */
const PLAN_OVERRIDES = '{"free":{"requestLimit":1000000000},"developer":{"requestLimit":1}}';

/** First start loads the bundled data release into a fresh embedded database (~5–10 s). */
const READY_TIMEOUT_MS = 60_000;

/** bench/hello-world.ts as JavaScript, so it runs under plain node without a TS loader. */
function helloWorldSource(): string {
  const file = join(ROOT, 'bench/hello-world.ts');
  return ts.transpileModule(readFileSync(file, 'utf8'), {
    fileName: file,
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  }).outputText;
}

/** node flags writing a CPU profile NAME.cpuprofile on exit, with --cpu-prof DIR. */
function profileFlags(options: BenchOptions, name: string): string[] {
  return cpuProfileFlags(options.cpuProfDir, name);
}

async function startHelloWorld(
  options: BenchOptions,
  replica?: { file: string; logFile?: string },
): Promise<ServerProcess> {
  const port = await freePort();
  // --eval resolves `fastify` from the cwd, the repository root.
  const args = [
    ...profileFlags(options, 'hello-world'),
    '--input-type=module',
    '--eval',
    helloWorldSource(),
  ];
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, PORT: String(port), HOST: LOOPBACK };
  if (replica !== undefined) env.REPLICA_FILE = replica.file;
  if (replica?.logFile !== undefined) env.REPLICA_ACCESS_LOG = 'true';
  const name =
    replica === undefined
      ? 'hello-world'
      : `lookup bytes, bare Fastify${replica.logFile === undefined ? '' : ' + access line'}`;
  const server = spawnServer(name, process.execPath, args, {
    cwd: ROOT,
    port,
    env,
    logFile: replica?.logFile,
  });
  await waitUntilOk(server, '/', 10_000);
  return server;
}

function ourName(config: OursConfig): string {
  return config.accessLog === undefined
    ? 'ours (npm start)'
    : `ours ACCESS_LOG=${config.accessLog}${config.metrics === true ? ' metrics on' : ''}`;
}

async function startOurs(
  config: OursConfig,
  dataDir: string,
  logFile: string,
  options: BenchOptions,
): Promise<{ server: ServerProcess; readyMs: number }> {
  const port = await freePort();
  const name = ourName(config);
  const profile = profileFlags(options, `ours-access-log-${config.accessLog ?? 'default'}`);
  // A minimal environment: no DATABASE_URL, REDIS_URL or TRUST_PROXY leaks in from the shell.
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    PORT: String(port),
    HOST: LOOPBACK,
    DATA_DIR: dataDir,
    PLAN_OVERRIDES,
  };
  if (config.accessLog !== undefined) env.ACCESS_LOG = String(config.accessLog);
  if (config.metrics === true) env.METRICS_TOKEN = 'bench-metrics-token-0123456789';
  const args = [...profile, 'dist/main/cli.js', 'serve'];
  const server = spawnServer(name, process.execPath, args, { cwd: ROOT, port, env, logFile });
  const readyMs = await waitUntilOk(server, '/ready', READY_TIMEOUT_MS);
  return { server, readyMs };
}

/** Headers node or Fastify write themselves on every answer; the replica leaves them to Fastify. */
const OWN_HEADERS = new Set(['date', 'connection', 'keep-alive', 'content-length']);

/**
 * A bare Fastify server answering `path` with the exact status-200 headers and body our server
 * just answered it with (an anonymous lookup): what the lookup would cost with no product logic.
 */
async function startReplica(
  ours: ServerProcess,
  path: string,
  workDir: string,
  options: BenchOptions,
  logged: boolean,
): Promise<ServerProcess> {
  const res = await fetch(`${ours.baseUrl}${path}`);
  if (res.status !== 200) throw new Error(`the lookup to replicate answered ${res.status}`);
  const headers: Record<string, string> = {};
  res.headers.forEach((value, name) => {
    if (!OWN_HEADERS.has(name)) headers[name] = value;
  });
  const file = join(workDir, 'replica.json');
  writeFileSync(
    file,
    JSON.stringify({ path: path.split('?')[0], headers, body: await res.text() }),
  );
  return startHelloWorld(options, {
    file,
    logFile: logged ? join(workDir, 'replica-access.log') : undefined,
  });
}

interface OursRun {
  readonly config: OursConfig;
  readonly readyMs: number;
  /** Resident memory a few seconds after the server became ready, before any load. */
  readonly idleRssBytes: number;
  readonly measurements: readonly Measurement[];
}

interface Keys {
  readonly enterprise: string;
  readonly developer: string;
  /** An OAuth access token of the Enterprise account, when a row needs one. */
  readonly oauth?: string;
}

/** What wrk sends for a row (a Lua script for random credentials, written once per run). */
function scenarioOf(row: Row, server: ServerProcess, keys: Keys, workDir: string): Scenario {
  let script: string | undefined;
  if (row.randomToken !== undefined) {
    script = join(workDir, `random-${row.randomToken.slice(0, 12)}.lua`);
    writeFileSync(script, randomTokenScript(row.randomToken));
  } else if (row.paceMs !== undefined) {
    script = join(workDir, `paced-${row.paceMs}ms.lua`);
    writeFileSync(script, pacedScript(row.paceMs));
  }
  return {
    name: `${row.label}, ${server.name}`,
    server,
    path: row.path,
    ...(row.key === undefined
      ? {}
      : { headers: { authorization: `Bearer ${keys[row.key] ?? 'no OAuth token'}` } }),
    ...(script === undefined ? {} : { script }),
    expect: row.expect ?? 'ok',
  };
}

const IDLE_SETTLE_MS = 3_000;

async function benchOurs(
  workDir: string,
  config: OursConfig,
  options: BenchOptions,
  keys: Keys,
  hello: ServerProcess,
): Promise<OursRun> {
  const logFile = join(
    workDir,
    `stdout-${config.accessLog ?? 'default'}${config.metrics === true ? '-metrics' : ''}.log`,
  );
  const { server, readyMs } = await startOurs(config, join(workDir, 'data'), logFile, options);
  progress(`${server.name} ready in ${(readyMs / 1000).toFixed(1)} s (pid ${server.pid})`);
  await new Promise((resolve) => setTimeout(resolve, IDLE_SETTLE_MS));
  const idleRssBytes = readRss(server.pid) ?? 0;
  progress(`${server.name}: ${(idleRssBytes / 2 ** 20).toFixed(0)} MiB resident before load`);
  const measurements: Measurement[] = [];
  try {
    // The Developer key's one request of the day: from now on it is over its limit.
    await fetch(`${server.baseUrl}${DE}`, {
      headers: { authorization: `Bearer ${keys.developer}` },
    }).then((r) => r.arrayBuffer());
    const withOAuth: Keys = config.rows.some((r) => r.key === 'oauth')
      ? { ...keys, oauth: await oauthAccessToken(server.baseUrl, keys.enterprise) }
      : keys;
    const pairOptions = { ...options, rounds: options.pairRounds, duration: options.pairDuration };
    for (const row of config.rows) {
      const scenario = scenarioOf(row, server, withOAuth, workDir);
      progress(`measuring ${scenario.name}`);
      if (row.replica !== undefined) {
        const logged = row.replica === 'logged';
        const replica = await startReplica(server, row.path, workDir, options, logged);
        try {
          measurements.push(
            await measurePaired(hello, { ...scenario, server: replica, headers: {} }, options),
          );
        } finally {
          await stopServer(replica);
        }
      } else if (row.againstLoggedReplica === true) {
        const replica = await startReplica(server, row.path, workDir, options, true);
        try {
          const reference = { ...scenario, name: 'logged replica', server: replica, headers: {} };
          measurements.push(await measureAgainst(reference, scenario, pairOptions));
        } finally {
          await stopServer(replica);
        }
      } else if (row.againstKeyedLookup === true) {
        const reference = scenarioOf(
          { label: 'Enterprise-key lookup', path: row.path, key: 'enterprise' },
          server,
          withOAuth,
          workDir,
        );
        measurements.push(await measureAgainst(reference, scenario, pairOptions));
      } else if (row.healthUnderDownloads === true) {
        const { row: health, statuses } = await healthUnderDownloads(
          server,
          keys.enterprise,
          options,
        );
        progress(`downloads during the /health row, by status: ${JSON.stringify(statuses)}`);
        measurements.push({ ...health, downloadStatuses: statuses });
      } else if (row.legitimateUnderFlood === true) {
        const flood = scenarioOf(
          { ...row, key: undefined, paceMs: undefined, randomToken: 'sk_live_', expect: 'refused' },
          server,
          keys,
          workDir,
        );
        measurements.push(...(await legitimateUnderFlood(scenario, flood, options)));
      } else {
        measurements.push(await measurePaired(hello, scenario, options));
      }
    }
  } finally {
    await stopServer(server);
  }
  return { config, readyMs, idleRssBytes, measurements };
}

/** An account in the bench's embedded database, created by the CLI; its API key. */
function createAccount(dataDir: string, plan: 'enterprise' | 'developer'): string {
  const args = ['--email', `bench-${plan}@example.com`, '--plan', plan];
  if (plan === 'enterprise') {
    args.push('--price-cents', '100000', '--limit', 'unlimited', '--sla', '99.9');
  }
  return createAccountWithCli(ROOT, args, {
    PATH: process.env.PATH,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    PLAN_OVERRIDES,
  });
}

async function benchHelloWorld(server: ServerProcess, options: BenchOptions): Promise<Measurement> {
  progress(`measuring hello-world (pid ${server.pid})`);
  return measure(helloWorld(server), options);
}

function summary(options: BenchOptions, baseline: Measurement, ours: readonly OursRun[]) {
  return {
    benchmark: 'salary-lookup',
    at: new Date().toISOString(),
    node: process.version,
    cpus: cpus().length,
    options,
    loadGenerator: `wrk, one thread, ${options.connections} connections; shares the cores with the server; one server under load at a time; each paired row alternated with hello-world ${options.rounds} times (reference first, then ours first), ratio the median of the rounds`,
    accessLogDestination: 'stdout of the server to a file in a temp dir',
    baseline: {
      ...baseline,
      ratio: 1,
      serverCpuPerRequestUs: serverCpuPerRequestUs(baseline),
      noisy: isNoisy(baseline),
    },
    ours: ours.map((run) => ({
      accessLog: run.config.accessLog ?? 'default (true)',
      readyMs: Math.round(run.readyMs),
      idleRssMiB: Math.round(run.idleRssBytes / 2 ** 20),
      scenarios: run.measurements.map((m) => ({
        ...m,
        ratio: ratio(m, baseline),
        serverCpuPerRequestUs: serverCpuPerRequestUs(m),
        noisy: isNoisy(m),
        unsteady: isUnsteady(m),
      })),
    })),
  };
}

async function run(options: BenchOptions): Promise<void> {
  assertWrkInstalled();
  buildProject(ROOT);
  const workDir = mkdtempSync(join(tmpdir(), 'salary-bench-'));
  killChildrenOnExit(() => rmSync(workDir, { recursive: true, force: true }));
  if (options.cpuProfDir !== undefined) mkdirSync(options.cpuProfDir, { recursive: true });

  const hello = await startHelloWorld(options);
  const ours: OursRun[] = [];
  let baseline: Measurement;
  let redisRows: Measurement[] = [];
  try {
    baseline = await benchHelloWorld(hello, options);
    if (options.redisUrl !== undefined) {
      redisRows = await benchRedis(ROOT, workDir, hello, options, progress);
    } else {
      const keys = {
        enterprise: createAccount(join(workDir, 'data'), 'enterprise'),
        developer: createAccount(join(workDir, 'data'), 'developer'),
      };
      const only = options.only;
      const configs =
        only === undefined
          ? options.metrics
            ? METRICS_CONFIGS
            : OUR_CONFIGS
          : [{ ...OUR_CONFIGS[0]!, rows: ROWS_DEFAULT.filter((r) => r.label.includes(only)) }];
      for (const config of configs)
        ours.push(await benchOurs(workDir, config, options, keys, hello));
    }
  } finally {
    await stopServer(hello);
  }
  const rows = [baseline, ...ours.flatMap((r) => r.measurements), ...redisRows];

  console.log(
    `\n${cpus().length} CPUs, node ${process.version}; ${options.connections} connections, ` +
      `${options.warmup} s warm-up + ${options.duration} s measured per run; wrk, one thread.\n` +
      'The load generator shares the cores with the server; one server under load at a time, in table order.\n' +
      `Each paired row: ${options.rounds} rounds (the rows against another server of ours: ${options.pairRounds} of ${options.pairDuration} s) of the reference and ours, in turn first; hello req/s is hello-world's mean over them,\n` +
      "'vs hello' the median of the rounds' ratios (listed under rounds); 'by CPU' the median of the rounds'\n" +
      "server CPU per response, the reference's over ours (steal time moves rates, not this).\n" +
      "p99 ms is a paired row's highest round; 'p99 median (ref)' the median of its rounds' and of the reference's.\n" +
      "The legitimate client's rows:\n" +
      "'vs hello' is its req/s under the flood over its req/s alone (same rounds), not hello-world.\n" +
      "Our server's stdout (pino, access lines included) went to a file.\n" +
      `Resident memory after the first start (release loaded), before load: ${ours
        .map((r) => `${ourName(r.config)} ${(r.idleRssBytes / 2 ** 20).toFixed(0)} MiB`)
        .join(', ')}.\n` +
      'RSS: max VmRSS over warm-up and measured run, sampled every 500 ms.\n' +
      'CPU%: share of one core during the measured run (the machine has ' +
      `${cpus().length * 100} %): server, bench (this node process), other processes (wrk included).\n` +
      'srv CPU µs/req: CPU time of the server per response (it rises too when other processes compete).\n',
  );
  console.log(formatTable(rows, baseline));
  if (options.cpuProfDir !== undefined)
    console.log(
      `\nCPU profiles (npx tsx bench/profile-summary.ts FILE --requests N): ${options.cpuProfDir}`,
    );
  const json = summary(options, baseline, ours);
  const redis = redisRows.map((m) => ({
    ...m,
    ratio: ratio(m, baseline),
    serverCpuPerRequestUs: serverCpuPerRequestUs(m),
    noisy: isNoisy(m),
    unsteady: isUnsteady(m),
  }));
  console.log(`\n${JSON.stringify(redisRows.length === 0 ? json : { ...json, redis })}`);
}

async function main(): Promise<number> {
  let options: BenchOptions;
  try {
    options = parseOptions(process.argv.slice(2));
  } catch (error) {
    const exitCode = error instanceof OptionsError ? error.exitCode : 2;
    (exitCode === 0 ? console.log : console.error)((error as Error).message);
    return exitCode;
  }
  const cpuProfDir = options.cpuProfDir === undefined ? undefined : resolve(options.cpuProfDir);
  return benchExitCode(() => run({ ...options, cpuProfDir }));
}

// process.exit, not exitCode: a server left running after a failure must not keep the bench alive.
process.exit(await main());
