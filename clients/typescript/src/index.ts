import createClient, { type Client } from 'openapi-fetch';
import { errorOf } from './errors.js';
import type { paths } from './generated/openapi.js';
import { TokenSource, type ClientCredentials } from './oauth.js';
import { retryingFetch, type RetryOptions } from './retry.js';

export { SalaryApiError, type Problem } from './errors.js';
export { TokenSource, type ClientCredentials } from './oauth.js';
export { retryAfterMs, retryingFetch, type RetryOptions } from './retry.js';
export { verifyWebhook, WebhookSignatureError, type WebhookEvent } from './webhooks.js';
export type { components, operations, paths } from './generated/openapi.js';

export interface SalaryClientOptions {
  /** The API's base URL, e.g. `https://salary-api.example.com`. */
  baseUrl: string;
  /** An API key (`sk_live_…`, or `sk_test_…` in test mode); without one (and without `oauth`), calls are Free by address. */
  apiKey?: string;
  /** OAuth client credentials (Enterprise): tokens are fetched, kept and renewed. */
  oauth?: ClientCredentials;
  /** Retry 429 and 503 after `Retry-After`: off unless given (`true` for the defaults). */
  retry?: RetryOptions | boolean;
  /** The underlying fetch (default: the global one). */
  fetch?: typeof fetch;
}

/** The file formats a download can take (each as the plan allows). */
export type FileFormat = 'csv' | 'xlsx' | 'xml' | 'parquet';

/** The routes that answer salary figures in every format. */
export type DownloadPath =
  | '/api/v1/salary'
  | '/api/v1/salary/history'
  | '/api/v1/salary/position'
  | '/api/v1/bulk/countries'
  | '/api/v1/bulk/jobs'
  | '/api/v1/bulk/archive';

/** A file answer, not yet read: its bytes as a stream, its type and name. */
export interface Download {
  stream: ReadableStream<Uint8Array>;
  contentType: string;
  filename: string | null;
}

export interface SalaryClient {
  /** Typed calls for every operation of the OpenAPI document: `api.GET('/api/v1/salary', …)`. */
  api: Client<paths, 'application/json'>;
  /** A salary route's answer in a file format, streamed. */
  download(
    path: DownloadPath,
    query: Record<string, string | number>,
    format: FileFormat,
  ): Promise<Download>;
}

/**
 * A client of the API: typed calls from the OpenAPI document (openapi-fetch) that throw
 * `SalaryApiError` for every problem answer, with the credential, opt-in retries and file
 * downloads.
 */
export function createSalaryClient(options: SalaryClientOptions): SalaryClient {
  const baseUrl = options.baseUrl.replace(/\/$/, '');
  const base = options.fetch ?? globalThis.fetch.bind(globalThis);
  const authorized = authorizing(base, baseUrl, options);
  const retry = options.retry === true ? {} : options.retry;
  const fetcher =
    retry === undefined || retry === false ? authorized : retryingFetch(authorized, retry);
  const api = createClient<paths, 'application/json'>({ baseUrl, fetch: fetcher });
  api.use({
    async onResponse({ response }) {
      if (!response.ok) throw await errorOf(response);
      return undefined;
    },
  });
  return {
    api,
    async download(path, query, format) {
      const url = new URL(baseUrl + path);
      for (const [name, value] of Object.entries({ ...query, format }))
        url.searchParams.set(name, String(value));
      const response = await fetcher(url);
      if (!response.ok) throw await errorOf(response);
      if (response.body === null) throw new Error(`${path} answered no body`);
      const disposition = response.headers.get('content-disposition') ?? '';
      return {
        stream: response.body,
        contentType: response.headers.get('content-type') ?? 'application/octet-stream',
        filename: /filename="([^"]+)"/.exec(disposition)?.[1] ?? null,
      };
    },
  };
}

/** `fetch` that sends the credential; an OAuth token the API refuses is renewed once. */
function authorizing(
  fetcher: typeof fetch,
  baseUrl: string,
  options: SalaryClientOptions,
): typeof fetch {
  if (options.oauth !== undefined) {
    const tokens = new TokenSource(
      { ...options.oauth, tokenUrl: options.oauth.tokenUrl ?? `${baseUrl}/oauth/token` },
      fetcher,
    );
    return async (input, init) => {
      const request = new Request(input, init);
      const send = async () => {
        const attempt = request.clone();
        attempt.headers.set('authorization', `Bearer ${await tokens.token()}`);
        return fetcher(attempt);
      };
      const response = await send();
      if (response.status !== 401) return response;
      await response.body?.cancel();
      tokens.invalidate();
      return send();
    };
  }
  const apiKey = options.apiKey;
  if (apiKey === undefined) return fetcher;
  return async (input, init) => {
    const request = new Request(input, init);
    request.headers.set('authorization', `Bearer ${apiKey}`);
    return fetcher(request);
  };
}
