/**
 * What one access line costs the process through pino and its destination (sonic-boom), per
 * destination setting, asynchronous and synchronous: the figures behind the settings of
 * src/main/logger.ts.
 *
 *   npx tsx bench/log-destination.ts [--lines N] [--rounds N]
 *
 * Each setting runs in its own child process (a fresh heap and file), which writes N lines shaped
 * like the server's access line to a file in a temporary folder at a busy server's pace (50 lines
 * a millisecond, about the lookup's rate on 2 cores), until every line is written, and reports
 * the process's CPU time (user + system, every thread) per line. `serialize only` hands the lines
 * to a destination that drops them: pino's own share. Rounds alternate the settings; the table
 * gives each setting's median.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { median } from './lib/load.js';

interface Setting {
  readonly name: string;
  /** pino.destination options; null: a destination that drops every line. */
  readonly destination: { sync: boolean; minLength: number; maxWrite?: number } | null;
}

const SETTINGS: readonly Setting[] = [
  { name: 'serialize only', destination: null },
  { name: 'async, minLength 0', destination: { sync: false, minLength: 0 } },
  { name: 'async, 1 KiB / 2 KiB', destination: { sync: false, minLength: 1024, maxWrite: 2048 } },
  { name: 'async, 2 KiB / 4 KiB', destination: { sync: false, minLength: 2048, maxWrite: 4096 } },
  { name: 'async, 4 KiB / 16 KiB', destination: { sync: false, minLength: 4096, maxWrite: 16384 } },
  {
    name: 'async, 32 KiB / 64 KiB',
    destination: { sync: false, minLength: 32768, maxWrite: 65536 },
  },
  { name: 'sync, minLength 0', destination: { sync: true, minLength: 0 } },
  { name: 'sync, 2 KiB / 4 KiB', destination: { sync: true, minLength: 2048, maxWrite: 4096 } },
  { name: 'sync, 4 KiB / 16 KiB', destination: { sync: true, minLength: 4096, maxWrite: 16384 } },
  { name: 'sync, 8 KiB / 16 KiB', destination: { sync: true, minLength: 8192, maxWrite: 16384 } },
];

/** 50 lines every millisecond: 50,000 a second. */
const LINES_PER_TURN = 50;
const TURN_MS = 1;

/** One setting in this process: prints its CPU µs per line and the ms its last lines waited. */
async function child(setting: Setting, lines: number, file: string): Promise<void> {
  const destination =
    setting.destination === null
      ? { write: () => undefined }
      : pino.destination({ dest: file, ...setting.destination });
  const log = pino({ level: 'info', base: { service: 'salary-api' } }, destination);
  const cpu = process.cpuUsage();
  for (let i = 0; i < lines;) {
    for (let k = 0; k < LINES_PER_TURN; k++, i++) {
      log.info(
        {
          request_id: `req_e024bfdc8262${100000 + (i % 1000)}`,
          method: 'GET',
          url: '/api/v1/salary?country=DE&job=software-engineer&level=senior',
          status: 200,
          ms: Math.round(Math.random() * 100_000) / 100,
          ip: '127.0.0.1',
        },
        'request',
      );
    }
    await new Promise((resolve) => setTimeout(resolve, TURN_MS));
  }
  // Every line written before the clock stops (sonic-boom's flush calls back once written).
  const last = performance.now();
  if ('flush' in destination)
    await new Promise<void>((resolve, reject) =>
      destination.flush((error) => (error ? reject(error) : resolve())),
    );
  const used = process.cpuUsage(cpu);
  const peakMiB = process.resourceUsage().maxRSS / 1024;
  console.log(`${(used.user + used.system) / lines} ${performance.now() - last} ${peakMiB}`);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      lines: { type: 'string', default: '200000' },
      rounds: { type: 'string', default: '3' },
      child: { type: 'string' },
      file: { type: 'string' },
    },
  });
  const lines = Number(values.lines);
  if (values.child !== undefined) {
    await child(SETTINGS[Number(values.child)]!, lines, values.file!);
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'log-destination-'));
  const self = fileURLToPath(import.meta.url);
  const results = SETTINGS.map(() => ({
    cpu: [] as number[],
    drain: [] as number[],
    peak: [] as number[],
  }));
  try {
    for (let round = 0; round < Number(values.rounds); round++) {
      for (const [i, setting] of SETTINGS.entries()) {
        const file = join(dir, `round-${round}-${i}.log`);
        const run = spawnSync(
          process.execPath,
          [
            ...process.execArgv,
            self,
            '--child',
            String(i),
            '--lines',
            String(lines),
            '--file',
            file,
          ],
          { encoding: 'utf8' },
        );
        if (run.status !== 0) throw new Error(`${setting.name} failed:\n${run.stderr}`);
        const [cpu, drain, peak] = run.stdout.trim().split(' ').map(Number);
        results[i]!.cpu.push(cpu!);
        results[i]!.drain.push(drain!);
        results[i]!.peak.push(peak!);
        rmSync(file, { force: true });
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(
    `${lines} access lines per run, median of ${values.rounds} rounds (node ${process.version})`,
  );
  console.log('setting                     CPU µs/line  last write ms  peak RSS MiB');
  for (const [i, setting] of SETTINGS.entries()) {
    const { cpu, drain, peak } = results[i]!;
    console.log(
      `${setting.name.padEnd(26)} ${median(cpu).toFixed(2).padStart(11)}  ${median(drain).toFixed(1).padStart(13)}  ${median(peak).toFixed(0).padStart(12)}`,
    );
  }
}

await main();
