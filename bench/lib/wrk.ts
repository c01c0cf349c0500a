import { spawn, spawnSync } from 'node:child_process';
import { BenchFailure } from './failure.js';

/** What one wrk run reports (latency in ms). */
export interface WrkResult {
  readonly requests: number;
  readonly requestsPerSecond: number;
  readonly p50: number;
  readonly p99: number;
  readonly mean: number;
  readonly non2xx: number;
  readonly socketErrors: number;
  readonly timeouts: number;
  /** wrk's own output, with what a Lua script's `done` printed. */
  readonly output: string;
}

export interface WrkRun {
  readonly url: string;
  readonly connections: number;
  readonly seconds: number;
  readonly headers?: Readonly<Record<string, string>>;
  /** A Lua script file (e.g. a different random credential per request). */
  readonly script?: string;
}

/** Fails with how to install wrk when it is missing. */
export function assertWrkInstalled(): void {
  const probe = spawnSync('wrk', ['--version'], { encoding: 'utf8' });
  if (probe.error !== undefined) {
    throw new BenchFailure(
      'wrk (the HTTP load generator) is not installed: `sudo apt-get install -y wrk` on ' +
        'Debian/Ubuntu, `brew install wrk` on macOS, or build it from https://github.com/wg/wrk',
    );
  }
}

const UNIT_MS: Record<string, number> = { us: 0.001, ms: 1, s: 1000, m: 60_000 };

function ms(text: string | undefined): number {
  const match = /^([\d.]+)(us|ms|s|m)$/.exec(text ?? '');
  return match === null ? Number.NaN : Number(match[1]) * UNIT_MS[match[2]!]!;
}

export function parseWrk(output: string): WrkResult {
  const number = (pattern: RegExp): number => Number(pattern.exec(output)?.[1] ?? 0);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(
    output,
  );
  const requests = /(\d+) requests in/.exec(output);
  if (requests === null) throw new BenchFailure(`wrk printed no result:\n${output}`);
  return {
    requests: Number(requests[1]),
    requestsPerSecond: number(/Requests\/sec:\s+([\d.]+)/),
    p50: ms(/^\s+50%\s+(\S+)/m.exec(output)?.[1]),
    p99: ms(/^\s+99%\s+(\S+)/m.exec(output)?.[1]),
    mean: ms(/^\s+Latency\s+(\S+)/m.exec(output)?.[1]),
    non2xx: number(/Non-2xx or 3xx responses: (\d+)/),
    socketErrors: socket === null ? 0 : Number(socket[1]) + Number(socket[2]) + Number(socket[3]),
    timeouts: socket === null ? 0 : Number(socket[4]),
    output,
  };
}

/** One wrk run: one thread (the server, not the generator, should be the limit). */
export function runWrk(run: WrkRun): Promise<WrkResult> {
  // A response slower than 10 s counts as a timeout (wrk's default, 2 s, is hit by a busy machine).
  const args = [
    '-t1',
    `-c${run.connections}`,
    `-d${run.seconds}s`,
    '--latency',
    '--timeout',
    '10s',
  ];
  for (const [name, value] of Object.entries(run.headers ?? {}))
    args.push('-H', `${name}: ${value}`);
  if (run.script !== undefined) args.push('-s', run.script);
  args.push(run.url);
  return new Promise((resolve, reject) => {
    const child = spawn('wrk', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.once('error', reject);
    child.once('close', (code) => {
      if (code !== 0) reject(new BenchFailure(`wrk exited with ${code}:\n${output}`));
      else {
        try {
          resolve(parseWrk(output));
        } catch (error) {
          reject(error instanceof Error ? error : new Error(String(error)));
        }
      }
    });
  });
}

/**
 * A wrk Lua script sending `Authorization: Bearer <prefix><43 random characters>`, a different
 * credential on every request (the shape of a real key or session token).
 */
export function randomTokenScript(prefix: string): string {
  return `local chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
math.randomseed(os.time())
local parts = {}
request = function()
  for i = 1, 43 do
    local n = math.random(1, 64)
    parts[i] = chars:sub(n, n)
  end
  wrk.headers["Authorization"] = "Bearer ${prefix}" .. table.concat(parts)
  return wrk.format(nil, nil)
end
`;
}

/** A wrk Lua script: each connection waits `ms` after each answer before its next request. */
export function pacedScript(ms: number): string {
  return `delay = function()\n  return ${ms}\nend\n`;
}
