// Runs every *.test.ts under src/, test/ and the TypeScript client (clients/typescript/) with node:test.
// Node 20's --test does not expand globs, so the files are listed here.
//
// The files run compiled: the repository's TypeScript is compiled to JavaScript once for the run,
// into a temporary directory that mirrors the repository (scripts/compile-tests.js), so that no
// file's process loads a TypeScript loader (tsx: about 0.9 s of CPU for each file's process).
// What the run prints names the compiled files (<temporary directory>/test/…/x.test.js); stack
// traces name the .ts sources.
//
// Files run in their own processes, two more at a time than the machine has cores
// (TEST_CONCURRENCY overrides): a file spends much of its time waiting (on a timer, a server or
// browser it started, PostgreSQL, Redis), about 40 % of the suite's wall time on 2 cores with
// one file per core, and meanwhile another file uses the core. dist/ is built first when a
// source is newer than it, and the processes tests start run the built CLI
// (SALARY_API_TEST_CLI=dist, see test/helpers/process.ts).
// At the end the ten slowest files are listed with their wall time, their own CPU time and that of
// the processes they started (each file's process records them as it exits:
// scripts/test-file-exit.js), and the times of each folder. Files start longest first by their
// wall time in the runs before on this machine (node_modules/.cache/salary-api/test-times.json),
// so that no long file starts when the others are done; files never timed start first.
//
// `--node-line` runs the part of the suite a second Node line runs in CI (.ci/run), while the
// first line runs all of it: what depends on the Node version — the HTTP tier (test/http/), the
// storage layer on both databases (test/store/: the PostgreSQL driver, its pool, transactions,
// the queue and leases), the processes and instances over PostgreSQL and Redis (the files of
// test/main/ and test/redis/ that connect to PostgreSQL: the CLI and `serve` started as
// processes, signals, drains, the Redis driver) and webhook delivery's outbound HTTP
// (test/webhooks/ files that connect to PostgreSQL), the release build, which must give the
// same bytes on every line (test/data/, test/releases/), the file formats' worker threads and
// WebAssembly (test/formats/), and the unit tests beside the sources and the client's.
// The other files that connect to PostgreSQL (billing's SEPA files, the CLI's commands, exports,
// keys, limits, notices, SLA, usage) run on the first line only: they test features over the
// same Db interface, whose use of Node is the driver's, run here by test/store/, and the CLI's
// start, run here by test/main/ and test/redis/; the same features on PGlite never ran here.
//
// Each file runs in its own process and ends when its event loop is empty, so every result
// reaches this process and the totals printed at the end are exact. What keeps a stuck file
// from holding the run open:
// - scripts/test-file-exit.js, loaded into every file's process: once its tests have finished,
//   a file exits at its 'exit' event (node's own clean-up after it can spin forever), and one
//   that something keeps open (a socket, a timer, a child process) is ended 30 s later, naming
//   what held it, with its tests' exit code;
// - TEST_TIMEOUT_MS (node's --test-timeout, 10 minutes): on Node 24 a test still running then
//   fails by name; on Node 20 the limit is per file, so a file still running then fails by name;
// - TEST_RUN_LIMIT_MINUTES (30): a run still going then is stopped and fails, naming the files
//   still running.
import { spawn, spawnSync } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { compileTests } from './compile-tests.js';
import { processIds, procFile } from './processes.js';

const TEST_TIMEOUT_MS = Number(process.env.TEST_TIMEOUT_MS ?? 10 * 60_000);
const RUN_LIMIT_MINUTES = Number(process.env.TEST_RUN_LIMIT_MINUTES ?? 30);
/** After SIGTERM, how long the run has to stop before it is killed. */
const KILL_AFTER_MS = 10_000;
const CONCURRENCY = Number(process.env.TEST_CONCURRENCY ?? availableParallelism() + 2);
const SLOWEST = 10;

function collect(dir, out) {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules') continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) collect(path, out);
    else if (name.endsWith('.test.ts')) out.push(path);
  }
  return out;
}

