import pino from 'pino';
import type { Logger } from '../lib/logger.js';

export interface AccessLine {
  readonly requestId: string;
  readonly method: string;
  readonly url: string;
  readonly status: number;
  readonly ms: number;
  readonly ip: string;
  readonly accountId: string | null;
}

/** Refusals a client can repeat at no cost: logged once per address and second, then counted. */
const AGGREGATED = new Set([401, 403, 429]);
/** Distinct (status, address) pairs counted per second; beyond, counted together. */
const MAX_PAIRS = 10_000;
export const REFUSALS_WINDOW_MS = 1_000;

interface Repeats {
  readonly status: number;
  readonly ip: string;
  count: number;
}

/** pino's numeric level of `info`, which access lines carry. */
const INFO = 30;
/** Characters a JSON string may hold as they are (printable ASCII except `"` and `\`). */
const PLAIN_JSON = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

function jsonString(value: string): string {
  return PLAIN_JSON.test(value) ? `"${value}"` : JSON.stringify(value);
}

/**
 * Where access lines go when the logger is pino's: its destination, with the line formatted
 * here exactly as pino would format it (level, time, the logger's bindings, the fields, msg).
 * Formatting a fixed shape by hand costs about a third of pino's generic object walk, which
 * was most of an access line's cost. undefined for any other logger (it gets `info` calls).
 */
interface RawSink {
  readonly stream: { write(line: string): unknown };
  /** The logger's bindings as pino serializes them, e.g. `,"service":"salary-api"`. */
  readonly bindings: string;
  /** Whether pino writes `info` lines at all (LOG_LEVEL). */
  readonly enabled: boolean;
}

function rawSinkOf(log: Logger): RawSink | undefined {
  const logger = log as Partial<pino.Logger> & Record<symbol, unknown>;
  const stream = logger[pino.symbols.streamSym] as RawSink['stream'] | undefined;
  const bindings = logger[pino.symbols.chindingsSym];
  const time = logger[pino.symbols.timeSym];
  if (typeof stream?.write !== 'function' || typeof bindings !== 'string') return undefined;
  // A multistream wants each line's level beside it: pino's own call sets that up.
  if ((stream as Record<symbol, unknown>)[pino.symbols.needsMetadataGsym] === true)
    return undefined;
  // Only pino's default time format (epoch milliseconds) is reproduced here.
  if (time !== pino.stdTimeFunctions.epochTime || typeof logger.isLevelEnabled !== 'function')
    return undefined;
  return { stream, bindings, enabled: logger.isLevelEnabled('info') };
}

/**
 * One JSON line per request, the same fields whichever path (Fastify or the lookup fast path)
 * served it, written straight to pino's destination (see RawSink). Refusals (401, 403, 429)
 * are the exception: the first of each status from each address in a second is written as
 * usual, the repeats only counted, and each second one `requests refused (repeats)` line per
 * status and address gives their number. A flood of refused requests so costs a map update
 * per request, not a line.
 */
export class AccessLog {
  readonly #repeats = new Map<string, Repeats>();
  #overflow = 0;
  readonly #timer: NodeJS.Timeout;
  readonly #sink: RawSink | undefined;

  constructor(private readonly log: Logger) {
    this.#sink = rawSinkOf(log);
    this.#timer = setInterval(() => this.flush(), REFUSALS_WINDOW_MS);
    this.#timer.unref();
  }

  write(line: AccessLine): void {
    if (this.#sink?.enabled === false) return;
    if (AGGREGATED.has(line.status)) {
      const pair = `${line.status} ${line.ip}`;
      const seen = this.#repeats.get(pair);
      if (seen !== undefined) {
        seen.count++;
        return;
      }
      if (this.#repeats.size >= MAX_PAIRS) {
        this.#overflow++;
        return;
      }
      this.#repeats.set(pair, { status: line.status, ip: line.ip, count: 0 });
    }
    const sink = this.#sink;
    if (sink !== undefined) {
      const account = line.accountId === null ? '' : `,"account":${jsonString(line.accountId)}`;
      sink.stream.write(
        `{"level":${INFO},"time":${Date.now()}${sink.bindings},"request_id":${jsonString(line.requestId)},"method":${jsonString(line.method)},"url":${jsonString(line.url)},"status":${line.status},"ms":${Math.round(line.ms * 100) / 100},"ip":${jsonString(line.ip)}${account},"msg":"request"}\n`,
      );
      return;
    }
    this.log.info(
      {
        request_id: line.requestId,
        method: line.method,
        url: line.url,
        status: line.status,
        ms: Math.round(line.ms * 100) / 100,
        ip: line.ip,
        account: line.accountId ?? undefined,
      },
      'request',
    );
  }

  /** Writes the counts of the refusals not written one by one, and starts a new window. */
  flush(): void {
    for (const { status, ip, count } of this.#repeats.values()) {
      if (count > 0) this.log.info({ status, ip, count }, 'requests refused (repeats)');
    }
    if (this.#overflow > 0) {
      this.log.info({ count: this.#overflow }, 'requests refused (repeats, other addresses)');
    }
    this.#repeats.clear();
    this.#overflow = 0;
  }

  stop(): void {
    clearInterval(this.#timer);
    this.flush();
  }
}
