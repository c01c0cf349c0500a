import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import type { Db } from '../store/index.js';
import { intervalStart } from './measure.js';
import { addProbeResult } from './repo.js';

export const PROBE_EVERY_MS = 30_000;
/** A check not answered within this long failed. */
export const PROBE_TIMEOUT_MS = 10_000;
/** Results kept while the database does not answer (a day of them). */
const MAX_BUFFERED = 2 * 60 * 24;

export interface ProbeResult {
  at: number;
  ok: boolean;
  error: string | null;
}

async function check(url: string, headers: Record<string, string>): Promise<string | null> {
  try {
    const res = await fetch(url, { headers, signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
    await res.arrayBuffer();
    // A 4xx (a 429 of the probe's own quota) still means the service answered.
    return res.status >= 500 ? `${new URL(url).pathname} answered ${res.status}` : null;
  } catch (error) {
    return `${new URL(url).pathname}: ${(error as Error).message}`;
  }
}

/** One probe: `/ready` and one salary lookup; ok when both were answered without a 5xx. */
export async function probeOnce(
  baseUrl: string,
  clock: Clock,
  apiKey?: string,
): Promise<ProbeResult> {
  const at = clock.now();
  const base = baseUrl.replace(/\/$/, '');
  const headers: Record<string, string> =
    apiKey === undefined ? {} : { authorization: `Bearer ${apiKey}` };
  const errors = (
    await Promise.all([
      check(`${base}/ready`, {}),
      check(`${base}/api/v1/salary?country=DE&job=software-engineer`, headers),
    ])
  ).filter((e): e is string => e !== null);
  return { at, ok: errors.length === 0, error: errors.length === 0 ? null : errors.join('; ') };
}

/**
 * `salary-api probe`: checks the API every 30 s from outside and records each result; results
 * the database did not take are kept and written with the next one. Runs until `signal` aborts.
 */
export async function runProbe(deps: {
  db: Db;
  clock: Clock;
  logger: Logger;
  baseUrl: string;
  prober: string;
  apiKey?: string;
  everyMs?: number;
  signal: AbortSignal;
  /** Called after each probe (tests, the CLI's output). */
  onResult?: (r: ProbeResult) => void;
}): Promise<void> {
  const pending: ProbeResult[] = [];
  const every = deps.everyMs ?? PROBE_EVERY_MS;
  while (!deps.signal.aborted) {
    const started = Date.now();
    const result = await probeOnce(deps.baseUrl, deps.clock, deps.apiKey);
    deps.onResult?.(result);
    pending.push(result);
    if (pending.length > MAX_BUFFERED) pending.splice(0, pending.length - MAX_BUFFERED);
    while (pending.length > 0) {
      const r = pending[0]!;
      try {
        await addProbeResult(deps.db, {
          prober: deps.prober,
          at: r.at,
          start: intervalStart(r.at),
          ok: r.ok,
          error: r.error,
        });
        pending.shift();
      } catch (error) {
        deps.logger.warn(
          { err: error, buffered: pending.length },
          'probe result not recorded; kept for the next attempt',
        );
        break;
      }
    }
    const wait = Math.max(0, every - (Date.now() - started));
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, wait);
      deps.signal.addEventListener(
        'abort',
        () => {
          clearTimeout(timer);
          resolve();
        },
        { once: true },
      );
    });
  }
}
