/**
 * Salary lookup benchmark: our API against a bare Fastify hello-world, in one run.
 *
 *   npm run bench -- [--duration 5] [--rounds 3] [--warmup 3] [--connections 50] [--workers 0] [--cpu-prof DIR]
 *   npm run bench -- --redis [--redis-url URL] [--database-url URL]   (see bench/lib/redis-scenarios.ts)
 *
 * Builds (npm run build), starts a bare Fastify hello-world (bench/hello-world.ts, plain node,
 * GET /) and keeps it up, measures it once, then starts our server three times:
 *   1. ours, `node dist/main/cli.js serve`, ACCESS_LOG=false LOG_LEVEL=warn: the DE senior and
 *      FR all-levels lookups
 *   2. ours, ACCESS_LOG=true LOG_LEVEL=warn: the same two (access lines are info: dropped by
 *      pino) and the DE lookup with an Enterprise key
 *   3. ours, ACCESS_LOG=true LOG_LEVEL=info: the DE lookup, one access line written per request
 * Every row of ours is paired: hello-world and ours are measured alternately (--rounds, 3 by
 * default) and the row's ratio is the median of the rounds' ratios, so a drift of the machine's
 * speed (other tenants) does not show as a difference between the servers. Only one server is
 * under load at a time.
 * Each run is a discarded warm-up then the measured run with autocannon (pipelining 1). Our
 * server's stdout (pino) goes to a file in the run's temp dir, as a log shipper reading a file
 * would see it; its stderr is inherited. Every start of ours uses a fresh PORT; the embedded
 * database (DATA_DIR) is fresh per bench run, so only the first start loads the data release.
 *
 * autocannon runs in this process and shares the machine's cores with the server under test,
 * so absolute numbers are lower than on separate machines; compare the ratio to hello-world.
 * Measured on the 2-core machine (quiet rows only): with workers=0 (the default) hello-world
 * reached ~35k req/s with its server at ~97 % of a core, so the baseline is server-bound; with
 * --workers 2 the generator's threads took CPU from the server (~85 %) and hello-world gave no
 * more and spread wider. Pinning server and generator to separate CPUs (taskset) was no
 * steadier either and suffers more from a busy neighbour, so it is not offered. The CPU%
 * columns show server, generator and other processes per row; rows where other processes used
 * over 15 % of a core are marked "!": rerun them on a quiet machine.
 *
 * Prints a table, then the JSON summary as the last line of stdout; progress goes to stderr.
 * Exits 1 when a server fails to start or any response is not 2xx.
 */
