import { parseArgs } from 'node:util';

export interface BenchOptions {
  /** Seconds of each measured run. */
  readonly duration: number;
  /** Seconds of the discarded warm-up run before each measured run. */
  readonly warmup: number;
  /** Alternations of hello-world and ours per row, each of `duration` seconds. */
  readonly rounds: number;
  /**
   * The rows that compare two servers of the product's code (the lookup against the logged
   * replica of its bytes, the 429 flood against the Enterprise-key lookup): alternations and
   * seconds of each run. More and shorter than the other rows': on a shared host, two runs of
   * 5 s a few seconds apart differ by up to a fifth, and these rows' ratios are the targets.
   */
  readonly pairRounds: number;
  readonly pairDuration: number;
  readonly connections: number;
  /** When set, the servers run with `--cpu-prof` and write their profiles here. */
  readonly cpuProfDir: string | undefined;
  /** Redis mode: the authenticated lookup with REDIS_URL set (shared limits) at this URL. */
  readonly redisUrl: string | undefined;
  /** Redis mode: PostgreSQL for the server (embedded when unset); also enables the workers row. */
  readonly databaseUrl: string | undefined;
  /** Only the lookup without the access line, with metrics off and on (the metrics' cost). */
  readonly metrics: boolean;
  /** Only the rows of the default server whose label contains this text. */
  readonly only: string | undefined;
}

export const USAGE = `Usage: npm run bench -- [--duration N] [--warmup N] [--connections N] [--cpu-prof DIR]

  --duration N     seconds of each measured run (env BENCH_DURATION, default 5)
  --warmup N       seconds of the discarded warm-up run (env BENCH_WARMUP, default 3)
  --rounds N       hello-world/ours alternations per row, median ratio (env BENCH_ROUNDS, default 3)
  --pair-rounds N  alternations in the rows comparing two of our servers (the headline against
                   the logged replica, 429 against the keyed lookup) (env BENCH_PAIR_ROUNDS, default 9)
  --pair-duration N seconds of each of their runs (env BENCH_PAIR_DURATION, default 3)
  --connections N  concurrent connections (env BENCH_CONNECTIONS, default 50)
  --cpu-prof DIR   run the servers with node --cpu-prof, profiles written to DIR
  --only TEXT      only the default server's rows whose label contains TEXT (e.g. "lookup")
  --metrics        only the DE lookup with ACCESS_LOG=false, metrics off then on (METRICS_TOKEN)
  --redis          instead of the anonymous rows: a Developer key's lookup with REDIS_URL set
                   (Redis at --redis-url or env BENCH_REDIS_URL, default redis://127.0.0.1:6379)
  --database-url U PostgreSQL for --redis (env BENCH_DATABASE_URL; embedded when unset); adds a
                   "serve --workers 2" row`;

/** Bad options (exit 2), or --help (exit 0); the message is for the user. */
export class OptionsError extends Error {
  constructor(
    message: string,
    readonly exitCode = 2,
  ) {
    super(message);
  }
}

function positiveInt(name: string, raw: string | undefined, fallback: number, min = 1): number {
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > 100_000) {
    throw new OptionsError(`${name} must be a whole number from ${min} (got "${raw}")`);
  }
  return value;
}

/** Reads the options from argv, falling back to BENCH_* environment variables. */
export function parseOptions(
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): BenchOptions {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      duration: { type: 'string' },
      warmup: { type: 'string' },
      rounds: { type: 'string' },
      'pair-rounds': { type: 'string' },
      'pair-duration': { type: 'string' },
      connections: { type: 'string' },
      'cpu-prof': { type: 'string' },
      redis: { type: 'boolean' },
      metrics: { type: 'boolean' },
      only: { type: 'string' },
      'redis-url': { type: 'string' },
      'database-url': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help === true) throw new OptionsError(USAGE, 0);
  return {
    duration: positiveInt('--duration', values.duration ?? env.BENCH_DURATION, 5),
    warmup: positiveInt('--warmup', values.warmup ?? env.BENCH_WARMUP, 3, 0),
    rounds: positiveInt('--rounds', values.rounds ?? env.BENCH_ROUNDS, 3),
    pairRounds: positiveInt('--pair-rounds', values['pair-rounds'] ?? env.BENCH_PAIR_ROUNDS, 9),
    pairDuration: positiveInt(
      '--pair-duration',
      values['pair-duration'] ?? env.BENCH_PAIR_DURATION,
      3,
    ),
    connections: positiveInt('--connections', values.connections ?? env.BENCH_CONNECTIONS, 50),
    cpuProfDir: values['cpu-prof'],
    redisUrl:
      values.redis === true || values['redis-url'] !== undefined
        ? (values['redis-url'] ?? env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379')
        : undefined,
    databaseUrl: values['database-url'] ?? env.BENCH_DATABASE_URL,
    metrics: values.metrics === true,
    only: values.only,
  };
}
