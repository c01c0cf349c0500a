/**
 * The OAuth token endpoint: access tokens per second with client_secret_basic.
 *
 *   npx tsx bench/oauth-token.ts [--duration 5] [--rounds 3] [--warmup 2] [--connections 16]
 *                                [--accounts 30] [--cpu-prof DIR]
 *
 * Builds (npm run build), creates Enterprise accounts with the CLI in a fresh embedded database
 * (DATA_DIR), starts the server as `npm start` runs it (`node dist/main/cli.js serve`, default
 * logging), creates 100 OAuth clients per account through the API (client_secret_basic, the
 * default) and sends POST /oauth/token with wrk, a Lua script cycling through every client's
 * Basic credentials. Each client may have 60 tokens a minute (the per-client throttle, which has
 * no setting): spread over `--accounts` × 100 clients, the requests measure the issuing path
 * (client authentication, ES256 signature, one chained audit row) and not 429 slow_down. A
 * 429 is counted and reported; every other non-200 fails the run.
 *
 * Prints a table and the JSON summary as the last line of stdout; progress goes to stderr.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startCpuMeter, type CpuShare } from './lib/cpu.js';
import { BenchFailure } from './lib/failure.js';
import {
  benchExitCode,
  buildProject,
  cpuProfileFlags,
  createAccountWithCli,
  freePort,
  killChildrenOnExit,
  LOOPBACK,
  progress,
  spawnServer,
  stopServer,
  waitUntilOk,
} from './lib/processes.js';
import { assertWrkInstalled, runWrk, type WrkResult } from './lib/wrk.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLIENTS_PER_ACCOUNT = 100;
const TOKENS_PER_CLIENT_MINUTE = 60;
const READY_TIMEOUT_MS = 60_000;

interface Options {
  duration: number;
  rounds: number;
  warmup: number;
  connections: number;
  accounts: number;
  cpuProfDir: string | undefined;
}

function parseArgs(argv: readonly string[]): Options {
  const options: Options = {
    duration: 5,
    rounds: 3,
    warmup: 2,
    connections: 16,
    accounts: 30,
    cpuProfDir: undefined,
  };
  for (let i = 0; i < argv.length; i += 2) {
    const name = argv[i];
    const value = argv[i + 1];
    if (value === undefined) throw new BenchFailure(`${name} needs a value`);
    if (name === '--cpu-prof') {
      options.cpuProfDir = resolve(value);
      continue;
    }
    const n = Number(value);
    if (!Number.isInteger(n) || n < 0) throw new BenchFailure(`${name}: not a whole number`);
    if (name === '--duration') options.duration = n;
    else if (name === '--rounds') options.rounds = n;
    else if (name === '--warmup') options.warmup = n;
    else if (name === '--connections') options.connections = n;
    else if (name === '--accounts') options.accounts = n;
    else throw new BenchFailure(`unknown option ${name}`);
  }
  return options;
}

/** An Enterprise account in the bench's embedded database, created by the CLI; its API key. */
function createAccount(dataDir: string, n: number): string {
  return createAccountWithCli(
    ROOT,
    ['--email', `oauth-bench-${n}@example.com`, '--plan', 'enterprise'].concat([
      '--price-cents',
      '100000',
      '--limit',
      'unlimited',
      '--sla',
      '99.9',
    ]),
    { PATH: process.env.PATH, DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
  );
}

async function startServer(dataDir: string, logFile: string, options: Options) {
  const port = await freePort();
  const profile = cpuProfileFlags(options.cpuProfDir, 'oauth-token');
  const server = spawnServer(
    'ours (npm start)',
    process.execPath,
    [...profile, 'dist/main/cli.js', 'serve'],
    {
      cwd: ROOT,
      port,
      // A minimal environment: no DATABASE_URL, REDIS_URL or TRUST_PROXY leaks in from the shell.
      env: { PATH: process.env.PATH, PORT: String(port), HOST: LOOPBACK, DATA_DIR: dataDir },
      logFile,
    },
  );
  const readyMs = await waitUntilOk(server, '/ready', READY_TIMEOUT_MS);
  return { server, readyMs };
}

/** `count` client_secret_basic clients of the account; their Basic header values. */
async function createClients(baseUrl: string, apiKey: string, count: number): Promise<string[]> {
  const basics: string[] = [];
  for (let i = 0; i < count; i++) {
    const res = await fetch(`${baseUrl}/api/v1/oauth/clients`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: `bench ${i}`, scopes: ['salary:read'] }),
    });
    if (res.status !== 201)
      throw new BenchFailure(`OAuth client create: ${res.status} ${await res.text()}`);
    const c = (await res.json()) as { client_id: string; client_secret: string };
    basics.push(`Basic ${Buffer.from(`${c.client_id}:${c.client_secret}`).toString('base64')}`);
  }
  return basics;
}

/**
 * A wrk Lua script posting grant_type=client_credentials with the next client's Basic
 * credentials on every request (the requests are formatted once, on the first call).
 */
function tokenScript(basics: readonly string[]): string {
  return `local auths = { ${basics.map((b) => `"${b}"`).join(',\n')} }
local requests = nil
local i = 0
request = function()
  if requests == nil then
    requests = {}
    for n, auth in ipairs(auths) do
      requests[n] = wrk.format("POST", nil, {
        ["Host"] = wrk.host,
        ["Authorization"] = auth,
        ["Content-Type"] = "application/x-www-form-urlencoded",
      }, "grant_type=client_credentials")
    end
  end
  i = i % #requests + 1
  return requests[i]
end

-- Per thread (wrk runs request/response in each thread's own Lua state); done() reads them.
statuses = {}
response = function(status)
  statuses[status] = (statuses[status] or 0) + 1
end

local threads = {}
setup = function(thread)
  threads[#threads + 1] = thread
end

done = function()
  local total = {}
  for _, thread in ipairs(threads) do
    for status, count in pairs(thread:get("statuses")) do
      total[status] = (total[status] or 0) + count
    end
  end
  local parts = {}
  for status, count in pairs(total) do parts[#parts + 1] = status .. "=" .. count end
  io.write("statuses: " .. table.concat(parts, " ") .. "\\n")
end
`;
}