import { spawnSync } from 'node:child_process';
import { createReadStream, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { BenchFailure } from './lib/failure.js';
import { helloWorld, measure, measurePaired, type Measurement } from './lib/load.js';
import { OptionsError, parseOptions, type BenchOptions } from './lib/options.js';
import {
  freePort,
  killChildrenOnExit,
  LOOPBACK,
  spawnServer,
  stopServer,
  waitUntilOk,
  type ServerProcess,
} from './lib/processes.js';
import { benchRedis } from './lib/redis-scenarios.js';
import { formatTable, isNoisy, ratio, serverCpuPerRequestUs } from './lib/report.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

interface Lookup {
  readonly label: string;
  readonly path: string;
  /** Sent with an Enterprise API key (unlimited contract): authentication on the path. */
  readonly enterpriseKey?: boolean;
}

const DE_SENIOR: Lookup = {
  label: 'DE software-engineer senior',
  path: '/api/v1/salary?country=DE&job=software-engineer&level=senior',
};
const DE_SENIOR_ENTERPRISE: Lookup = {
  ...DE_SENIOR,
  label: 'DE software-engineer senior, Enterprise key',
  enterpriseKey: true,
};
const FR_ALL_LEVELS: Lookup = {
  label: 'FR nurse, 4 levels',
  path: '/api/v1/salary?country=FR&job=nurse',
};

/** One start of our server and the lookups measured against it. */
interface OursConfig {
  readonly accessLog: boolean;
  readonly logLevel: 'warn' | 'info';
  readonly lookups: readonly Lookup[];
}

/**
 * The access log writes at info level, so under LOG_LEVEL=warn ACCESS_LOG=true costs the hook
 * only (pino drops the line). The last start writes the lines (LOG_LEVEL=info), DE lookup only
 * to keep the whole run under two minutes.
 */
const OUR_CONFIGS: readonly OursConfig[] = [
  { accessLog: false, logLevel: 'warn', lookups: [DE_SENIOR, FR_ALL_LEVELS] },
  { accessLog: true, logLevel: 'warn', lookups: [DE_SENIOR, FR_ALL_LEVELS, DE_SENIOR_ENTERPRISE] },
  { accessLog: true, logLevel: 'info', lookups: [DE_SENIOR] },
];

/** Lifts the Free limit: the limiter stays on the measured path but never refuses. */
const PLAN_OVERRIDES = '{"free":{"requestLimit":1000000000}}';

/** First start loads the bundled data release into a fresh embedded database (~5–10 s). */
const READY_TIMEOUT_MS = 60_000;

function progress(message: string): void {
  console.error(`bench: ${message}`);
}

function build(): void {
  progress('npm run build');
  const result = spawnSync('npm', ['run', 'build', '--silent'], {
    cwd: ROOT,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (result.status !== 0) throw new BenchFailure(`npm run build failed (exit ${result.status})`);
}

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
  return options.cpuProfDir === undefined
    ? []
    : ['--cpu-prof', `--cpu-prof-dir=${options.cpuProfDir}`, `--cpu-prof-name=${name}.cpuprofile`];
}

async function startHelloWorld(options: BenchOptions): Promise<ServerProcess> {
  const port = await freePort();
  // --eval resolves `fastify` from the cwd, the repository root.
  const args = [
    ...profileFlags(options, 'hello-world'),
    '--input-type=module',
    '--eval',
    helloWorldSource(),
  ];
  const server = spawnServer('hello-world', process.execPath, args, {
    cwd: ROOT,
    port,
    env: { PATH: process.env.PATH, PORT: String(port), HOST: LOOPBACK },
  });
  await waitUntilOk(server, '/', 10_000);
  return server;
}

function ourName(config: OursConfig): string {
  return `ours ACCESS_LOG=${config.accessLog} LOG_LEVEL=${config.logLevel}`;
}

async function startOurs(
  config: OursConfig,
  dataDir: string,
  logFile: string,
  options: BenchOptions,
): Promise<{ server: ServerProcess; readyMs: number }> {
  const port = await freePort();
  const name = ourName(config);
  const profile = profileFlags(options, `ours-access-log-${config.accessLog}-${config.logLevel}`);
  // A minimal environment: no DATABASE_URL, REDIS_URL or TRUST_PROXY leaks in from the shell.
  const env = {
    PATH: process.env.PATH,
    PORT: String(port),
    HOST: LOOPBACK,
    DATA_DIR: dataDir,
    PLAN_OVERRIDES,
    LOG_LEVEL: config.logLevel,
    ACCESS_LOG: String(config.accessLog),
  };
  const args = [...profile, 'dist/main/cli.js', 'serve'];
  const server = spawnServer(name, process.execPath, args, {
    cwd: ROOT,
    port,
    env,
    logFile,
  });
  const readyMs = await waitUntilOk(server, '/ready', READY_TIMEOUT_MS);
  return { server, readyMs };
}

async function countLines(file: string): Promise<number> {
  let lines = 0;
  for await (const chunk of createReadStream(file) as AsyncIterable<Buffer>) {
    for (const byte of chunk) if (byte === 0x0a) lines++;
  }
  return lines;
}

interface OursRun {
  readonly config: OursConfig;
  readonly readyMs: number;
  /** Lines our server wrote to stdout: one per request when the access log is written. */
  readonly stdoutLines: number;
  readonly measurements: readonly Measurement[];
}

/** With the access log written, every response (warm-ups included) must have its line. */
function assertAccessLogWritten(config: OursConfig, lines: number, responses: number): void {
  if (config.accessLog && config.logLevel === 'info' && lines < responses) {
    throw new BenchFailure(`${ourName(config)} wrote ${lines} lines for ${responses} responses`);
  }
}

async function benchOurs(
  workDir: string,
  config: OursConfig,
  options: BenchOptions,
  enterpriseKey: string,
  hello: ServerProcess,
): Promise<OursRun> {
  const logFile = join(workDir, `stdout-${config.accessLog}-${config.logLevel}.log`);
  const { server, readyMs } = await startOurs(config, join(workDir, 'data'), logFile, options);
  progress(`${server.name} ready in ${(readyMs / 1000).toFixed(1)} s (pid ${server.pid})`);
  const measurements: Measurement[] = [];
  try {
    for (const lookup of config.lookups) {
      const name = `${lookup.label}, ${server.name}`;
      progress(`measuring ${name}`);
      const headers =
        lookup.enterpriseKey === true ? { authorization: `Bearer ${enterpriseKey}` } : undefined;
      measurements.push(
        await measurePaired(hello, { name, server, path: lookup.path, headers }, options),
      );
    }
  } finally {
    await stopServer(server);
  }
  const stdoutLines = await countLines(logFile);
  const responses = measurements.reduce((sum, m) => sum + m.responses, 0);
  assertAccessLogWritten(config, stdoutLines, responses);
  return { config, readyMs, stdoutLines, measurements };
}

/** An Enterprise account (unlimited contract) in the bench's embedded database; its API key. */
function createEnterpriseKey(dataDir: string): string {
  const args = ['dist/main/cli.js', 'account', 'create', '--email', 'bench@example.com'];
  args.push('--plan', 'enterprise', '--price-cents', '100000', '--limit', 'unlimited');
  const created = spawnSync(process.execPath, [...args, '--sla', '99.9', '--json'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
    encoding: 'utf8',
  });
  if (created.status !== 0) throw new BenchFailure(`account create failed: ${created.stderr}`);
  return (JSON.parse(created.stdout) as { api_key: string }).api_key;
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
    loadGenerator: `autocannon in the bench process, ${options.workers} worker threads; shares the cores with the server; one server under load at a time; each row of ours alternated with hello-world ${options.rounds} times, ratio the median of the rounds`,
    accessLogDestination: 'stdout of the server to a file in a temp dir',
    baseline: {
      ...baseline,
      ratio: 1,
      serverCpuPerRequestUs: serverCpuPerRequestUs(baseline),
      noisy: isNoisy(baseline),
    },
    ours: ours.map((run) => ({
      accessLog: run.config.accessLog,
      logLevel: run.config.logLevel,
      readyMs: Math.round(run.readyMs),
      stdoutLines: run.stdoutLines,
      scenarios: run.measurements.map((m) => ({
        ...m,
        ratio: ratio(m, baseline),
        serverCpuPerRequestUs: serverCpuPerRequestUs(m),
        noisy: isNoisy(m),
      })),
    })),
  };
}

async function run(options: BenchOptions): Promise<void> {
  build();
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
      const enterpriseKey = createEnterpriseKey(join(workDir, 'data'));
      for (const config of OUR_CONFIGS)
        ours.push(await benchOurs(workDir, config, options, enterpriseKey, hello));
    }
  } finally {
    await stopServer(hello);
  }
  const rows = [baseline, ...ours.flatMap((r) => r.measurements), ...redisRows];

  console.log(
    `\n${cpus().length} CPUs, node ${process.version}; ${options.connections} connections, pipelining 1, ` +
      `${options.warmup} s warm-up + ${options.duration} s measured per run; autocannon ` +
      `${options.workers === 0 ? 'in the main thread' : `with ${options.workers} workers`} of this process.\n` +
      'The load generator shares the cores with the server; one server under load at a time, in table order.\n' +
      `Each row of ours: ${options.rounds} rounds of hello-world then ours; hello req/s is hello-world's mean over them,\n` +
      "'vs hello' the median of the rounds' ratios (listed under rounds).\n" +
      "Our server's stdout (pino, incl. access lines at LOG_LEVEL=info) went to a file.\n" +
      'RSS: max VmRSS over warm-up and measured run, sampled every 500 ms.\n' +
      'CPU%: share of one core during the measured run (the machine has ' +
      `${cpus().length * 100} %): server, bench (load generator), other processes (noise).\n` +
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
  try {
    await run({ ...options, cpuProfDir });
    return 0;
  } catch (error) {
    const detail = error instanceof BenchFailure ? error.message : (error as Error).stack;
    console.error(`bench: FAILED: ${detail ?? String(error)}`);
    return 1;
  }
}

// process.exit, not exitCode: a server left running after a failure must not keep the bench alive.
process.exit(await main());
