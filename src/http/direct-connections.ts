import { STATUS_CODES, type IncomingHttpHeaders, type Server } from 'node:http';
import type { Socket } from 'node:net';
import type { FastLookup, LookupExchange } from './fast-lookup.js';

/**
 * Connections that carry only plain lookups, read and answered directly on the socket.
 *
 * node's HTTP server costs about as much per request as everything a lookup does (its parser
 * callbacks, an IncomingMessage and a ServerResponse with their streams, header validation):
 * measured against a bare Fastify hello-world, that cost alone kept a served lookup near half
 * its speed. So every new connection is first read here. A request whose head is one of the
 * plainest form (below) is given to the lookup fast path as it is; everything else, and
 * everything after it, is node's: at the first request not of that form, or that the fast path
 * passes on, the connection (with that request's bytes put back in front of what follows) is
 * handed to node's HTTP server, exactly as if it had just been accepted, and stays there.
 *
 * The plainest form, read only when one read of the socket brought exactly one whole head:
 * `GET <origin-form target> HTTP/1.1`, CRLF line ends, every header a token name, a colon and
 * printable ASCII; one Host; at most one Authorization, Accept and X-Forwarded-For; no
 * Connection other than keep-alive; no Content-Length, Transfer-Encoding, Expect, Upgrade,
 * Proxy-Connection or DPoP. A request split over reads, pipelined with another, carrying a
 * body or any byte outside that form goes to node's parser (llhttp) unread, so only requests
 * llhttp reads the same way are ever read here; the differential test in
 * test/http/direct-connections.test.ts holds that.
 *
 * The answer is written as node writes it (status line, the fast path's headers, Date,
 * `Connection: keep-alive`, `Keep-Alive: timeout=N`). A connection idle longer than the
 * server's keep-alive timeout is closed, as node closes it. A graceful stop (shutdown-gate.ts)
 * goes as on node's connections: while draining, new connections are node's and requests read
 * here are answered with `Connection: close`; once refusing, idle connections are closed and a
 * request still read is handed to node's server, which refuses it (503).
 */
export class DirectConnections {
  static readonly #installed = new WeakMap<Server, DirectConnections>();

  /** Reads the server's new connections first (see the class). */
  static install(server: Server, fast: FastLookup): DirectConnections {
    const direct = new DirectConnections(server, fast);
    DirectConnections.#installed.set(server, direct);
    return direct;
  }

  /** The instance reading `server`'s connections, if any (tests, diagnostics). */
  static of(server: Server): DirectConnections | undefined {
    return DirectConnections.#installed.get(server);
  }

  /** The server drains (shutdown-gate.ts): answers close their connection. */
  static drain(server: Server): void {
    const direct = DirectConnections.#installed.get(server);
    if (direct !== undefined && direct.state === 'open') direct.state = 'draining';
  }

