/** Opt-in retries of 429 and 503 answers, waiting as `Retry-After` says. */
export interface RetryOptions {
  /** Retries after the first attempt (default 2). */
  retries?: number;
  /** A wait longer than this is not waited for: the error is thrown at once (default 60 s). */
  maxDelayMs?: number;
  /** How to wait (tests pass their clock's). */
  sleep?: (ms: number) => Promise<void>;
}

const RETRIED = new Set([429, 503]);

/** Milliseconds a Retry-After header asks for (seconds or an HTTP date); undefined without one. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (header === null) return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** `fetch` that retries 429 and 503, after `Retry-After` (1 s, 2 s, 4 s … without one). */
export function retryingFetch(fetcher: typeof fetch, options: RetryOptions = {}): typeof fetch {
  const retries = options.retries ?? 2;
  const maxDelayMs = options.maxDelayMs ?? 60_000;
  const sleep =
    options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  return async (input, init) => {
    const original = new Request(input, init);
    for (let attempt = 0; ; attempt++) {
      const response = await fetcher(original.clone());
      if (!RETRIED.has(response.status) || attempt >= retries) return response;
      const delay = retryAfterMs(response.headers.get('retry-after')) ?? 1000 * 2 ** attempt;
      if (delay > maxDelayMs) return response;
      await response.body?.cancel();
      await sleep(delay);
    }
  };
}
