/**
 * Webhook figures, on PostgreSQL (the CLI loads a release while the server runs):
 *  1. latency: from `salary-api data load` exiting to the receiver getting the data.updated
 *     event, through a real `serve` process polling every WEBHOOK_POLL_SECONDS (default 1);
 *  2. throughput: deliveries per second from one worker to a local receiver, by concurrency.
 * Usage: npx tsx bench/webhooks.ts [--loads N] [--deliveries N]
 * Needs PostgreSQL at BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres).
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { gunzipSync, gzipSync } from 'node:zlib';
import pg from 'pg';
import pino from 'pino';
import { BUNDLED_RELEASE } from '../src/config/index.js';
import { systemClock } from '../src/lib/clock.js';
import { prefixedId } from '../src/lib/ids.js';
import { createSecretBox } from '../src/lib/secret-box.js';
import { resolvePlans } from '../src/plans/index.js';
import { openPostgres } from '../src/store/index.js';
import { createHttpSender, createWebhookWorker, webhookPublisher } from '../src/webhooks/index.js';
import {
  BENCH_BILLING,
  freePort,
  killChildrenOnExit,
  spawnServer,
  stopServer,
  waitUntilOk,
} from './lib/processes.js';

const { values } = parseArgs({
  options: {
    loads: { type: 'string', default: '5' },
    deliveries: { type: 'string', default: '2000' },
  },
});
const LOADS = Number(values.loads);
const DELIVERIES = Number(values.deliveries);
const ADMIN = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const SECRET_KEY = randomBytes(32).toString('base64url');
const CLI = new URL('../src/main/cli.ts', import.meta.url).pathname;
const root = new URL('..', import.meta.url).pathname;

function run(args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CLI, ...args], { env, cwd: root });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('close', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`${args.join(' ')}: ${code}\n${err}`)),
    );
  });
}

async function receiver() {
  const arrivals: { at: number; id: string }[] = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      arrivals.push({ at: performance.now(), id: String(req.headers['webhook-id']) });
      res.writeHead(200).end();
    });
  });
  server.keepAliveTimeout = 1;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return { url, arrivals, close: () => new Promise((r) => server.close(r)) };
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? NaN;
};

async function main(): Promise<void> {
  killChildrenOnExit(() => undefined);
  const name = `salary_bench_webhooks_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: ADMIN });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(ADMIN);
  url.pathname = `/${name}`;
  const dir = mkdtempSync(join(tmpdir(), 'salary-bench-webhooks-'));
  const recv = await receiver();
  const env = {
    PATH: process.env.PATH,
    DATABASE_URL: url.toString(),
    SECRET_KEY,
    OUTBOUND_ALLOW_PRIVATE_TARGETS: 'true',
    LOG_LEVEL: 'warn',
    ACCESS_LOG: 'false',
  };
  try {
    await run(['migrate'], env);
    const account = JSON.parse(
      await run(
        [
          'account',
          'create',
          '--email',
          'bench@example.com',
          '--plan',
          'business',
          ...BENCH_BILLING,
          '--json',
        ],
        env,
      ),
    ) as { api_key: string };
    const port = await freePort();
    const server = spawnServer('serve', process.execPath, ['--import', 'tsx', CLI, 'serve'], {
      cwd: root,
      env: { ...env, PORT: String(port) },
      port,
    });
    await waitUntilOk(server, '/ready', 120_000);
    const created = await fetch(`${server.baseUrl}/api/v1/webhooks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${account.api_key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: recv.url, events: ['data.updated'] }),
    });
    if (created.status !== 201)
      throw new Error(`webhook: ${created.status} ${await created.text()}`);

    const base = gunzipSync(readFileSync(BUNDLED_RELEASE)).toString('utf8').split('\n');
    const header = JSON.parse(base[0]!) as { version: string };
    const latencies: number[] = [];
    for (let i = 0; i < LOADS; i++) {
      const file = join(dir, `release-${i}.jsonl.gz`);
      const lines = [
        JSON.stringify({ ...header, version: `2026.11.${100 + i}` }),
        ...base.slice(1),
      ];
      writeFileSync(file, gzipSync(lines.join('\n')));
      const before = recv.arrivals.length;
      await run(['data', 'load', file], env);
      const finished = performance.now();
      while (recv.arrivals.length === before) await new Promise((r) => setTimeout(r, 2));
      latencies.push(recv.arrivals[before]!.at - finished);
    }
    await stopServer(server);
    console.log(
      `data load exit → receipt (WEBHOOK_POLL_SECONDS=1, ${LOADS} loads): median ${median(latencies).toFixed(0)} ms, ` +
        `min ${Math.min(...latencies).toFixed(0)}, max ${Math.max(...latencies).toFixed(0)}`,
    );

    // Throughput: one worker in this process against the same database and receiver.
    const db = openPostgres(url.toString(), { max: 10 });
    const box = createSecretBox(SECRET_KEY, 'webhook-secrets');
    const publish = webhookPublisher(resolvePlans(), systemClock);
    await db.query('UPDATE webhook_endpoints SET url = $1', [recv.url]);
    for (const concurrency of [8, 32]) {
      for (let i = 0; i < DELIVERIES; i++) {
        await db.transaction(async (tx) => {
          const id = prefixedId('evt');
          await tx.query(
            `INSERT INTO events (id, type, created_at, data) VALUES ($1, 'data.updated', now(), '{"release":"bench"}')`,
            [id],
          );
          await publish(tx, { id, type: 'data.updated' });
        });
      }
      const worker = createWebhookWorker({
        db,
        clock: systemClock,
        box,
        sender: createHttpSender({ allowPrivate: true }),
        logger: pino({ level: 'silent' }),
        concurrency,
      });
      const started = performance.now();
      const sent = await worker.runOnce();
      const seconds = (performance.now() - started) / 1000;
      console.log(
        `throughput, concurrency ${concurrency}: ${sent} deliveries in ${seconds.toFixed(2)} s = ${(sent / seconds).toFixed(0)}/s`,
      );
    }
    await db.close();
  } finally {
    await recv.close();
    rmSync(dir, { recursive: true, force: true });
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
