import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const CLI = fileURLToPath(new URL('../../src/main/cli.ts', import.meta.url));

/**
 * The built CLI. scripts/run-tests.js builds dist/ first when a source is newer than it and then
 * sets SALARY_API_TEST_CLI=dist, so the processes tests start skip the TypeScript loader (about a
 * second of start-up each); a test file run any other way starts the CLI from source.
 */
export const BUILT_CLI = fileURLToPath(new URL('../../dist/main/cli.js', import.meta.url));

/** How a test starts the CLI: node's arguments before the CLI's own. */
function cliEntry(): string[] {
  return process.env.SALARY_API_TEST_CLI === 'dist' ? [BUILT_CLI] : ['--import', 'tsx', CLI];
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the salary-api CLI (built, or from source through tsx: see BUILT_CLI) to completion. */
export function runCli(
  args: string[],
  env: Record<string, string>,
  timeoutMs = 60_000,
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawnCli(args, env);
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new Error(`salary-api ${args.join(' ')} did not finish in ${timeoutMs} ms\n${stderr}`),
      );
    }, timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

export function spawnCli(args: string[], env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, [...cliEntry(), ...args], {
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}
