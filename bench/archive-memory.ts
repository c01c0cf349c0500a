/**
 * Resident memory of the server as `npm start` runs it while 8 clients download the full archive
 * as Excel in a loop (the method of `npm run bench`'s "/health under downloads" row): the
 * process's RSS (worker threads included) sampled every 100 ms from /proc, before, during and
 * after the downloads; /health's latency meanwhile (wrk, 2 connections); and the sha256 of every
 * 20th file downloaded (one value: every download gave the same bytes).
 *
 *   npx tsx bench/archive-memory.ts [--seconds 30] [--after 5] [--no-build]
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { readRss } from './lib/rss.js';
import { runWrk } from './lib/wrk.js';
import { DOWNLOADERS, HEALTH_CONNECTIONS, whileArchivesDownload } from './lib/downloads.js';
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
const SAMPLE_EVERY_MS = 100;
const MIB = 1024 * 1024;

const { values: args } = parseArgs({
  options: {
    seconds: { type: 'string', default: '30' },
    after: { type: 'string', default: '5' },
    'no-build': { type: 'boolean', default: false },
  },
});

/** The RSS of `pid` every 100 ms while running; the maximum over each named phase. */
class PhasedSampler {
  readonly peaks = new Map<string, number>();
  #phase = 'idle';
  readonly #timer: NodeJS.Timeout;

  constructor(private readonly pid: number) {
    this.#timer = setInterval(() => this.sample(), SAMPLE_EVERY_MS);
  }

  phase(name: string): void {
    this.sample();
    this.#phase = name;
  }

  sample(): void {
    const rss = readRss(this.pid) ?? 0;
    this.peaks.set(this.#phase, Math.max(this.peaks.get(this.#phase) ?? 0, rss));
  }

  stop(): void {
    this.sample();
    clearInterval(this.#timer);
  }
}

async function run(): Promise<void> {
  if (!args['no-build']) buildProject(ROOT);
  const workDir = mkdtempSync(join(tmpdir(), 'salary-bench-memory-'));
  killChildrenOnExit(() => rmSync(workDir, { recursive: true, force: true }));
  const dataDir = join(workDir, 'data');
  const env = { PATH: process.env.PATH, DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
  const key = createAccountWithCli(
    ROOT,
    [
      '--email',
      'bench-memory@example.com',
      '--plan',
      'enterprise',
      '--price-cents',
      '100000',
      '--limit',
      'unlimited',
      '--sla',
      '99.9',
    ],
    env,
  );
  const port = await freePort();
  const server = spawnServer('ours', process.execPath, ['dist/main/cli.js', 'serve'], {
    cwd: ROOT,
    port,
    env: { ...env, PORT: String(port), HOST: LOOPBACK },
  });
  try {
    await waitUntilOk(server, '/ready', 60_000);
    const releases = (await (await fetch(`${server.baseUrl}/api/v1/releases`)).json()) as {
      data: { version: string }[];
    };
    progress(`releases: ${releases.data.map((r) => r.version).join(', ')}`);
    await sleep(3000);
    const sampler = new PhasedSampler(server.pid);
    await sleep(2000);
    sampler.phase('downloads');
    const digests = new Set<string>();
    let bytes = 0;
    let downloaded = 0;
    const { statuses, result: health } = await whileArchivesDownload(
      server,
      key,
      () =>
        runWrk({
          url: `${server.baseUrl}/health`,
          connections: HEALTH_CONNECTIONS,
          seconds: Number(args.seconds),
        }),
      (body) => {
        if (++downloaded % 20 === 1) digests.add(createHash('sha256').update(body).digest('hex'));
        bytes = body.length;
      },
    );
    sampler.phase('after');
    await sleep(Number(args.after) * 1000);
    sampler.stop();
    const mib = (phase: string) => `${((sampler.peaks.get(phase) ?? 0) / MIB).toFixed(0)} MiB`;
    console.log(`RSS peak idle (release loaded): ${mib('idle')}`);
    console.log(`RSS peak during ${DOWNLOADERS} Excel archive downloads: ${mib('downloads')}`);
    console.log(`RSS peak in the ${args.after} s after: ${mib('after')}`);
    console.log(`downloads by status: ${JSON.stringify(statuses)}; file ${bytes} bytes`);
    console.log(`sha256 of the file: ${[...digests].join(', ')}`);
    console.log(
      `/health: ${health.requests} requests, p50 ${health.p50.toFixed(1)} ms, ` +
        `p99 ${health.p99.toFixed(1)} ms, non-2xx ${health.non2xx}`,
    );
  } finally {
    await stopServer(server);
  }
}

process.exitCode = await benchExitCode(run);
