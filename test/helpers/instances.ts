import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { TEST_SECRET_KEY } from './app.js';
import { spawnCli } from './process.js';

export interface Instance {
  url: string;
  child: ChildProcess;
  log(): string;
  /** SIGTERM and wait for the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL: no shutdown work at all. */
  kill(): Promise<void>;
}

/**
 * Starts `salary-api serve` (or other args) and waits for its "listening" log line. Every
 * instance gets the same SECRET_KEY, as a deployment's instances must.
 */
export async function startInstance(
  env: Record<string, string>,
  args: string[] = ['serve'],
  timeoutMs = 60_000,
): Promise<Instance> {
  const child = spawnCli(args, {
    PORT: '0',
    ACCESS_LOG: 'false',
    SECRET_KEY: TEST_SECRET_KEY,
    ...env,
  });
  let log = '';
  child.stderr?.on('data', (d: Buffer) => (log += d.toString()));
  child.stdout?.on('data', (d: Buffer) => (log += d.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no listening line in ${timeoutMs} ms:\n${log}`));
    }, timeoutMs);
    const look = (): void => {
      const match = /salary API listening at (http:\/\/[^;\s"]+)/.exec(log);
      if (match?.[1] !== undefined) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout?.on('data', look);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before listening:\n${log}`));
    });
  });
  return {
    url,
    child,
    log: () => log,
    async stop() {
      if (child.exitCode !== null) return child.exitCode;
      child.kill('SIGTERM');
      const [code] = (await once(child, 'exit')) as [number | null];
      return code;
    },
    async kill() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGKILL');
      await once(child, 'exit');
    },
  };
}

/** A JSON request; the answer's status, headers and parsed body (when JSON). */
export async function call(
  url: string,
  path: string,
  init: { method?: string; token?: string; body?: unknown; timeoutMs?: number } = {},
): Promise<{ status: number; headers: Headers; body: unknown }> {
  const headers: Record<string, string> = {};
  if (init.token !== undefined) headers.authorization = `Bearer ${init.token}`;
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${url}${path}`, {
    method: init.method ?? 'GET',
    headers,
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    signal: AbortSignal.timeout(init.timeoutMs ?? 10_000),
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: response.status, headers: response.headers, body };
}

export const LOOKUP = '/api/v1/salary?country=IT&job=chef&level=mid';

export { until } from './wait.js';