const NODE_LINE_FLAG = '--node-line';
const nodeLine = process.argv.includes(NODE_LINE_FLAG);
const filter = process.argv.slice(2).filter((arg) => arg !== NODE_LINE_FLAG);
const NODE_LINE_FOLDERS = [
  'src/',
  'clients/',
  'test/http/',
  'test/store/',
  'test/data/',
  'test/releases/',
  'test/formats/',
];
/** Folders whose files run on every Node line when they connect to PostgreSQL. */
const NODE_LINE_POSTGRES_FOLDERS = ['test/main/', 'test/redis/', 'test/webhooks/'];
/** Whether a file is in the part of the suite every Node line runs (see `--node-line`). */
const onEveryNodeLine = (file) =>
  NODE_LINE_FOLDERS.some((folder) => file.startsWith(folder)) ||
  (NODE_LINE_POSTGRES_FOLDERS.some((folder) => file.startsWith(folder)) &&
    readFileSync(file, 'utf8').includes('postgresAvailable('));
// Each file's wall time in the runs before this one on this machine, to start the longest first:
// a long file started last would leave the other cores idle at the end.
const TIMES = join('node_modules', '.cache', 'salary-api', 'test-times.json');
/** Every file's record of the last run (wall, CPU, CPU of the processes it started), for comparing runs. */
const LAST_RUN = join('node_modules', '.cache', 'salary-api', 'test-last-run.json');
const previousTimes = (() => {
  try {
    return JSON.parse(readFileSync(TIMES, 'utf8'));
  } catch {
    return {};
  }
})();
/** Files never timed here first (in name order), then the rest from the longest down. */
const slowestFirst = (a, b) =>
  (previousTimes[b] ?? Infinity) - (previousTimes[a] ?? Infinity) || a.localeCompare(b);
const files = ['src', 'test', 'clients/typescript']
  .flatMap((dir) => collect(dir, []))
  .filter((f) => filter.length === 0 || filter.some((part) => f.includes(part)))
  .filter((f) => !nodeLine || onEveryNodeLine(f))
  .sort(slowestFirst);

const built = spawnSync(process.execPath, ['scripts/build.js', '--if-stale'], { stdio: 'inherit' });
if (built.status !== 0) process.exit(built.status ?? 1);

// The compiled repository, removed when the run ends.
const compiled = mkdtempSync(join(tmpdir(), 'salary-api-tests-'));
process.on('exit', () => rmSync(compiled, { recursive: true, force: true }));
await compileTests('.', compiled);
/** A test file's compiled counterpart, and back. */
const compiledFile = (file) => join(compiled, file.replace(/\.ts$/, '.js'));
const sourceFile = (file) => relative(compiled, file).replace(/\.js$/, '.ts');

// Where each file's process writes its timings (scripts/test-file-exit.js).
const timings = mkdtempSync(join(tmpdir(), 'salary-api-test-timings-'));

// The run in a process group of its own, so that stopping it stops every file's process too.
const run = spawn(
  process.execPath,
  [
    '--enable-source-maps',
    // PGlite's PostgreSQL is WebAssembly. By default V8 compiles its hot functions again with
    // TurboFan, in threads beside the test's, which a short-lived process pays for and rarely
    // gets back: Liftoff's code alone saves about 0.5 to 1 s of CPU in each file that opens one.
    '--liftoff-only',
    '--import',
    new URL('./test-file-exit.js', import.meta.url).href,
    '--test',
    `--test-concurrency=${CONCURRENCY}`,
    `--test-timeout=${TEST_TIMEOUT_MS}`,
    ...files.map(compiledFile),
  ],
  {
    stdio: 'inherit',
    detached: true,
    env: {
      ...process.env,
      SALARY_API_TEST_CLI: 'dist',
      SALARY_API_TEST_TIMINGS: timings,
      // Node 22.1 and later keep the modules' compiled code here, so that each file's process
      // (and each process it starts) compiles a module only the first time in the run; Node 20
      // ignores it.
      NODE_COMPILE_CACHE: join(compiled, '.compile-cache'),
    },
  },
);

