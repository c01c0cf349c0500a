/**
 * The full archive exported to a real sshd on loopback, as Parquet and as CSV in turn (RUNS runs,
 * 10 unless given): seconds per run, the process's resident memory (before, and the peak
 * sampled every 10 ms during the run) and the main thread's longest pause (event-loop delay).
 * Then how much an export slows serving: the DE lookup under wrk (50 connections, 5 s) alone,
 * and while full-archive exports (Parquet and CSV in turn) run back to back in the same process.
 * Run by hand: `node --expose-gc --import tsx bench/export-sftp.ts` (needs /usr/sbin/sshd, ssh-keygen and wrk).
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { accountOnPlan } from '../test/helpers/accounts.js';
import { buildTestApp } from '../test/helpers/app.js';
import { startSshd } from '../test/helpers/sshd.js';
import { assertWrkInstalled, runWrk, type WrkResult } from './lib/wrk.js';

const t = await buildTestApp({ env: { OUTBOUND_ALLOW_PRIVATE_TARGETS: 'true' } });
const sshd = await startSshd();
const key = (await accountOnPlan(t, 'enterprise')).apiKey!;
const mib = (n: number) => (n / 2 ** 20).toFixed(0);

async function createExport(format: string): Promise<string> {
  const created = await t.app.inject({
    method: 'POST',
    url: '/api/v1/exports',
    headers: { authorization: `Bearer ${key}` },
    payload: {
      name: `archive ${format}`,
      schedule: '0 6 * * 1',
      query: { kind: 'archive', years: 'all' },
      format,
      destination: {
        type: 'sftp',
        host: '127.0.0.1',
        port: sshd.port,
        username: sshd.username,
        private_key: sshd.privateKey,
        host_key_sha256: sshd.hostKeySha256,
        path: sshd.uploads,
      },
    },
  });
  return created.json<{ id: string }>().id;
}

async function runExport(id: string): Promise<string> {
  const queued = await t.app.inject({
    method: 'POST',
    url: `/api/v1/exports/${id}/run`,
    headers: { authorization: `Bearer ${key}` },
  });
  return queued.json<{ id: string }>().id;
}

assertWrkInstalled();
const ids = new Map<string, string>();
for (const format of ['parquet', 'csv']) ids.set(format, await createExport(format));

const runs = Number(process.env.RUNS ?? 10);
for (let i = 0; i < runs; i++) {
  const format = i % 2 === 0 ? 'parquet' : 'csv';
  const runId = await runExport(ids.get(format)!);
  global.gc?.();
  const { rss: before, heapUsed } = process.memoryUsage();
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
  const delay = monitorEventLoopDelay({ resolution: 5 });
  delay.enable();
  const start = performance.now();
  await t.exportWorker.runOnce();
  const seconds = (performance.now() - start) / 1000;
  delay.disable();
  clearInterval(sampler);
  const run = await t.app.inject({
    method: 'GET',
    url: `/api/v1/exports/runs/${runId}`,
    headers: { authorization: `Bearer ${key}` },
  });
  const r = run.json<{ status: string; rows: number; bytes: number }>();
  console.log(
    `${format}: ${r.status}, ${r.rows} rows, ${(r.bytes / 1024).toFixed(0)} KiB in ${seconds.toFixed(2)} s; RSS ${mib(before)} MiB before, peak ${mib(peak)} MiB (JS heap ${mib(heapUsed)} MiB after GC); longest main-thread pause ${(delay.max / 1e6).toFixed(0)} ms`,
  );
}

// Lookups alone, then while exports run back to back (each run queued, then run by the worker).
const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
const lookup = {
  url: `${address}/api/v1/salary?country=DE&job=software-engineer&level=senior`,
  connections: 50,
  seconds: 5,
  headers: { authorization: `Bearer ${key}` },
};
const show = (label: string, w: WrkResult) =>
  console.log(
    `${label}: ${w.requestsPerSecond.toFixed(0)} req/s, p50 ${w.p50.toFixed(2)} ms, p99 ${w.p99.toFixed(2)} ms, non-2xx ${w.non2xx}`,
  );
await runWrk({ ...lookup, seconds: 2 }); // warm-up
const alone = await runWrk(lookup);
show('lookup alone', alone);
let exporting = true;
let exports = 0;
const loop = (async () => {
  for (let i = 0; exporting; i++) {
    await runExport(ids.get(i % 2 === 0 ? 'parquet' : 'csv')!);
    await t.exportWorker.runOnce();
    exports++;
  }
})();
const during = await runWrk(lookup);
exporting = false;
await loop;
show(`lookup while exports run (${exports} full-archive runs)`, during);
console.log(
  `ratio under exports: ${(during.requestsPerSecond / alone.requestsPerSecond).toFixed(2)}`,
);
await sshd.stop();
await t.close();
