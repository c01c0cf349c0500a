import { startCpuMeter, type CpuShare } from './cpu.js';
import { BenchFailure } from './failure.js';
import type { BenchOptions } from './options.js';
import { RssSampler } from './rss.js';
import type { ServerProcess } from './processes.js';
import { runWrk, type WrkResult } from './wrk.js';

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
  /** Paired rows: hello-world's mean req/s over the runs alternating with this row's. */
  readonly helloRps?: number;
  /** Paired rows: this row's req/s over hello-world's, per round. */
  readonly ratios?: readonly number[];
  /** Paired rows: hello-world's req/s in each round, beside this row's. */
  readonly helloRounds?: readonly number[];
  /**
   * Paired rows: the reference's server CPU per response over this row's, per round: the same
   * comparison by the servers' own cost, which time taken from the machine by other tenants
   * (steal) does not move, where it moves their rates.
   */
  readonly cpuRatios?: readonly number[];
  /** Paired rows: the p99 of each round, this row's and the reference's (ms). */
  readonly p99Rounds?: readonly number[];
  readonly referenceP99Rounds?: readonly number[];
  /** The /health row: the downloads running beside it, by response status. */
  readonly downloadStatuses?: Readonly<Record<string, number>>;
}

export interface Scenario {
  readonly name: string;
  readonly server: ServerProcess;
  readonly path: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** A wrk Lua script (e.g. a random credential per request). */
  readonly script?: string;
  /** 'refused': every response must be a 4xx (refusal floods); default every one 2xx. */
  readonly expect?: 'ok' | 'refused';
  /** Connections for this scenario; the bench's --connections when unset. */
  readonly connections?: number;
}

export function fire(
  scenario: Scenario,
  options: BenchOptions,
  seconds: number,
): Promise<WrkResult> {
  return runWrk({
    url: `${scenario.server.baseUrl}${scenario.path}`,
    connections: scenario.connections ?? options.connections,
    seconds,
    ...(scenario.headers === undefined ? {} : { headers: scenario.headers }),
    ...(scenario.script === undefined ? {} : { script: scenario.script }),
  });
}

/** Fails loudly when a response was not what the scenario expects or a request failed. */
export function assertClean(scenario: Scenario, label: string, result: WrkResult): void {
  const wrongStatus =
    scenario.expect === 'refused' ? result.requests - result.non2xx : result.non2xx;
  if (wrongStatus === 0 && result.socketErrors === 0 && result.timeouts === 0) return;
  throw new BenchFailure(
    `${label}: ${wrongStatus} responses not ${scenario.expect === 'refused' ? 'refused' : '2xx'}, ` +
      `socket errors ${result.socketErrors}, timeouts ${result.timeouts}`,
  );
}

/** A discarded warm-up run, then the measured run, sampling the server's RSS throughout. */
export async function measure(scenario: Scenario, options: BenchOptions): Promise<Measurement> {
  const rss = new RssSampler(scenario.server.pid);
  let result: WrkResult;
  let cpu: CpuShare;
  let maxRssBytes: number;
  let warmupResponses = 0;
  try {
    if (options.warmup > 0) {
      const warmup = await fire(scenario, options, options.warmup);
      assertClean(scenario, `${scenario.name} (warm-up)`, warmup);
      warmupResponses = warmup.requests;
    }
    const stopCpuMeter = startCpuMeter(scenario.server.pid);
    result = await fire(scenario, options, options.duration);
    cpu = stopCpuMeter();
  } finally {
    maxRssBytes = rss.stop();
  }
  assertClean(scenario, scenario.name, result);
  return {
    scenario: scenario.name,
    server: scenario.server.name,
    path: scenario.path,
    requestsPerSecond: { mean: result.requestsPerSecond, stddev: 0 },
    latencyMs: { p50: result.p50, p99: result.p99, mean: result.mean },
    responses: result.requests,
    warmupResponses,
    non2xx: result.non2xx,
    errors: result.socketErrors,
    timeouts: result.timeouts,
    maxRssBytes,
    cpu,
  };
}