const stopRun = (signal) => {
  try {
    process.kill(-run.pid, signal);
  } catch {
    // already gone
  }
};
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => stopRun(signal));

const limit = setTimeout(() => {
  const running = runningFiles();
  console.error(
    `\nThe test run did not finish within ${RUN_LIMIT_MINUTES} minutes and was stopped.` +
      (running.length > 0 ? ` Still running: ${running.join(', ')}.` : ''),
  );
  stopRun('SIGTERM');
  setTimeout(() => stopRun('SIGKILL'), KILL_AFTER_MS).unref();
  process.exitCode = 1;
}, RUN_LIMIT_MINUTES * 60_000);

run.on('exit', (code) => {
  clearTimeout(limit);
  printSlowest();
  if (process.exitCode !== 1) process.exitCode = code ?? 1;
});

/** The test files whose process is still alive (none where there is no /proc). */
function runningFiles() {
  const wanted = new Set(files.map(compiledFile));
  const found = new Set();
  for (const pid of processIds()) {
    // The runner itself names every file; only the files' own processes count.
    if (pid === run.pid) continue;
    for (const arg of (procFile(pid, 'cmdline') ?? '').split('\0'))
      if (arg !== '' && wanted.has(resolve(arg))) found.add(resolve(arg));
  }
  return [...found].map(sourceFile).sort();
}

/**
 * The slowest files of the run by wall time, with their CPU time and that of the processes they
 * started, from their own records; the times are kept for the next run's order.
 */
function printSlowest() {
  const rows = [];
  for (const name of readdirSync(timings)) {
    try {
      rows.push(JSON.parse(readFileSync(join(timings, name), 'utf8')));
    } catch {
      // a file that ended before it could write its record
    }
  }
  rmSync(timings, { recursive: true, force: true });
  if (rows.length === 0) return;
  rows.sort((a, b) => b.wallMs - a.wallMs);
  try {
    const times = { ...previousTimes };
    for (const row of rows) times[sourceFile(row.file)] = row.wallMs;
    mkdirSync(dirname(TIMES), { recursive: true });
    writeFileSync(TIMES, JSON.stringify(times, null, 1));
    writeFileSync(
      LAST_RUN,
      JSON.stringify(
        rows.map((row) => ({ ...row, file: sourceFile(row.file) })),
        null,
        1,
      ),
    );
  } catch {
    // no node_modules to keep them in: the next run starts in name order
  }
  console.log(
    `\nSlowest test files (wall s, CPU s of the file's own process, CPU s of the processes it started; ${rows.length} of ${files.length} files recorded):`,
  );
  const seconds = (ms) => (ms / 1000).toFixed(1).padStart(6);
  const line = (row, name) =>
    `  ${seconds(row.wallMs)}  ${seconds(row.cpuMs)}  ${seconds(row.childCpuMs ?? 0)}  ${name}`;
  for (const row of rows.slice(0, SLOWEST)) console.log(line(row, sourceFile(row.file)));
  const folders = new Map();
  for (const row of rows) {
    const folder = sourceFile(row.file).split('/').slice(0, 2).join('/');
    const sum = folders.get(folder) ?? { wallMs: 0, cpuMs: 0, childCpuMs: 0, files: 0 };
    folders.set(folder, {
      wallMs: sum.wallMs + row.wallMs,
      cpuMs: sum.cpuMs + row.cpuMs,
      childCpuMs: sum.childCpuMs + (row.childCpuMs ?? 0),
      files: sum.files + 1,
    });
  }
  console.log(
    '\nBy folder (wall s, CPU s and CPU s of started processes summed over its files, files):',
  );
  for (const [folder, sum] of [...folders].sort(
    (a, b) => b[1].cpuMs + b[1].childCpuMs - (a[1].cpuMs + a[1].childCpuMs),
  ))
    console.log(`${line(sum, folder)}  ${sum.files}`);
}
