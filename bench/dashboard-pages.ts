/**
 * Server time of each dashboard page (in-process `inject`, HTML rendered) for a Business account
 * with 5 keys and 30 days of hourly usage (5 keys × 4 endpoints × 4 statuses every hour).
 * Run by hand: `npx tsx bench/dashboard-pages.ts` (embedded PGlite), or with `--postgres` on a
 * fresh database of the PostgreSQL at TEST_DATABASE_URL. Prints what the dashboard's start-up
 * warm-up took, then per page the first view and its CPU time (the page's first request in the
 * process; the overview's is the first dashboard request after the server was built and warmed
 * up), the median and p95 of the later views, and the median CPU time of this process per view
 * (on a shared machine, what the page costs apart from waiting for a core; with PostgreSQL the
 * server's own time is not in it). Then the first view of the overview and usage pages for a
 * second account seeded the same way.
 */
import { performance } from 'node:perf_hooks';
import { loadavg } from 'node:os';
import { Writable } from 'node:stream';
import pino from 'pino';
import { accountOnPlan } from '../test/helpers/accounts.js';
import { buildTestApp } from '../test/helpers/app.js';
import { freshPostgres } from '../test/helpers/db.js';
import { addUsage, type UsageRow } from '../src/usage/repo.js';

const RUNS = Number(process.env['RUNS'] ?? 40);
const postgres = process.argv.includes('--postgres') ? await freshPostgres() : undefined;
// The warm-up logs its time at debug; nothing else is kept.
let warmUp = 'not logged';
const logger = pino(
  { level: 'debug' },
  new Writable({
    write(chunk, _encoding, done) {
      const text = String(chunk);
      if (text.includes('warm')) {
        const line = JSON.parse(text) as { msg: string; ms?: number };
        warmUp = `${line.msg}${line.ms === undefined ? '' : ` in ${line.ms} ms`}`;
      }
      done();
    },
  }),
);
const t = await buildTestApp({
  now: '2026-11-22T10:15:00Z',
  logger,
  ...(postgres === undefined ? {} : { db: postgres.db }),
});
// The process's first `inject` loads light-my-request (about 13 ms), which a server answering
// over HTTP never does: paid here, on /health (a load balancer's probe comes first too), so
// the first views below are the dashboard's own.
await t.app.inject({ url: '/health' });
const now = t.clock.now();
const endpoints = [
  'GET /api/v1/salary',
  'GET /api/v1/salary/history',
  'GET /api/v1/countries',
  'GET /api/v1/bulk/countries',
];

/** A Business account with 5 keys and 30 days of hourly usage; its session cookie. */
async function seededAccount(): Promise<{ cookie: string; rows: number; keys: number }> {
  const account = await accountOnPlan(t, 'business');
  const owner = { ...(await t.services.cache.resolve(account.session))! };
  for (let i = 2; i <= 5; i++)
    await t.services.keys.create(owner, { name: `key ${i}` }, '127.0.0.1');
  const keys = await t.services.keys.list(account.accountId);
  const rows: UsageRow[] = [];
  for (
    let hour = Math.floor(now / 3_600_000) * 3_600_000 - 30 * 86_400_000;
    hour <= now;
    hour += 3_600_000
  )
    for (const key of keys)
      for (const endpoint of endpoints)
        for (const [status, count] of [
          [200, 40],
          [400, 3],
          [429, 1],
          [500, 1],
        ] as const)
          rows.push({ accountId: account.accountId, keyId: key.id, endpoint, status, hour, count });
  for (let i = 0; i < rows.length; i += 5000) await addUsage(t.db, rows.slice(i, i + 5000));
  return { cookie: `salary_session=${account.session}`, rows: rows.length, keys: keys.length };
}

const { cookie, ...seeded } = await seededAccount();
console.log(
  `${postgres === undefined ? 'PGlite' : 'PostgreSQL'}: ${seeded.rows} hourly usage rows, ` +
    `${seeded.keys} keys; load average ${loadavg()[0]?.toFixed(1)}; start-up: ${warmUp}`,
);

const pages = [
  '/dashboard',
  '/dashboard/usage',
  '/dashboard/usage?granularity=hour&breakdown=endpoint&from=2026-10-24&to=2026-11-22',
  '/dashboard/usage?breakdown=key&download=csv',
  '/dashboard/keys',
  '/dashboard/billing',
  '/dashboard/webhooks',
  '/dashboard/account',
];
for (const url of pages) {
  const times: number[] = [];
  const cpu: number[] = [];
  let first = 0;
  let firstCpu = 0;
  for (let i = 0; i < RUNS + 3; i++) {
    const started = performance.now();
    const cpuStarted = process.cpuUsage();
    const res = await t.app.inject({ url, headers: { cookie } });
    const ms = performance.now() - started;
    const used = process.cpuUsage(cpuStarted);
    if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode}`);
    if (i === 0) {
      first = ms;
      firstCpu = (used.user + used.system) / 1000;
    }
    if (i >= 3) {
      times.push(ms);
      cpu.push((used.user + used.system) / 1000);
    }
  }
  const at = (values: number[], q: number) => {
    const ordered = [...values].sort((a, b) => a - b);
    return ordered[Math.min(ordered.length - 1, Math.floor(q * ordered.length))]!.toFixed(1);
  };
  console.log(
    `${url.padEnd(84)} first ${first.toFixed(1).padStart(5)} ms (cpu ${firstCpu.toFixed(1)})` +
      `  median ${at(times, 0.5)} ms` +
      `  p95 ${at(times, 0.95)} ms  cpu ${at(cpu, 0.5)} ms`,
  );
}
// A second account's first views, the process warm: nothing is kept per account.
const second = await seededAccount();
for (const url of pages.slice(0, 3)) {
  const started = performance.now();
  const res = await t.app.inject({ url, headers: { cookie: second.cookie } });
  if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode}`);
  console.log(
    `second account ${url.padEnd(69)} first ${(performance.now() - started).toFixed(1)} ms`,
  );
}
console.log(`load average ${loadavg()[0]?.toFixed(1)}`);
await t.close();
await postgres?.cleanup();
