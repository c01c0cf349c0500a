import { lookup as dnsLookup } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { addressRefusal } from './address-guard.js';

export interface OutboundRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  /** The User-Agent; this service's own when omitted (see userAgentFor). */
  userAgent?: string;
}

/**
 * What an attempt came to. Never the response body: it is not read beyond a few bytes.
 * `error` is what the customer sees: the status class of a response, or only "no response"
 * when none came, so sends to arbitrary hosts and ports cannot tell a closed port from a
 * filtered one, a DNS failure or a TLS error (a port-scan oracle). `detail` has the network
 * reason, for the operator's log only.
 */
export interface SendResult {
  ok: boolean;
  statusCode: number | null;
  error: string | null;
  detail: string | null;
  /** Time taken; shown to the customer only with a response (a failure's timing is an oracle). */
  durationMs: number;
}

/** The customer-facing error of an attempt: the status class, or that nothing answered. */
export const NO_RESPONSE = 'no response';
function statusError(status: number): string {
  return `HTTP ${Math.floor(status / 100)}xx${status >= 300 && status < 400 ? ' (redirects are not followed)' : ''}`;
}

/** Outbound HTTP for webhooks, behind an interface so the worker does not care how. */
export interface WebhookSender {
  /** How long a send waits for a response before it counts as "no response". */
  readonly timeoutMs: number;
  send(request: OutboundRequest): Promise<SendResult>;
}

export const SEND_TIMEOUT_MS = 15_000;
const USER_AGENT = 'salary-api-webhooks/1';

/**
 * The User-Agent of an account's webhooks: a white-label account's names its licensee (as a
 * product token), never this service.
 */
export function userAgentFor(labelling: { licensee: string } | null): string | undefined {
  if (labelling === null) return undefined;
  const token = labelling.licensee
    .normalize('NFKD')
    .replace(/[^A-Za-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40);
  return `${token === '' ? 'data' : token}-webhooks/1`;
}

class RefusedAddressError extends Error {
  readonly code = 'EREFUSEDADDRESS';
}

/**
 * A DNS lookup that fails when any resolved address is refused, so the check applies to the
 * address the socket actually connects to (a name that resolves to a public address at
 * registration and to 127.0.0.1 later is refused then).
 */
export const guardedLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) {
      callback(error, '', 4);
      return;
    }
    const list = addresses;
    const refusal = list.map((a) => addressRefusal(a.address)).find((r) => r !== null);
    if (refusal !== undefined || list.length === 0) {
      callback(new RefusedAddressError(`${hostname}: ${refusal ?? 'no address'}`), '', 4);
      return;
    }
    if (options.all === true) callback(null, list);
    else callback(null, list[0]!.address, list[0]!.family);
  });
};

/**
 * Sends with node:http(s): a 15 s deadline for the whole exchange, no redirects followed
 * (a 3xx is a failure), only 2xx counts, the body is discarded. Unless private targets are
 * allowed, literal addresses are checked here and names through `guardedLookup`, and the
 * connected socket's remote address is checked once more.
 */
export function createHttpSender(
  options: { allowPrivate: boolean; timeoutMs?: number } = { allowPrivate: false },
): WebhookSender {
  const timeoutMs = options.timeoutMs ?? SEND_TIMEOUT_MS;
  return {
    timeoutMs,
    send(request) {
      const started = performance.now();
      const done = (statusCode: number | null, detail: string | null): SendResult => {
        const ok = statusCode !== null && statusCode >= 200 && statusCode < 300;
        return {
          ok,
          statusCode,
          error: ok ? null : statusCode === null ? NO_RESPONSE : statusError(statusCode),
          detail,
          durationMs: Math.round(performance.now() - started),
        };
      };
      let url: URL;
      try {
        url = new URL(request.url);
      } catch {
        return Promise.resolve(done(null, 'invalid URL'));
      }
      const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
      if (!options.allowPrivate) {
        if (url.protocol !== 'https:')
          return Promise.resolve(done(null, 'only https targets are allowed'));
        const refusal = isIP(host) !== 0 ? addressRefusal(host) : null;
        if (refusal !== null) return Promise.resolve(done(null, `refused address: ${refusal}`));
      }
      const transport = url.protocol === 'https:' ? https : http;
      return new Promise<SendResult>((resolve) => {
        let settled = false;
        const finish = (statusCode: number | null, error: string | null): void => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          req.destroy();
          resolve(done(statusCode, error));
        };
        const req = transport.request(url, {
          method: 'POST',
          agent: false,
          headers: {
            ...request.headers,
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(request.body),
            'user-agent': request.userAgent ?? USER_AGENT,
          },
          ...(options.allowPrivate ? {} : { lookup: guardedLookup }),
        });
        const timer = setTimeout(
          () => finish(null, `no response within ${timeoutMs / 1000} s`),
          timeoutMs,
        );
        req.on('socket', (socket) => {
          if (options.allowPrivate) return;
          socket.once('connect', () => {
            const remote = socket.remoteAddress;
            const refusal = remote === undefined ? 'unknown address' : addressRefusal(remote);
            if (refusal !== null) finish(null, `refused address: ${refusal}`);
          });
        });
        req.on('response', (res) => {
          const status = res.statusCode ?? null;
          res.destroy();
          const redirect = status !== null && status >= 300 && status < 400;
          finish(
            status,
            redirect
              ? `redirect (${status}) not followed`
              : status !== null && (status < 200 || status >= 300)
                ? `HTTP ${status}`
                : null,
          );
        });
        req.on('error', (error: NodeJS.ErrnoException) => {
          const refused = error instanceof RefusedAddressError;
          finish(
            null,
            refused
              ? `refused address: ${error.message}`
              : `${error.code ?? 'error'}: ${error.message}`,
          );
        });
        req.end(request.body);
      });
    },
  };
}
