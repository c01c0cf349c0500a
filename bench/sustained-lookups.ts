/**
 * The server as `npm start` runs it under lookups flat out for a long stretch: an Enterprise key
 * asks for the DE senior lookup on 50 connections (wrk) for --seconds. Reports the request rate
 * and p99, the process's resident memory (RSS, worker threads included) sampled every 500 ms, and
 * how many access lines had reached the log file when the load ended against the requests wrk
 * counted: a log destination that falls behind keeps the difference in memory.
 *
 *   npx tsx bench/sustained-lookups.ts [--seconds 40] [--connections 50] [--path P] [--no-build]
 *
 * --path asks another path than the DE senior lookup (for example the same lookup pinned to an
 * older release with `&release=`).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { readRss, RssSampler } from './lib/rss.js';
import { assertWrkInstalled, runWrk } from './lib/wrk.js';
import {
  benchExitCode,
  buildProject,
  createAccountWithCli,
  freePort,
  killChildrenOnExit,
  LOOPBACK,
  progress,
  spawnServer,
  stopServer,
  waitUntilOk,
} from './lib/processes.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const MIB = 1024 * 1024;
const LOOKUP = '/api/v1/salary?country=DE&job=software-engineer&level=senior';

const { values: args } = parseArgs({
  options: {
    seconds: { type: 'string', default: '40' },
    connections: { type: 'string', default: '50' },
    path: { type: 'string', default: LOOKUP },
    'no-build': { type: 'boolean', default: false },
  },
});

/** Access lines (`"msg":"request"`) in the log file so far. */
const accessLines = (file: string): number =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.includes('"msg":"request"')).length;

async function run(): Promise<void> {
  assertWrkInstalled();
  if (!args['no-build']) buildProject(ROOT);
  const workDir = mkdtempSync(join(tmpdir(), 'salary-bench-sustained-'));
  killChildrenOnExit(() => rmSync(workDir, { recursive: true, force: true }));
  const env = { PATH: process.env.PATH, DATA_DIR: join(workDir, 'data'), LOG_LEVEL: 'info' };
  const key = createAccountWithCli(
    ROOT,
    [
      '--email',
      'bench-sustained@example.com',
      '--plan',
      'enterprise',
      '--price-cents',
      '100000',
      '--limit',
      'unlimited',
    ],
    { ...env, LOG_LEVEL: 'warn' },
  );
  const port = await freePort();
  const logFile = join(workDir, 'stdout.log');
  const server = spawnServer('ours', process.execPath, ['dist/main/cli.js', 'serve'], {
    cwd: ROOT,
    port,
    env: { ...env, PORT: String(port), HOST: LOOPBACK },
    logFile,
  });
  try {
    await waitUntilOk(server, '/ready', 60_000);
    const idle = readRss(server.pid) ?? 0;
    const before = accessLines(logFile);
    progress(`lookups for ${args.seconds} s on ${args.connections} connections`);
    const sampler = new RssSampler(server.pid);
    const result = await runWrk({
      url: `${server.baseUrl}${args.path}`,
      connections: Number(args.connections),
      seconds: Number(args.seconds),
      headers: { authorization: `Bearer ${key}` },
    });
    const peak = sampler.stop();
    const written = accessLines(logFile) - before;
    console.log(
      `node ${process.version}, ${args.path}, ${args.seconds} s, ${args.connections} connections`,
    );
    console.log(
      `lookups: ${result.requests} (${Math.round(result.requestsPerSecond)} req/s), ` +
        `p99 ${result.p99.toFixed(1)} ms, non-2xx ${result.non2xx}`,
    );
    console.log(`access lines in the log when the load ended: ${written}`);
    console.log(
      `RSS: ${(idle / MIB).toFixed(0)} MiB before, peak ${(peak / MIB).toFixed(0)} MiB under load`,
    );
  } finally {
    await stopServer(server);
  }
}

process.exitCode = await benchExitCode(run);
