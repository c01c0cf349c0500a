/**
 * Server-side time to produce bulk responses in each format, in process (app.inject, so no
 * network or client time is counted): all jobs of one country (84 records) in every format,
 * and the Enterprise full archive (29,484 records) as JSON and Parquet.
 *
 *   npx tsx bench/formats.ts [--runs 30]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import pino from 'pino';
import { operatorPrincipal } from '../src/billing/index.js';
import { loadConfig } from '../src/config/index.js';
import { systemClock } from '../src/lib/clock.js';
import { startServer } from '../src/main/serve.js';
import { migrate, openPglite } from '../src/store/index.js';

const runsArg = process.argv.indexOf('--runs');
const RUNS = runsArg > 0 ? Number(process.argv[runsArg + 1]) : 30;

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'salary-bench-formats-'));
  const db = await openPglite(dir);
  await migrate(db);
  const config = loadConfig({ LOG_LEVEL: 'silent', ACCESS_LOG: 'false' });
  const server = await startServer(config, {
    clock: systemClock,
    db,
    logger: pino({ level: 'silent' }),
  });
  const services = server.core.accounts;
  const app = server.api!.app;
  const { account } = await services.accounts.signUp(
    { email: 'bench@example.com', password: 'a long enough passphrase' },
    '127.0.0.1',
  );
  const contract = {
    price_cents: 100_000,
    request_limit: null,
    sla_percent: 99.9,
    formats: ['json', 'csv', 'xlsx', 'xml', 'parquet'],
  };
  await services.subscriptions.details.set(
    operatorPrincipal(account.id, services.plans.free),
    { company_name: 'Bench B.V.', address_lines: ['Damrak 1'], country: 'NL' },
    null,
  );
  const key = (
    await services.subscriptions.change(
      operatorPrincipal(account.id, services.plans.free),
      'enterprise',
      null,
      contract,
    )
  ).api_key!.key;
  const headers = { authorization: `Bearer ${key}` };

  const cases: [string, string][] = [
    ...(['json', 'csv', 'xlsx', 'xml', 'parquet'] as const).map((f): [string, string] => [
      `country bulk (84 rows) ${f}`,
      `/api/v1/bulk/jobs?country=DE&format=${f}`,
    ]),
    ['full archive (29,484 rows) json', '/api/v1/bulk/archive?year=all&format=json'],
    ['full archive (29,484 rows) parquet', '/api/v1/bulk/archive?year=all&format=parquet'],
  ];
  console.log(
    `runs per case: ${RUNS} (after 3 warm-up runs); server-side time = inject round trip in process`,
  );
  console.log(
    'case'.padEnd(40),
    'median ms'.padStart(10),
    'p90 ms'.padStart(10),
    'bytes'.padStart(12),
  );
  const results: Record<string, { median: number; p90: number; bytes: number }> = {};
  for (const [name, url] of cases) {
    const runs = name.startsWith('full') ? Math.max(5, Math.floor(RUNS / 6)) : RUNS;
    let bytes = 0;
    const times: number[] = [];
    for (let i = 0; i < runs + 3; i++) {
      const start = performance.now();
      const res = await app.inject({ url, headers });
      const ms = performance.now() - start;
      if (res.statusCode !== 200)
        throw new Error(`${url}: ${res.statusCode} ${res.body.slice(0, 200)}`);
      bytes = res.rawPayload.length;
      if (i >= 3) times.push(ms);
    }
    times.sort((a, b) => a - b);
    results[name] = { median: quantile(times, 0.5), p90: quantile(times, 0.9), bytes };
    console.log(
      name.padEnd(40),
      quantile(times, 0.5).toFixed(2).padStart(10),
      quantile(times, 0.9).toFixed(2).padStart(10),
      String(bytes).padStart(12),
    );
  }
  console.log(JSON.stringify(results));
  await server.close();
  await db.close();
  rmSync(dir, { recursive: true, force: true });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