/** The baseline's one route on a running hello-world server. */
export function helloWorld(server: ServerProcess): Scenario {
  return { name: 'hello-world', server, path: '/' };
}

/**
 * hello-world and the scenario measured alternately, `rounds` times (the warm-ups only in the
 * first): the machine's speed drifts by ±10 % over minutes (other tenants), so each ratio
 * compares two runs seconds apart, and the row's ratio is the median of the rounds' ratios.
 * The row's other figures are over all rounds (req/s the mean, p99 the highest).
 */
export async function measurePaired(
  hello: ServerProcess,
  scenario: Scenario,
  options: BenchOptions,
): Promise<Measurement> {
  return measureAgainst(helloWorld(hello), scenario, options);
}

/**
 * As measurePaired, against another reference than hello-world (its figures in the hello
 * fields). The order alternates from round to round (reference first, then the scenario first),
 * so a steady drift of the machine's speed favours neither side.
 */
export async function measureAgainst(
  reference: Scenario,
  scenario: Scenario,
  options: BenchOptions,
): Promise<Measurement> {
  const hellos: Measurement[] = [];
  const ours: Measurement[] = [];
  for (let round = 0; round < options.rounds; round++) {
    const runOptions = round === 0 ? options : { ...options, warmup: 0 };
    if (round % 2 === 0) {
      hellos.push(await measure(reference, runOptions));
      ours.push(await measure(scenario, runOptions));
    } else {
      ours.push(await measure(scenario, runOptions));
      hellos.push(await measure(reference, runOptions));
    }
  }
  const ratios = ours.map((m, i) => m.requestsPerSecond.mean / hellos[i]!.requestsPerSecond.mean);
  const cpuRatios = ours.map(
    (m, i) => serverCpuPerRequestUs(hellos[i]!) / serverCpuPerRequestUs(m),
  );
  return {
    ...combine(ours),
    helloRps: mean(hellos.map((m) => m.requestsPerSecond.mean)),
    ratios,
    helloRounds: hellos.map((m) => m.requestsPerSecond.mean),
    cpuRatios,
    p99Rounds: ours.map((m) => m.latencyMs.p99),
    referenceP99Rounds: hellos.map((m) => m.latencyMs.p99),
  };
}

/** CPU time the server spent per response: unlike req/s, barely moved by the load generator. */
export function serverCpuPerRequestUs(m: Measurement): number {
  return m.responses > 0 ? (1000 * m.cpu.serverMs) / m.responses : 0;
}

const mean = (values: readonly number[]): number =>
  values.reduce((sum, v) => sum + v, 0) / values.length;

export const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

/** One row from several runs of the same scenario. */
function combine(runs: readonly Measurement[]): Measurement {
  const first = runs[0]!;
  const sum = (pick: (m: Measurement) => number) => runs.reduce((s, m) => s + pick(m), 0);
  const rps = runs.map((m) => m.requestsPerSecond.mean);
  return {
    ...first,
    requestsPerSecond: {
      mean: mean(rps),
      stddev: Math.sqrt(mean(rps.map((r) => (r - mean(rps)) ** 2))),
    },
    latencyMs: {
      p50: median(runs.map((m) => m.latencyMs.p50)),
      p99: Math.max(...runs.map((m) => m.latencyMs.p99)),
      mean: mean(runs.map((m) => m.latencyMs.mean)),
    },
    responses: sum((m) => m.responses),
    non2xx: sum((m) => m.non2xx),
    errors: sum((m) => m.errors),
    timeouts: sum((m) => m.timeouts),
    maxRssBytes: Math.max(...runs.map((m) => m.maxRssBytes)),
    cpu: {
      server: mean(runs.map((m) => m.cpu.server)),
      bench: mean(runs.map((m) => m.cpu.bench)),
      other: mean(runs.map((m) => m.cpu.other)),
      idle: mean(runs.map((m) => m.cpu.idle)),
      serverMs: sum((m) => m.cpu.serverMs),
    },
  };
}