  /** The server refuses (shutdown-gate.ts): idle connections close, requests go to node. */
  static refuse(server: Server): void {
    const direct = DirectConnections.#installed.get(server);
    if (direct === undefined) return;
    direct.state = 'refusing';
    for (const connection of [...direct.#live]) connection.closeIfIdle();
  }

  readonly #live = new Set<DirectConnection>();
  /** node's own connection listeners, which the handed-over connections are given to. */
  readonly #node: ((socket: Socket) => void)[];
  state: 'open' | 'draining' | 'refusing' = 'open';
  #dateSecond = -1;
  #date = '';
  /** `Keep-Alive: timeout=N`, as node writes it, or '' when the server sets no timeout. */
  readonly keepAliveHeader: string;
  /** Requests answered on connections read directly (tests, diagnostics). */
  answered = 0;
  /** Connections handed to node's server. */
  handedOver = 0;

  private constructor(
    readonly server: Server,
    readonly fast: FastLookup,
  ) {
    this.#node = server.listeners('connection') as ((socket: Socket) => void)[];
    server.removeAllListeners('connection');
    server.on('connection', (socket: Socket) => this.#accept(socket));
    const seconds = Math.floor(server.keepAliveTimeout / 1000);
    this.keepAliveHeader = seconds > 0 ? `Keep-Alive: timeout=${seconds}\r\n` : '';
  }

  #accept(socket: Socket): void {
    if (this.state !== 'open') return this.handOver(socket, undefined);
    this.#live.add(new DirectConnection(this, socket));
  }

  /** Forgets a closed connection. */
  forget(connection: DirectConnection): void {
    this.#live.delete(connection);
  }

  /**
   * Gives the socket to node's HTTP server, with `head` (bytes read but not answered) put back
   * in front of whatever follows. The socket is paused first, so nothing read meanwhile is
   * emitted to no one, then resumed once node listens: the bytes put back come first.
   */
  handOver(socket: Socket, head: Buffer | undefined, connection?: DirectConnection): void {
    if (connection !== undefined) this.#live.delete(connection);
    this.handedOver++;
    socket.pause();
    if (head !== undefined) socket.unshift(head);
    for (const listener of this.#node) listener.call(this.server, socket);
    socket.resume();
  }

  /** `Date: …` as node writes it (RFC 9110's IMF-fixdate), made once a second. */
  date(): string {
    const now = Date.now();
    const second = Math.floor(now / 1000);
    if (second !== this.#dateSecond) {
      this.#dateSecond = second;
      this.#date = `Date: ${new Date(now).toUTCString()}\r\n`;
    }
    return this.#date;
  }
}

/** The largest head read here; node's parser takes larger ones (it allows 16 KiB). */
const MAX_HEAD_BYTES = 8192;
const TARGET = /^\/[\x21-\x7e]*$/;
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const FIELD_VALUE = /^[\t\x20-\x7e]*$/;
/** Headers that change how a request is read or answered beyond what the fast path reads. */
const NODE_ONLY = new Set([
  'content-length',
  'transfer-encoding',
  'expect',
  'upgrade',
  'dpop',
  'http2-settings',
  // llhttp reads it as Connection.
  'proxy-connection',
]);

/** One connection read directly: also the exchange its current request is answered through. */
class DirectConnection implements LookupExchange {
  method: string | undefined = undefined;
  url: string | undefined = undefined;
  authorization: string | undefined = undefined;
  accept: string | undefined = undefined;
  readonly request: {
    readonly headers: IncomingHttpHeaders;
    readonly socket: Socket;
  };
  /** The request being answered (its bytes, for a hand-over), undefined between requests. */
  #head: Buffer | undefined = undefined;
  #paused = false;
  #ended = false;
  /** What this connection listens to on the socket while it reads it; removed at hand-over. */
  readonly #listeners: readonly [string, (chunk: Buffer) => void][] = [
    ['data', (chunk) => this.#read(chunk)],
    [
      'end',
      () => {
        this.#ended = true;
        if (this.#head === undefined) this.socket.end();
      },
    ],
    [
      'timeout',
      () => {
        if (this.#head === undefined) this.socket.destroy();
      },
    ],
    ['close', () => this.owner.forget(this)],
    ['drain', () => this.#resume()],
    // Errors end in 'close'; a listener keeps them from being thrown.
    ['error', () => undefined],
  ];

  constructor(
    private readonly owner: DirectConnections,
    private readonly socket: Socket,
  ) {
    this.request = { headers: {}, socket };
    for (const [event, listener] of this.#listeners) socket.on(event, listener);
    if (owner.server.keepAliveTimeout > 0) socket.setTimeout(owner.server.keepAliveTimeout);
  }

  get connection(): object {
    return this.socket;
  }

  /** Nothing more is read until the answer is out, so it may be held back. */
  get mayWait(): boolean {
    return true;
  }

  get closed(): boolean {
    return this.socket.destroyed;
  }

  #read(chunk: Buffer): void {
    // Ended after an answer with `Connection: close`: nothing more is read.
    if (!this.socket.writable) return;
    if (this.#head !== undefined) {
      // Not expected (the socket is paused while an answer is due): kept for after it.
      this.socket.pause();
      this.socket.unshift(chunk);
      this.#paused = true;
      return;
    }
    if (this.owner.state === 'refusing' || !this.#parse(chunk)) return this.#handOver(chunk);
    this.#head = chunk;
    this.owner.fast.handle(this);
    // Answered later (a refusal held back, a limiter in Redis): read nothing more until then.
    if (this.#head !== undefined && !this.#paused) {
      this.#paused = true;
      this.socket.pause();
    }
  }

  /** Reads one request head of the plainest form (see DirectConnections); false otherwise. */
  #parse(chunk: Buffer): boolean {
    const size = chunk.length;
    if (size > MAX_HEAD_BYTES || size < 20) return false;
    if (chunk[size - 1] !== 10 || chunk[size - 2] !== 13) return false;
    if (chunk[size - 3] !== 10 || chunk[size - 4] !== 13) return false;
    const text = chunk.toString('latin1');
    if (!text.startsWith('GET ')) return false;
    const lineEnd = text.indexOf('\r\n');
    if (!text.endsWith(' HTTP/1.1', lineEnd)) return false;
    const target = text.slice(4, lineEnd - 9);
    if (!TARGET.test(target)) return false;
    let hosts = 0;
    let authorization: string | undefined;
    let accept: string | undefined;
    let forwardedFor: string | undefined;
    const last = size - 2;
    let at = lineEnd + 2;
    while (at < last) {
      const end = text.indexOf('\r\n', at);
      const colon = text.indexOf(':', at);
      if (colon === -1 || colon > end) return false;
      const name = text.slice(at, colon);
      const raw = text.slice(colon + 1, end);
      if (!TOKEN.test(name) || !FIELD_VALUE.test(raw)) return false;
      const value = raw.trim();
      const lower = name.toLowerCase();
      switch (lower) {
        case 'host':
          hosts++;
          break;
        case 'authorization':
          if (authorization !== undefined) return false;
          authorization = value;
          break;
        case 'accept':
          if (accept !== undefined) return false;
          accept = value;
          break;
        case 'x-forwarded-for':
          if (forwardedFor !== undefined) return false;
          forwardedFor = value;
          break;
        case 'connection':
          if (value.toLowerCase() !== 'keep-alive') return false;
          break;
        default:
          if (NODE_ONLY.has(lower)) return false;
      }
      at = end + 2;
    }
    if (hosts !== 1) return false;
    this.method = 'GET';
    this.url = target;
    this.authorization = authorization;
    this.accept = accept;
    this.request.headers['x-forwarded-for'] = forwardedFor;
    return true;
  }

  send(status: number, headers: (string | number)[], body: string): void {
    let head = `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n`;
    for (let i = 0; i < headers.length; i += 2) {
      const value = String(headers[i + 1]);
      // node refuses to write such a header; none of ours carries one, and none may go out.
      if (!FIELD_VALUE.test(value)) {
        this.socket.destroy();
        return;
      }
      head += `${headers[i]}: ${value}\r\n`;
    }
    const closing = this.owner.state !== 'open' || this.#ended;
    head += closing
      ? `${this.owner.date()}Connection: close\r\n\r\n`
      : `${this.owner.date()}Connection: keep-alive\r\n${this.owner.keepAliveHeader}\r\n`;
    this.#head = undefined;
    this.owner.answered++;
    const flushed = this.socket.write(head + body);
    if (closing) this.socket.end();
    else if (!flushed) {
      // The client reads slower than it asks: read on once what was written has gone.
      this.#paused = true;
      this.socket.pause();
    } else this.#resume();
  }

  pass(): void {
    const head = this.#head;
    this.#head = undefined;
    this.#handOver(head);
  }

  /** Closes the connection unless a request on it is being answered (the server stops). */
  closeIfIdle(): void {
    if (this.#head === undefined) this.socket.destroy();
  }

  #resume(): void {
    if (!this.#paused) return;
    this.#paused = false;
    this.socket.resume();
  }

  #handOver(head: Buffer | undefined): void {
    const { socket } = this;
    for (const [event, listener] of this.#listeners) socket.removeListener(event, listener);
    socket.setTimeout(0);
    this.owner.handOver(socket, head, this);
  }
}
