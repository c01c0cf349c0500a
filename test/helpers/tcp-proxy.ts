import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { freePort } from './redis.js';

/**
 * A TCP proxy on a fixed local port to `target`, which a test can cut (every connection reset,
 * new ones refused) and restore, to play a network fault between the API and a server.
 */
export class TcpProxy {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();

  private constructor(
    readonly port: number,
    private readonly target: { host: string; port: number },
  ) {}

  static async start(target: { host: string; port: number }): Promise<TcpProxy> {
    const proxy = new TcpProxy(await freePort(), target);
    await proxy.open();
    return proxy;
  }

  /** Accepts connections again (after `cut`). */
  async open(): Promise<void> {
    const server = createServer((client) => {
      const upstream = createConnection(this.target);
      for (const [a, b] of [
        [client, upstream],
        [upstream, client],
      ] as const) {
        this.sockets.add(a);
        a.pipe(b);
        a.on('error', () => b.destroy());
        a.on('close', () => {
          this.sockets.delete(a);
          b.destroy();
        });
      }
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.server = server;
  }

  /** Resets every open connection and refuses new ones until `open`. */
  async cut(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    const closed = server && new Promise<void>((resolve) => server.close(() => resolve()));
    for (const socket of this.sockets) socket.resetAndDestroy();
    await closed;
  }

  get openConnections(): number {
    return this.sockets.size / 2;
  }
}
