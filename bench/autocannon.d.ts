/**
 * The part of autocannon 8's programmatic API the benchmarks use (the package ships no types
 * and @types/autocannon is not installed). Shapes follow lib/aggregateResult.js.
 */
declare module 'autocannon' {
  export interface Options {
    url: string;
    connections?: number;
    pipelining?: number;
    /** Seconds. */
    duration?: number;
    /** Worker threads firing requests; connections are divided among them. */
    workers?: number;
    headers?: Record<string, string>;
    title?: string;
  }

  /** Percentiles of a histogram (hdr-histogram-percentiles-obj). */
  export interface Histogram {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    total: number;
    p2_5: number;
    p50: number;
    p97_5: number;
    p99: number;
  }

  export interface Result {
    title?: string;
    url: string;
    connections: number;
    pipelining: number;
    workers?: number;
    /** Seconds. */
    duration: number;
    samples: number;
    errors: number;
    timeouts: number;
    mismatches: number;
    non2xx: number;
    resets: number;
    '2xx': number;
    statusCodeStats: Record<string, { count: number }>;
    /** Milliseconds per request. */
    latency: Histogram;
    /** Requests per second, sampled each second; `total` is the number of responses. */
    requests: Histogram & { sent: number };
    /** Bytes per second. */
    throughput: Histogram;
  }

  /** Without a callback the returned tracker is also a promise of the result. */
  export default function autocannon(options: Options): PromiseLike<Result>;
}
