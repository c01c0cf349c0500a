/**
 * Server time of each dashboard page (in-process `inject`, HTML rendered) for a Business account
 * with 5 keys and 30 days of hourly usage (5 keys × 4 endpoints × 4 statuses every hour).
 * Run by hand: `npx tsx bench/dashboard-pages.ts`. Prints the first view (settled buckets not yet
 * in memory), the median and p95 per page.
 */
import { performance } from 'node:perf_hooks';
import { accountOnPlan } from '../test/helpers/accounts.js';
import { buildTestApp } from '../test/helpers/app.js';
import { addUsage, type UsageRow } from '../src/usage/repo.js';

const RUNS = Number(process.env['RUNS'] ?? 40);
const t = await buildTestApp({ now: '2026-11-22T10:15:00Z' });
const account = await accountOnPlan(t, 'business');
const owner = {
  ...(await t.services.cache.resolve(account.session))!,
};
for (let i = 2; i <= 5; i++) await t.services.keys.create(owner, { name: `key ${i}` }, '127.0.0.1');
const keys = await t.services.keys.list(account.accountId);

const now = t.clock.now();
const rows: UsageRow[] = [];
const endpoints = [
  'GET /api/v1/salary',
  'GET /api/v1/salary/history',
  'GET /api/v1/countries',
  'GET /api/v1/bulk/countries',
];
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
console.log(`${rows.length} hourly usage rows, ${keys.length} keys`);

const cookie = `salary_session=${account.session}`;
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
  let first = 0;
  for (let i = 0; i < RUNS + 3; i++) {
    const started = performance.now();
    const res = await t.app.inject({ url, headers: { cookie } });
    const ms = performance.now() - started;
    if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode}`);
    if (i === 0) first = ms;
    if (i >= 3) times.push(ms);
  }
  times.sort((a, b) => a - b);
  const at = (q: number) =>
    times[Math.min(times.length - 1, Math.floor(q * times.length))]!.toFixed(1);
  console.log(
    `${url.padEnd(90)} first ${first.toFixed(1)} ms  median ${at(0.5)} ms  p95 ${at(0.95)} ms`,
  );
}
await t.close();
