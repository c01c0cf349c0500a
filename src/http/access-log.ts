import type { Logger } from '../lib/logger.js';
import type { ResponseObserver } from './responses.js';

/**
 * One answered request. Bytes that never became a request (see clientErrorHandler) have no
 * request id or time, and a method and URL only when their headers were read: those are null.
 */
export interface AccessLine {
  readonly requestId: string | null;
  readonly method: string | null;
  readonly url: string | null;
  readonly status: number;
  readonly ms: number | null;
  readonly ip: string;
  readonly accountId: string | null;
}

/**
 * Query parameters that carry a secret (a mailed link's single-use token, an access token): the
 * line keeps the parameter and drops its value, so a log reader cannot use a link still valid.
 */
const SECRET_PARAMS = /([?&](?:access_)?token=)[^&]*/g;

/** The URL as the access line writes it: secrets in the query replaced by `redacted`. */
export function loggedUrl(url: string): string {
  return url.includes('token=') ? url.replace(SECRET_PARAMS, '$1redacted') : url;
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

/**
 * One JSON line per request, through the logger's `info` (pino, whose destination the process
 * sets up: sonic-boom on standard output, written in synchronous batches, see createLogger).
 * Refusals (401, 403, 429) are the exception: the first of each status from each address in a second is written as
 * usual, the repeats only counted, and each second one `requests refused (repeats)` line per
 * status and address gives their number. A flood of refused requests so costs a map update
 * per request, not a line.
 */
export class AccessLog {
  readonly #repeats = new Map<string, Repeats>();
  #overflow = 0;
  readonly #timer: NodeJS.Timeout;

  constructor(private readonly log: Logger) {
    this.#timer = setInterval(() => this.flush(), REFUSALS_WINDOW_MS);
    this.#timer.unref();
  }

  write(line: AccessLine): void {
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
    this.log.info(
      {
        request_id: line.requestId ?? undefined,
        method: line.method ?? undefined,
        url: line.url === null ? undefined : loggedUrl(line.url),
        status: line.status,
        ms: line.ms === null ? undefined : Math.round(line.ms * 100) / 100,
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

/** Writes every answered request's line: a response observer (`responses.ts`). */
export function accessLogObserver(log: AccessLog): ResponseObserver {
  return (a) =>
    log.write({
      requestId: a.requestId,
      method: a.method,
      url: a.url,
      status: a.status,
      ms: a.elapsedMs,
      ip: a.ip,
      accountId: a.principal?.accountId ?? null,
    });
}
