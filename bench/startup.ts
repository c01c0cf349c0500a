/**
 * How long the product takes to be usable from a fresh clone: `npm ci`, the first `npm start`
 * until `/health` answers 200, later starts, `salary-api account create --plan developer` with
 * the server stopped, and the server's resident memory a few seconds after its first start.
 *
 *   npx tsx bench/startup.ts [--ref REF] [--starts N] [--commands N] [--keep]
 *
 * REF (default HEAD of this checkout) is cloned into a temporary folder, so only committed code
 * is measured. The embedded default is used (no DATABASE_URL, REDIS_URL). Each start runs as
 * `npm start` does; the server's pid is read from the embedded database's lock file, stopped
 * with SIGTERM. Figures go to standard output, progress to standard error.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { BenchFailure } from './lib/failure.js';
import { BENCH_BILLING, benchExitCode, freePort, LOOPBACK, progress } from './lib/processes.js';
import { readRss } from './lib/rss.js';

const { values } = parseArgs({
  options: {
    ref: { type: 'string', default: 'HEAD' },
    starts: { type: 'string', default: '3' },
    commands: { type: 'string', default: '3' },
    keep: { type: 'boolean', default: false },
  },
});
const SETTLE_MS = 3000;
const START_TIMEOUT_MS = 180_000;

interface Figures {
  ref: string;
  npmCiMs: number;
  firstStartMs: number;
  firstStartRssMiB: number;
  laterStartsMs: number[];
  accountCreateMs: number[];
}

function run(cwd: string, command: string, args: string[]): void {
  const result = spawnSync(command, args, { cwd, stdio: ['ignore', 'ignore', 'inherit'] });
  if (result.status !== 0) throw new BenchFailure(`${command} ${args.join(' ')} failed`);
}

function timed(cwd: string, command: string, args: string[], env = process.env): number {
  const started = performance.now();
  const result = spawnSync(command, args, {
    cwd,
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (result.status !== 0) throw new BenchFailure(`${command} ${args.join(' ')} failed`);
  return performance.now() - started;
}

/** The environment of the embedded default: nothing from this shell points elsewhere. */
function embeddedEnv(port: number): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), HOST: LOOPBACK };
  for (const name of ['DATABASE_URL', 'REDIS_URL', 'DATA_DIR', 'RELEASE_FILE', 'NODE_OPTIONS'])
    delete env[name];
  return env;
}

/** `npm start` until /health answers; returns the time, the RSS after SETTLE_MS, then stops it. */
async function start(root: string, log: string): Promise<{ ms: number; rss: number }> {
  const port = await freePort();
  const out = openSync(log, 'a');
  const started = performance.now();
  const npm = spawn('npm', ['start', '--silent'], {
    cwd: root,
    env: embeddedEnv(port),
    stdio: ['ignore', out, out],
    detached: true,
  });
  let exited = false;
  npm.once('exit', () => (exited = true));
  try {
    let ms: number | undefined;
    while (ms === undefined) {
      if (exited) throw new BenchFailure(`npm start exited before /health answered; see ${log}`);
      if (performance.now() - started > START_TIMEOUT_MS)
        throw new BenchFailure(`/health did not answer within ${START_TIMEOUT_MS} ms; see ${log}`);
      const status = await fetch(`http://${LOOPBACK}:${port}/health`)
        .then(async (response) => (await response.arrayBuffer(), response.status))
        .catch(() => 0);
      if (status === 200) ms = performance.now() - started;
      else await sleep(20);
    }
    progress(`/health answered after ${(ms / 1000).toFixed(2)} s`);
    await sleep(SETTLE_MS);
    // The lock file's first line is the server's pid.
    const lock = readFileSync(join(root, 'data', 'salary-api.lock'), 'utf8');
    const pid = Number(lock.split('\n')[0]);
    const rss = readRss(pid) ?? 0;
    process.kill(pid, 'SIGTERM');
    while (!exited) await sleep(50);
    return { ms, rss };
  } finally {
    if (!exited && npm.pid !== undefined) process.kill(-npm.pid, 'SIGKILL');
  }
}

async function measure(): Promise<Figures> {
  const source = process.cwd();
  const ref = spawnSync('git', ['rev-parse', values.ref], { cwd: source, encoding: 'utf8' });
  if (ref.status !== 0) throw new BenchFailure(`unknown ref ${values.ref}`);
  const commit = ref.stdout.trim();
  const dir = mkdtempSync(join(tmpdir(), 'salary-api-startup-'));
  const root = join(dir, 'repo');
  const log = join(dir, 'server.log');
  process.on('exit', () => {
    if (!values.keep) rmSync(dir, { recursive: true, force: true });
  });
  progress(`cloning ${commit.slice(0, 10)} into ${root}`);
  run(dir, 'git', ['clone', '--quiet', '--no-checkout', source, root]);
  run(root, 'git', ['checkout', '--quiet', commit]);
  progress('npm ci');
  const npmCiMs = timed(root, 'npm', ['ci', '--no-audit', '--no-fund', '--prefer-offline']);
  progress('first npm start');
  const first = await start(root, log);
  const laterStartsMs: number[] = [];
  for (let i = 0; i < Number(values.starts); i++) {
    progress(`later npm start ${i + 1}`);
    laterStartsMs.push((await start(root, log)).ms);
  }
  if (existsSync(join(root, 'data', 'salary-api.lock')))
    throw new BenchFailure('the server left its lock behind');
  const accountCreateMs: number[] = [];
  for (let i = 0; i < Number(values.commands); i++) {
    progress(`salary-api account create ${i + 1}`);
    const args = [
      'bin/salary-api.js',
      'account',
      'create',
      '--plan',
      'developer',
      ...BENCH_BILLING,
    ];
    args.push('--email', `bench-${i}-${Date.now()}@example.com`, '--json');
    accountCreateMs.push(timed(root, process.execPath, args, embeddedEnv(0)));
    progress(`took ${((accountCreateMs.at(-1) ?? 0) / 1000).toFixed(2)} s`);
  }
  return {
    ref: commit,
    npmCiMs,
    firstStartMs: first.ms,
    firstStartRssMiB: first.rss / 2 ** 20,
    laterStartsMs,
    accountCreateMs,
  };
}

function report(f: Figures): void {
  const s = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;
  const median = (xs: number[]): number =>
    [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
  console.log(`startup of ${f.ref.slice(0, 10)} (fresh clone, embedded database)`);
  console.log(`  npm ci                                      ${s(f.npmCiMs)}`);
  console.log(`  first npm start to /health (target < 8 s)   ${s(f.firstStartMs)}`);
  console.log(
    `  later starts, median (target < 3 s)         ${s(median(f.laterStartsMs))}  (${f.laterStartsMs.map(s).join(', ')})`,
  );
  console.log(
    `  account create --plan developer (< 3 s)     ${s(median(f.accountCreateMs))}  (${f.accountCreateMs.map(s).join(', ')})`,
  );
  console.log(
    `  RSS ${SETTLE_MS / 1000} s after the first start (< 300 MB) ${f.firstStartRssMiB.toFixed(0)} MiB`,
  );
}

process.exitCode = await benchExitCode(async () => report(await measure()));
