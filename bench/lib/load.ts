import autocannon, { type Result } from 'autocannon';
import { startCpuMeter, type CpuShare } from './cpu.js';
import { BenchFailure } from './failure.js';
import type { BenchOptions } from './options.js';
import { RssSampler } from './rss.js';
import type { ServerProcess } from './processes.js';

/** One measured run against one server and URL. */
export interface Measurement {
  readonly scenario: string;
  readonly server: string;
  readonly path: string;
  readonly requestsPerSecond: { readonly mean: number; readonly stddev: number };
  readonly latencyMs: { readonly p50: number; readonly p99: number; readonly mean: number };
  /** Responses of the measured run. */
  readonly responses: number;
  /** Responses of the discarded warm-up run. */
  readonly warmupResponses: number;
  readonly non2xx: number;
  readonly errors: number;
  readonly timeouts: number;
  /** Maximum VmRSS of the server, sampled every 500 ms over the warm-up and the measured run. */
  readonly maxRssBytes: number;
  /** CPU used during the measured run. */
  readonly cpu: CpuShare;
  /** hello-world's req/s measured right before this row (its paired baseline), if any. */
  readonly helloRps?: number;
}

export interface Scenario {
  readonly name: string;
  readonly server: ServerProcess;
  readonly path: string;
  readonly headers?: Readonly<Record<string, string>>;
}

function fire(
  url: string,
  options: BenchOptions,
  seconds: number,
  headers: Readonly<Record<string, string>> = {},
): Promise<Result> {
  return Promise.resolve(
    autocannon({
      url,
      headers: { ...headers },
      connections: options.connections,
      pipelining: 1,
      duration: seconds,
      ...(options.workers > 0 ? { workers: options.workers } : {}),
    }),
  );
}

/** Fails loudly when any response was not 2xx or any request errored or timed out. */
function assertClean(scenario: string, result: Result): void {
  if (result.non2xx === 0 && result.errors === 0 && result.timeouts === 0) return;
  throw new BenchFailure(
    `${scenario}: non2xx=${result.non2xx} errors=${result.errors} timeouts=${result.timeouts} ` +
      `status codes ${JSON.stringify(result.statusCodeStats)}`,
  );
}

/** A discarded warm-up run, then the measured run, sampling the server's RSS throughout. */
export async function measure(scenario: Scenario, options: BenchOptions): Promise<Measurement> {
  const url = `${scenario.server.baseUrl}${scenario.path}`;
  const rss = new RssSampler(scenario.server.pid);
  let result: Result;
  let cpu: CpuShare;
  let maxRssBytes: number;
  let warmupResponses = 0;
  try {
    if (options.warmup > 0) {
      const warmup = await fire(url, options, options.warmup, scenario.headers);
      assertClean(`${scenario.name} (warm-up)`, warmup);
      warmupResponses = warmup.requests.total;
    }
    const stopCpuMeter = startCpuMeter(scenario.server.pid);
    result = await fire(url, options, options.duration, scenario.headers);
    cpu = stopCpuMeter();
  } finally {
    maxRssBytes = rss.stop();
  }
  assertClean(scenario.name, result);
  return {
    scenario: scenario.name,
    server: scenario.server.name,
    path: scenario.path,
    requestsPerSecond: { mean: result.requests.mean, stddev: result.requests.stddev },
    latencyMs: { p50: result.latency.p50, p99: result.latency.p99, mean: result.latency.mean },
    responses: result.requests.total,
    warmupResponses,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    maxRssBytes,
    cpu,
  };
}

/**
 * hello-world measured right before the scenario, and the scenario with that figure as its
 * baseline: the machine's speed drifts by ±10 % over minutes (other tenants), so each ratio
 * compares two runs a few seconds apart rather than against one run at the start.
 */
export async function measurePaired(
  hello: ServerProcess,
  scenario: Scenario,
  options: BenchOptions,
): Promise<Measurement> {
  const baseline = await measure({ name: 'hello-world', server: hello, path: '/' }, options);
  const measured = await measure(scenario, options);
  return { ...measured, helloRps: baseline.requestsPerSecond.mean };
}
