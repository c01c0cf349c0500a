import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { BenchFailure } from './failure.js';

export const LOOPBACK = '127.0.0.1';

/** A bench's progress line, on standard error (standard output carries the results). */
export function progress(message: string): void {
  console.error(`bench: ${message}`);
}

/** `npm run build` in `root`, so the servers run the current source as `npm start` does. */
export function buildProject(root: string): void {
  progress('npm run build');
  const result = spawnSync('npm', ['run', 'build', '--silent'], {
    cwd: root,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (result.status !== 0) throw new BenchFailure(`npm run build failed (exit ${result.status})`);
}

/** A server under test, running as a child process. */
export interface ServerProcess {
  readonly name: string;
  readonly pid: number;
  readonly baseUrl: string;
  /** Where the child's stdout goes, when not discarded. */
  readonly logFile: string | undefined;
  readonly child: ChildProcess;
  /** Settles with the exit code (null when killed by a signal). */
  readonly exited: Promise<number | null>;
}

export interface SpawnOptions {
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  readonly port: number;
  /** The child's stdout goes to this file; discarded (/dev/null) when undefined. */
  readonly logFile?: string;
}

const live = new Set<ChildProcess>();

/** Every child still running is killed when the bench exits, fails, or is interrupted. */
export function killChildrenOnExit(cleanup: () => void): void {
  const killAll = (): void => {
    for (const child of live) child.kill('SIGKILL');
    live.clear();
    cleanup();
  };
  process.on('exit', killAll);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      console.error(`\nbench: ${signal}, stopping the servers`);
      process.exit(130);
    });
  }
}

/** A port that was free a moment ago on the loopback interface. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, LOOPBACK, resolve);
  });
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port assigned');
  return address.port;
}

export function spawnServer(
  name: string,
  command: string,
  args: readonly string[],
  options: SpawnOptions,
): ServerProcess {
  const out = options.logFile === undefined ? 'ignore' : openSync(options.logFile, 'w');
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env,
    stdio: ['ignore', out, 'inherit'],
  });
  if (typeof out === 'number') closeSync(out);
  if (child.pid === undefined) throw new BenchFailure(`${name}: could not start ${command}`);
  live.add(child);
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      live.delete(child);
      resolve(code);
    }),
  );
  return {
    name,
    pid: child.pid,
    baseUrl: `http://${LOOPBACK}:${options.port}`,
    logFile: options.logFile,
    child,
    exited,
  };
}

function logTail(server: ServerProcess): string {
  if (server.logFile === undefined) return '';
  try {
    const tail = readFileSync(server.logFile, 'utf8').trimEnd().split('\n').slice(-20).join('\n');
    return tail === '' ? '' : `\n--- last lines of ${server.logFile} ---\n${tail}`;
  } catch {
    return '';
  }
}

/** Polls `path` until it answers 200; returns the milliseconds it took. */
export async function waitUntilOk(
  server: ServerProcess,
  path: string,
  timeoutMs: number,
): Promise<number> {
  const started = performance.now();
  let exitCode: number | null | undefined;
  void server.exited.then((code) => (exitCode = code));
  while (performance.now() - started < timeoutMs) {
    if (exitCode !== undefined) {
      throw new BenchFailure(
        `${server.name} exited (code ${exitCode}) before ${path} answered 200${logTail(server)}`,
      );
    }
    const status = await fetch(`${server.baseUrl}${path}`, { signal: AbortSignal.timeout(1000) })
      .then(async (response) => (await response.arrayBuffer(), response.status))
      .catch(() => 0);
    if (status === 200) return performance.now() - started;
    await sleep(200);
  }
  throw new BenchFailure(
    `${server.name}: ${path} did not answer 200 within ${timeoutMs} ms${logTail(server)}`,
  );
}

/** SIGTERM, then SIGKILL if the server has not exited within `graceMs`. */
export async function stopServer(server: ServerProcess, graceMs = 15_000): Promise<void> {
  if (!live.has(server.child)) return;
  server.child.kill('SIGTERM');
  const timer = setTimeout(() => server.child.kill('SIGKILL'), graceMs);
  await server.exited;
  clearTimeout(timer);
}

/** node flags that write a CPU profile NAME.cpuprofile into `dir` on exit; none without a dir. */
export function cpuProfileFlags(dir: string | undefined, name: string): string[] {
  return dir === undefined
    ? []
    : ['--cpu-prof', `--cpu-prof-dir=${dir}`, `--cpu-prof-name=${name}.cpuprofile`];
}

/** The billing details a paid plan's account is created with (no invoice without them). */
export const BENCH_BILLING = [
  '--billing-name',
  'Bench B.V.',
  '--address',
  'Damrak 1; 1012 LG Amsterdam',
  '--country',
  'NL',
] as const;

/**
 * `salary-api account create ARGS --json` (the built CLI in `root`, with `env`): the new
 * account's API key.
 */
export function createAccountWithCli(
  root: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
): string {
  const created = spawnSync(
    process.execPath,
    ['dist/main/cli.js', 'account', 'create', ...args, ...BENCH_BILLING, '--json'],
    { cwd: root, env, encoding: 'utf8' },
  );
  if (created.status !== 0) throw new BenchFailure(`account create failed: ${created.stderr}`);
  return (JSON.parse(created.stdout) as { api_key: string }).api_key;
}

/**
 * A bench's exit code: 0 when `run` finished, 1 when it failed (a BenchFailure's message, or
 * another error's stack, on standard error).
 */
export async function benchExitCode(run: () => Promise<void>): Promise<number> {
  try {
    await run();
    return 0;
  } catch (error) {
    const detail = error instanceof BenchFailure ? error.message : (error as Error).stack;
    console.error(`bench: FAILED: ${detail ?? String(error)}`);
    return 1;
  }
}
