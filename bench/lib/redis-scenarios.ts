import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { measurePaired, type Measurement } from './load.js';
import type { BenchOptions } from './options.js';
import {
  cpuProfileFlags,
  createAccountWithCli,
  freePort,
  LOOPBACK,
  spawnServer,
  stopServer,
  waitUntilOk,
  type ServerProcess,
} from './processes.js';

const LOOKUP = '/api/v1/salary?country=DE&job=software-engineer&level=senior';
/** The Developer limit lifted: the Redis limiter counts every request but never refuses. */
const PLAN_OVERRIDES = '{"developer":{"requestLimit":1000000000}}';

/**
 * `npm run bench -- --redis`: the authenticated lookup (a Developer key, so the Redis limiter
 * decides every request: one EVALSHA round trip) on one instance with REDIS_URL, and with
 * `--database-url` also `serve --workers 2`. Redis, the server and the load generator share
 * the machine's cores. The bench's own keys (a random prefix) are deleted afterwards.
 */
export async function benchRedis(
  root: string,
  workDir: string,
  hello: ServerProcess,
  options: BenchOptions,
  progress: (message: string) => void,
): Promise<Measurement[]> {
  const redisUrl = options.redisUrl!;
  const prefix = `salary-bench:${randomBytes(4).toString('hex')}:`;
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOST: LOOPBACK,
    REDIS_URL: redisUrl,
    REDIS_KEY_PREFIX: prefix,
    PLAN_OVERRIDES,
    LOG_LEVEL: 'warn',
    ACCESS_LOG: 'false',
    // serve on PostgreSQL needs one; the bench's webhook secrets are throwaway.
    SECRET_KEY: randomBytes(32).toString('hex'),
    ...(options.databaseUrl === undefined
      ? { DATA_DIR: join(workDir, 'data-redis') }
      : { DATABASE_URL: options.databaseUrl }),
  };
  const apiKey = createAccountWithCli(
    root,
    ['--email', `bench-${randomBytes(4).toString('hex')}@example.com`, '--plan', 'developer'],
    env,
  );
  const headers = { authorization: `Bearer ${apiKey}` };

  const rows: Measurement[] = [];
  const runs: { name: string; args: string[] }[] = [
    { name: 'ours REDIS_URL, one instance', args: ['serve'] },
  ];
  if (options.databaseUrl !== undefined)
    runs.push({ name: 'ours REDIS_URL, serve --workers 2', args: ['serve', '--workers', '2'] });
  try {
    for (const run of runs) {
      const port = await freePort();
      const profile = cpuProfileFlags(options.cpuProfDir, `ours-redis-${rows.length}`);
      const args = [...profile, 'dist/main/cli.js', ...run.args];
      const server = spawnServer(run.name, process.execPath, args, {
        cwd: root,
        port,
        env: { ...env, PORT: String(port) },
        logFile: join(workDir, `stdout-redis-${rows.length}.log`),
      });
      try {
        const readyMs = await waitUntilOk(server, '/ready', 60_000);
        progress(`${run.name} ready in ${(readyMs / 1000).toFixed(1)} s (pid ${server.pid})`);
        const name = `DE senior, Developer key, ${run.name}`;
        progress(`measuring ${name}`);
        rows.push(await measurePaired(hello, { name, server, path: LOOKUP, headers }, options));
      } finally {
        await stopServer(server);
      }
    }
  } finally {
    await deleteKeys(redisUrl, prefix);
  }
  return rows;
}

async function deleteKeys(url: string, prefix: string): Promise<void> {
  const redis = new Redis(url, { maxRetriesPerRequest: 1 });
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      if (keys.length > 0) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}