interface Round {
  readonly result: WrkResult;
  readonly cpu: CpuShare;
  readonly statuses: Readonly<Record<string, number>>;
  readonly load1: number;
}

async function fire(url: string, script: string, connections: number, seconds: number) {
  return runWrk({ url, connections, seconds, script });
}

function cpuPerTokenUs(round: Round): number {
  const ok = round.statuses['200'] ?? 0;
  return ok > 0 ? (1000 * round.cpu.serverMs) / ok : 0;
}

async function run(options: Options): Promise<void> {
  assertWrkInstalled();
  buildProject(ROOT);
  const workDir = mkdtempSync(join(tmpdir(), 'oauth-token-bench-'));
  killChildrenOnExit(() => rmSync(workDir, { recursive: true, force: true }));
  if (options.cpuProfDir !== undefined) mkdirSync(options.cpuProfDir, { recursive: true });
  const dataDir = join(workDir, 'data');
  progress(`creating ${options.accounts} Enterprise accounts with the CLI`);
  const keys = Array.from({ length: options.accounts }, (_, n) => createAccount(dataDir, n));
  const { server, readyMs } = await startServer(dataDir, join(workDir, 'stdout.log'), options);
  progress(`${server.name} ready in ${(readyMs / 1000).toFixed(1)} s (pid ${server.pid})`);
  const rounds: Round[] = [];
  let clients = 0;
  try {
    const basics: string[] = [];
    for (const key of keys)
      basics.push(...(await createClients(server.baseUrl, key, CLIENTS_PER_ACCOUNT)));
    clients = basics.length;
    progress(`${clients} OAuth clients created`);
    const script = join(workDir, 'token.lua');
    writeFileSync(script, tokenScript(basics));
    const url = `${server.baseUrl}/oauth/token`;
    if (options.warmup > 0) await fire(url, script, options.connections, options.warmup);
    for (let r = 0; r < options.rounds; r++) {
      progress(`round ${r + 1} of ${options.rounds}`);
      const stop = startCpuMeter(server.pid);
      const result = await fire(url, script, options.connections, options.duration);
      const cpu = stop();
      rounds.push({ result, cpu, statuses: statusesOf(result), load1: loadavg()[0] ?? 0 });
      const wrong = Object.entries(rounds.at(-1)!.statuses).filter(
        ([status]) => status !== '200' && status !== '429',
      );
      if (wrong.length > 0 || result.socketErrors > 0 || result.timeouts > 0)
        throw new BenchFailure(
          `round ${r + 1}: statuses ${JSON.stringify(rounds.at(-1)!.statuses)}, socket errors ${result.socketErrors}, timeouts ${result.timeouts}`,
        );
    }
  } finally {
    await stopServer(server);
  }
  report(options, clients, rounds);
}

function statusesOf(result: WrkResult): Record<string, number> {
  const line = /statuses: ([^\n]*)/.exec(result.output)?.[1] ?? '';
  const statuses: Record<string, number> = {};
  for (const part of line
    .trim()
    .split(' ')
    .filter((p) => p.length > 0)) {
    const [status, count] = part.split('=');
    statuses[status!] = Number(count);
  }
  return statuses;
}

function report(options: Options, clients: number, rounds: readonly Round[]): void {
  const rows = rounds.map((round, i) => {
    const ok = round.statuses['200'] ?? 0;
    return {
      round: i + 1,
      tokensPerSecond: ok / options.duration,
      p50Ms: round.result.p50,
      p99Ms: round.result.p99,
      slowDown429: round.statuses['429'] ?? 0,
      serverCpuPct: round.cpu.server,
      otherCpuPct: round.cpu.other,
      serverCpuPerTokenUs: cpuPerTokenUs(round),
      loadAverage1m: round.load1,
    };
  });
  const header =
    'round  tokens/s  p50 ms  p99 ms  429s  srv CPU %  other CPU %  srv CPU µs/token  load1';
  console.log(
    `\n${cpus().length} CPUs, node ${process.version}; wrk one thread, ${options.connections} connections, ` +
      `${options.duration} s per round after a ${options.warmup} s warm-up; ${clients} clients ` +
      `(${clients * TOKENS_PER_CLIENT_MINUTE} tokens a minute before the per-client throttle).\n`,
  );
  console.log(header);
  for (const r of rows)
    console.log(
      [
        String(r.round).padStart(5),
        r.tokensPerSecond.toFixed(0).padStart(8),
        r.p50Ms.toFixed(2).padStart(6),
        r.p99Ms.toFixed(2).padStart(6),
        String(r.slowDown429).padStart(4),
        r.serverCpuPct.toFixed(0).padStart(9),
        r.otherCpuPct.toFixed(0).padStart(11),
        r.serverCpuPerTokenUs.toFixed(0).padStart(16),
        r.loadAverage1m.toFixed(1).padStart(5),
      ].join('  '),
    );
  console.log(
    `\n${JSON.stringify({ benchmark: 'oauth-token', at: new Date().toISOString(), node: process.version, cpus: cpus().length, options, clients, rounds: rows })}`,
  );
}

// process.exit, not exitCode: a server left running after a failure must not keep the bench alive.
process.exit(await benchExitCode(() => run(parseArgs(process.argv.slice(2)))));
