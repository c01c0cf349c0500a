import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { ERROR_CODES, problemType } from '../errors/index.js';
import { DirectConnections } from './direct-connections.js';

type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * How long, after SIGTERM is handled, requests already written on open connections are still
 * read and answered before idle connections are closed. While the event loop was blocked
 * (an Excel export), such a request sits unread in the socket and the connection looks idle:
 * closing idle connections at once would reset it. Timers run only once the loop is free, so
 * the drain starts counting after the block, and the loop's next turns read those requests.
 */
export const DRAIN_MS = 300;
const RETRY_AFTER_SECONDS = 1;

/** While the server closes, how often connections that have become idle are closed. */
const REAP_EVERY_MS = 50;

/**
 * Stands in front of the HTTP server's request handling for a graceful shutdown: while
 * draining, requests are answered as usual with `Connection: close`; once the server closes,
 * a request still arriving on an open connection is refused with 503 `SHUTTING_DOWN`,
 * Retry-After and `Connection: close`, never reset. A keep-alive connection whose request was
 * in flight when the server began to close is closed once its response is out: otherwise it
 * would hold the server open until the shutdown timeout, whose forced exit resets whatever is
 * in flight then. Connections read directly (direct-connections.ts) follow the same steps.
 */
export function shutdownGate(server: Server): {
  drain(ms?: number): Promise<void>;
  refuse(): void;
} {
  let state: 'open' | 'draining' | 'refusing' = 'open';
  const listeners = server.listeners('request') as RequestListener[];
  server.removeAllListeners('request');
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (state !== 'open') res.shouldKeepAlive = false;
    if (state === 'refusing') {
      refuse(req, res);
      return;
    }
    for (const listener of listeners) listener.call(server, req, res);
  });
  return {
    async drain(ms = DRAIN_MS) {
      state = 'draining';
      DirectConnections.drain(server);
      await sleep(ms);
    },
    refuse() {
      state = 'refusing';
      DirectConnections.refuse(server);
      const reaper = setInterval(() => server.closeIdleConnections(), REAP_EVERY_MS);
      reaper.unref();
      server.once('close', () => clearInterval(reaper));
    },
  };
}

function refuse(req: IncomingMessage, res: ServerResponse): void {
  const type = problemType('SHUTTING_DOWN', '');
  const body = JSON.stringify({
    type,
    title: ERROR_CODES.SHUTTING_DOWN.title,
    status: 503,
    detail: 'This instance is stopping; retry, and another instance answers.',
    instance: (req.url ?? '/').split('?')[0],
    code: 'SHUTTING_DOWN',
    retry_after: RETRY_AFTER_SECONDS,
    doc_url: type,
  });
  // The body is not read: the connection closes after this answer.
  res.writeHead(503, {
    'content-type': 'application/problem+json',
    'content-length': Buffer.byteLength(body),
    'retry-after': String(RETRY_AFTER_SECONDS),
    connection: 'close',
  });
  res.end(body);
}
