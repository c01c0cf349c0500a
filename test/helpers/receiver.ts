import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export type Responder = (req: Received, n: number, res: ServerResponse) => void;

export const answer =
  (status: number, body = '', headers: Record<string, string> = {}): Responder =>
  (_req, _n, res) => {
    res.writeHead(status, headers).end(body);
  };

/**
 * A real HTTP receiver on 127.0.0.1 recording what arrives. `respond` decides each answer
 * (200 by default); it may also never answer, to hang a sender.
 */
export async function startReceiver(respond: Responder = answer(200)) {
  const received: Received[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  let responder = respond;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const entry = {
        path: req.url ?? '/',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      received.push(entry);
      for (const w of waiters.filter((w) => received.length >= w.count)) w.resolve();
      responder(entry, received.length, res);
    });
  });
  server.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    port,
    received,
    respondWith(next: Responder) {
      responder = next;
    },
    /** Resolves when `count` requests have arrived (rejects after `timeoutMs`). */
    waitFor(count: number, timeoutMs = 15_000): Promise<void> {
      if (received.length >= count) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`receiver got ${received.length} of ${count} requests`)),
          timeoutMs,
        );
        waiters.push({
          count,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        });
      });
    },
    close(): Promise<void> {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;
