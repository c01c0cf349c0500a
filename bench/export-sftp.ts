/**
 * The full archive exported to a real sshd on loopback, as Parquet and as CSV: seconds per run
 * and the process's resident memory (before, and the peak sampled every 10 ms during the run).
 * Run by hand: `npx tsx bench/export-sftp.ts` (needs /usr/sbin/sshd and ssh-keygen).
 */
import { accountOnPlan } from '../test/helpers/accounts.js';
import { buildTestApp } from '../test/helpers/app.js';
import { startSshd } from '../test/helpers/sshd.js';

const t = await buildTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
const sshd = await startSshd();
const key = (await accountOnPlan(t, 'enterprise')).apiKey!;
const mib = (n: number) => (n / 2 ** 20).toFixed(0);

for (const format of ['parquet', 'csv', 'parquet', 'csv']) {
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
  const id = created.json<{ id: string }>().id;
  const queued = await t.app.inject({
    method: 'POST',
    url: `/api/v1/exports/${id}/run`,
    headers: { authorization: `Bearer ${key}` },
  });
  const runId = queued.json<{ id: string }>().id;
  global.gc?.();
  const before = process.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
  const start = performance.now();
  await t.exportWorker.runOnce();
  const seconds = (performance.now() - start) / 1000;
  clearInterval(sampler);
  const run = await t.app.inject({
    method: 'GET',
    url: `/api/v1/exports/runs/${runId}`,
    headers: { authorization: `Bearer ${key}` },
  });
  const r = run.json<{ status: string; rows: number; bytes: number }>();
  console.log(
    `${format}: ${r.status}, ${r.rows} rows, ${(r.bytes / 1024).toFixed(0)} KiB in ${seconds.toFixed(2)} s; RSS ${mib(before)} MiB before, peak ${mib(peak)} MiB`,
  );
}
await sshd.stop();
await t.close();
