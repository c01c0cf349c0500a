import assert from 'node:assert/strict';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { DirectConnections } from '../../src/http/direct-connections.js';
import { MemoryRateLimiter, type RateLimiter } from '../../src/limits/index.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { accountOnPlan } from '../helpers/accounts.js';
import { capturedLogger } from '../helpers/log-lines.js';

/**
 * Connections read directly (src/http/direct-connections.ts), over real TCP with raw bytes.
 * A differential test: each request is sent as bytes to a server reading connections directly
 * and to one where everything goes through node's HTTP server and Fastify
 * (LOOKUP_FAST_PATH=false); both must answer the same. The table also says which requests
 * must be read directly and which handed to node's server (its parser decides them).
 */

interface Served {
  t: TestApp;
  port: number;
  lines: Record<string, unknown>[];
}

async function serve(
  env: Record<string, string>,
  extra: { db?: TestApp['db']; limiter?: RateLimiter } = {},
): Promise<Served> {
  const { logger, lines } = capturedLogger();
  const t = await buildTestApp({
    env: { ACCESS_LOG: 'true', LOG_LEVEL: 'info', ...env },
    logger,
    ...extra,
  });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  return { t, port: (t.app.server.address() as AddressInfo).port, lines };
}

function direct(s: Served): DirectConnections {
  const found = DirectConnections.of(s.t.app.server);
  assert.ok(found, 'connections are read directly');
  return found;
}

interface Response {
  statusLine: string;
  /** Lower-case names; a repeated header's values joined by ", ". */
  headers: Map<string, string>;
  /** Header names in the order sent. */
  names: string[];
  body: string;
}

/** Reads HTTP/1.1 responses off `bytes`: complete ones only, in order (to HEAD: no bodies). */
function responses(bytes: Buffer, closed: boolean, head = false): Response[] {
  const out: Response[] = [];
  let at = 0;
  for (;;) {
    const end = bytes.indexOf('\r\n\r\n', at);
    if (end === -1) return out;
    const lines = bytes.toString('latin1', at, end).split('\r\n');
    const headers = new Map<string, string>();
    const names: string[] = [];
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      const name = line.slice(0, colon).toLowerCase();
      names.push(line.slice(0, colon));
      const value = line.slice(colon + 1).trim();
      headers.set(name, headers.has(name) ? `${headers.get(name)}, ${value}` : value);
    }
    const length = headers.get('content-length');
    let bodyEnd: number;
    if (head) bodyEnd = end + 4;
    else if (length !== undefined) bodyEnd = end + 4 + Number(length);
    else if (headers.get('transfer-encoding') === 'chunked') {
      const last = bytes.indexOf('0\r\n\r\n', end + 4);
      if (last === -1) return out;
      bodyEnd = last + 5;
    } else if (closed) bodyEnd = bytes.length;
    else return out;
    if (bodyEnd > bytes.length) return out;
    out.push({
      statusLine: lines[0]!,
      headers,
      names,
      body: bytes.toString('utf8', end + 4, bodyEnd),
    });
    at = bodyEnd;
  }
}

interface Conversation {
  responses: Response[];
  closed: boolean;
  socket: Socket;
}

/**
 * Opens a connection, writes each piece of `pieces` as its own write (waiting `gapMs` between
 * them), and reads until `count` responses came or the server closed the connection.
 */
async function converse(
  port: number,
  pieces: (string | Buffer)[],
  count: number,
  options: { gapMs?: number; end?: boolean; keepOpen?: boolean; head?: boolean } = {},
): Promise<Conversation> {
  const socket = connect(port, '127.0.0.1');
  socket.setNoDelay(true);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  let received = Buffer.alloc(0);
  let closed = false;
  const done = new Promise<void>((resolve) => {
    const check = (): void => {
      if (closed || responses(received, false, options.head).length >= count) resolve();
    };
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      check();
    });
    socket.on('close', () => {
      closed = true;
      check();
    });
    socket.on('error', () => undefined);
  });
  for (const [i, piece] of pieces.entries()) {
    if (i > 0) await sleep(options.gapMs ?? 20);
    socket.write(piece);
  }
  if (options.end === true) socket.end();
  await Promise.race([
    done,
    sleep(5_000).then(() => assert.fail(`no answer: ${received.toString('latin1')}`)),
  ]);
  if (options.keepOpen !== true) socket.destroy();
  return { responses: responses(received, closed, options.head), closed, socket };
}

/** Writes each request on one connection once the answer to the one before has come. */
async function oneAfterAnother(port: number, requests: string[]): Promise<Response[]> {
  const socket = connect(port, '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  let received = Buffer.alloc(0);
  socket.on('data', (chunk: Buffer) => (received = Buffer.concat([received, chunk])));
  try {
    for (const [i, bytes] of requests.entries()) {
      socket.write(bytes);
      for (let waited = 0; responses(received, false).length <= i; waited += 5) {
        assert.ok(waited < 5_000, `no answer to request ${i + 1}`);
        await sleep(5);
      }
    }
  } finally {
    socket.destroy();
  }
  return responses(received, false);
}

const DE = '/api/v1/salary?country=DE&job=software-engineer&level=senior';
const FR = '/api/v1/salary?country=FR&job=nurse';

/** Headers that differ between any two answers (time, the request's own id). */
const VARYING = new Set(['date', 'x-request-id']);

/** What must be equal between the two servers: status, headers (but VARYING), the body. */
function comparable(r: Response): { statusLine: string; headers: object; body: unknown } {
  const headers = Object.fromEntries([...r.headers].filter(([name]) => !VARYING.has(name)));
  let body: unknown = r.body;
  if ((r.headers.get('content-type') ?? '').includes('json') && r.body !== '') {
    const parsed = JSON.parse(r.body) as Record<string, unknown>;
    if (typeof parsed.request_id === 'string') parsed.request_id = '(id)';
    body = parsed;
  }
  return { statusLine: r.statusLine, headers, body };
}

interface Case {
  name: string;
  /** The request's bytes; KEY stands for a Developer key. */
  bytes: string;
  status: number;
  /** Read and answered directly; otherwise handed to node's server. */
  direct: boolean;
}

const plain = (target: string, headers = ''): string =>
  `GET ${target} HTTP/1.1\r\nHost: api.example\r\n${headers}\r\n`;

const CASES: Case[] = [
  { name: 'a plain lookup', bytes: plain(DE), status: 200, direct: true },
  {
    name: 'history',
    bytes: plain('/api/v1/salary/history?country=NL&job=nurse'),
    status: 200,
    direct: true,
  },
  {
    name: 'with a key',
    bytes: plain(DE, 'Authorization: Bearer KEY\r\n'),
    status: 200,
    direct: true,
  },
  {
    name: 'lower-case names, spaces and tabs around values, other headers',
    bytes: `GET ${DE} HTTP/1.1\r\nhost:api.example\r\nuser-agent: \tcurl/8 \t\r\nauthorization:  Bearer KEY\r\nACCEPT: application/json\r\nconnection: Keep-Alive\r\n\r\n`,
    status: 200,
    direct: true,
  },
  {
    name: 'an unknown key',
    bytes: plain(DE, `Authorization: Bearer sk_live_${'x'.repeat(43)}\r\n`),
    status: 401,
    direct: true,
  },
  {
    name: 'not a bearer',
    bytes: plain(DE, 'Authorization: Basic dXNlcjpwYXNz\r\n'),
    status: 401,
    direct: true,
  },
  {
    name: 'an empty Authorization',
    bytes: plain(DE, 'Authorization:\r\n'),
    status: 401,
    direct: true,
  },
  { name: 'last year on Free', bytes: plain(`${DE}&year=2025`), status: 403, direct: true },
  {
    name: 'CSV asked by Accept (passed on)',
    bytes: plain(DE, 'Accept: text/csv\r\n'),
    status: 403,
    direct: false,
  },
  {
    name: 'a query the fast path does not take',
    bytes: plain(`${DE}&colour=red`),
    status: 400,
    direct: false,
  },
  { name: 'another endpoint', bytes: plain('/health'), status: 200, direct: false },
  {
    name: 'Connection: close',
    bytes: plain(DE, 'Connection: close\r\n'),
    status: 200,
    direct: false,
  },
  {
    name: 'HTTP/1.0',
    bytes: `GET ${DE} HTTP/1.0\r\nHost: api.example\r\n\r\n`,
    status: 200,
    direct: false,
  },
  {
    name: 'no Host',
    bytes: `GET ${DE} HTTP/1.1\r\nAccept: */*\r\n\r\n`,
    status: 400,
    direct: false,
  },
  { name: 'two Hosts', bytes: plain(DE, 'Host: other.example\r\n'), status: 200, direct: false },
  {
    name: 'Content-Length: 0',
    bytes: plain(DE, 'Content-Length: 0\r\n'),
    status: 200,
    direct: false,
  },
  {
    name: 'a chunked body',
    bytes: `${plain(DE, 'Transfer-Encoding: chunked\r\n')}0\r\n\r\n`,
    status: 200,
    direct: false,
  },
  {
    name: 'Content-Length and Transfer-Encoding',
    bytes: `${plain(DE, 'Content-Length: 5\r\nTransfer-Encoding: chunked\r\n')}0\r\n\r\n`,
    status: 400,
    direct: false,
  },
  {
    name: 'space before the colon',
    bytes: plain(DE, 'Authorization : Bearer KEY\r\n'),
    status: 400,
    direct: false,
  },
  { name: 'obs-fold', bytes: plain(DE, 'X-A: a\r\n b\r\n'), status: 400, direct: false },
  {
    name: 'bare LF line ends',
    bytes: `GET ${DE} HTTP/1.1\nHost: api.example\n\n`,
    status: 400,
    direct: false,
  },
  { name: 'a bare CR in a value', bytes: plain(DE, 'X-A: a\rb\r\n'), status: 400, direct: false },
  { name: 'a NUL in a value', bytes: plain(DE, 'X-A: a\0b\r\n'), status: 400, direct: false },
  {
    name: 'a byte above 0x7f in a value',
    bytes: plain(DE, 'X-A: caf\xe9\r\n'),
    status: 200,
    direct: false,
  },
  {
    name: 'an absolute-form target',
    bytes: plain(`http://api.example${DE}`),
    status: 200,
    direct: false,
  },
  { name: 'lower-case method', bytes: plain(DE).replace('GET', 'get'), status: 400, direct: false },
  { name: 'HEAD', bytes: plain(DE).replace('GET', 'HEAD'), status: 200, direct: false },
  {
    name: 'two Authorizations',
    bytes: plain(DE, 'Authorization: Bearer KEY\r\nAuthorization: Bearer KEY\r\n'),
    status: 200,
    direct: false,
  },
  {
    name: 'two Accepts',
    bytes: plain(DE, 'Accept: text/csv\r\nAccept: application/json\r\n'),
    status: 403,
    direct: false,
  },
  {
    name: 'Proxy-Connection: close',
    bytes: plain(DE, 'Proxy-Connection: close\r\n'),
    status: 200,
    direct: false,
  },
  { name: 'a DPoP header', bytes: plain(DE, 'DPoP: x\r\n'), status: 200, direct: false },
  {
    name: 'a head over 8 KiB',
    bytes: plain(DE, `X-Pad: ${'p'.repeat(9000)}\r\n`),
    status: 200,
    direct: false,
  },
  {
    name: 'a head over 16 KiB',
    bytes: plain(DE, `X-Pad: ${'p'.repeat(17000)}\r\n`),
    status: 431,
    direct: false,
  },
];

describe('connections read directly: the same answers as node and Fastify', () => {
  let fast: Served;
  let slow: Served;
  let key: string;

  before(async () => {
    fast = await serve({});
    key = (await accountOnPlan(fast.t, 'developer')).apiKey!;
    slow = await serve({ LOOKUP_FAST_PATH: 'false' }, { db: fast.t.db });
    assert.equal(DirectConnections.of(slow.t.app.server), undefined);
  });
  after(async () => {
    await slow.t.close();
    await fast.t.close();
  });

  for (const c of CASES) {
    it(`${c.name}: ${c.status} from both, ${c.direct ? 'read directly' : "node's"}`, async () => {
      const bytes = Buffer.from(c.bytes.replaceAll('KEY', key), 'latin1');
      const connections = direct(fast);
      const answered = connections.answered;
      const head = c.bytes.startsWith('HEAD');
      const ours = await converse(fast.port, [bytes], 1, { head });
      const theirs = await converse(slow.port, [bytes], 1, { head });
      assert.equal(ours.responses.length, 1, 'one answer');
      assert.equal(ours.responses[0]!.statusLine.split(' ')[1], String(c.status));
      assert.deepEqual(comparable(ours.responses[0]!), comparable(theirs.responses[0]!));
      assert.equal(connections.answered - answered, c.direct ? 1 : 0);
    });
  }

  it('writes the head as node writes it: its headers in order, then Date, Connection, Keep-Alive', async () => {
    const {
      responses: [ours],
    } = await converse(fast.port, [plain(DE)], 1);
    assert.equal(ours!.statusLine, 'HTTP/1.1 200 OK');
    assert.deepEqual(ours!.names.slice(-3), ['Date', 'Connection', 'Keep-Alive']);
    assert.equal(ours!.headers.get('keep-alive'), 'timeout=72');
    assert.match(
      ours!.headers.get('date')!,
      /^[A-Z][a-z]{2}, \d\d [A-Z][a-z]{2} \d{4} \d\d:\d\d:\d\d GMT$/,
    );
    assert.equal(Buffer.byteLength(ours!.body), Number(ours!.headers.get('content-length')));
  });
});

describe('connections read directly: one connection, several requests', () => {
  let s: Served;
  before(async () => {
    s = await serve({});
  });
  after(() => s.t.close());

  const country = (r: Response): string =>
    (JSON.parse(r.body) as { data: { country: string }[] }).data[0]!.country;

  it('answers several lookups on one connection directly, in order', async () => {
    const connections = direct(s);
    const answered = connections.answered;
    const got = await oneAfterAnother(
      s.port,
      [DE, FR, DE].map((path) => plain(path)),
    );
    assert.deepEqual(got.map(country), ['DE', 'FR', 'DE']);
    assert.equal(connections.answered - answered, 3);
  });

  it('two requests in one write go to node, answered in order', async () => {
    const connections = direct(s);
    const [answered, handed] = [connections.answered, connections.handedOver];
    const { responses: got } = await converse(s.port, [plain(DE) + plain(FR)], 2);
    assert.deepEqual(got.map(country), ['DE', 'FR']);
    assert.equal(connections.answered - answered, 0);
    assert.equal(connections.handedOver - handed, 1);
  });

  it('refusals pipelined on a connection node reads, then a half-close: every one answered', async () => {
    // A lookup served a moment ago: refusals on connections read directly would be held back.
    assert.equal(
      (await converse(s.port, [plain(DE)], 1)).responses[0]!.statusLine,
      'HTTP/1.1 200 OK',
    );
    const unknown = plain(DE, `Authorization: Bearer sk_live_${'z'.repeat(43)}\r\n`);
    const { responses: got } = await converse(s.port, [unknown.repeat(10)], 10, { end: true });
    assert.deepEqual(
      got.map((r) => r.statusLine),
      Array(10).fill('HTTP/1.1 401 Unauthorized'),
    );
  });

  it('a head split over writes goes to node whole', async () => {
    const bytes = plain(DE);
    const pieces = [bytes.slice(0, 7), bytes.slice(7, 40), bytes.slice(40)];
    const { responses: got } = await converse(s.port, pieces, 1, { gapMs: 30 });
    assert.equal(got.length, 1);
    assert.equal(country(got[0]!), 'DE');
  });

  it("after a request node must read, the connection stays node's; every answer in order", async () => {
    const connections = direct(s);
    const answered = connections.answered;
    const sequence = [
      plain(DE),
      plain('/health'),
      plain(FR),
      plain('/api/v1/countries'),
      plain(DE),
    ];
    const got = await oneAfterAnother(s.port, sequence);
    assert.deepEqual(
      got.map((r) => r.statusLine),
      Array(5).fill('HTTP/1.1 200 OK'),
    );
    assert.deepEqual([country(got[0]!), country(got[2]!), country(got[4]!)], ['DE', 'FR', 'DE']);
    assert.ok(got[1]!.body.includes('"status"'), got[1]!.body);
    // Only the first was read directly; the rest were node's (and its fast path's).
    assert.equal(connections.answered - answered, 1);
  });

  it('a client that sends its request and half-closes gets the answer, then the close', async () => {
    const { responses: got, closed } = await converse(s.port, [plain(DE)], 2, { end: true });
    assert.equal(got.length, 1);
    assert.equal(country(got[0]!), 'DE');
    assert.equal(closed, true);
  });

  it('an idle connection closes after the keep-alive timeout', async () => {
    const server = s.t.app.server;
    const kept = server.keepAliveTimeout;
    server.keepAliveTimeout = 200;
    try {
      const { socket } = await converse(s.port, [plain(DE)], 1, { keepOpen: true });
      const closed = new Promise<number>((resolve) => {
        const at = Date.now();
        socket.once('close', () => resolve(Date.now() - at));
      });
      const after = await Promise.race([closed, sleep(3_000).then(() => -1)]);
      socket.destroy();
      assert.ok(after >= 0, 'closed by the server');
    } finally {
      server.keepAliveTimeout = kept;
    }
  });
});

describe('connections read directly: answers decided later', () => {
  /**
   * An in-process limiter whose decisions wait while `held` is set (a slow shared store); it
   * has no synchronous decision, so every answer is decided later.
   */
  class HeldLimiter implements RateLimiter {
    readonly #memory = new MemoryRateLimiter();
    held: Promise<void> | undefined;
    calls = 0;
    async consume(...args: Parameters<RateLimiter['consume']>) {
      this.calls++;
      await this.held;
      return this.#memory.consume(...args);
    }
    release(...args: Parameters<RateLimiter['release']>) {
      return this.#memory.release(...args);
    }
    peek(...args: Parameters<RateLimiter['peek']>) {
      return this.#memory.peek(...args);
    }
    close() {
      return this.#memory.close();
    }
  }
  const limiter = new HeldLimiter();
  let s: Served;
  before(async () => {
    s = await serve({}, { limiter });
  });
  after(() => s.t.close());

  it('a request written while the one before waits is read after it is answered', async () => {
    let release!: () => void;
    limiter.held = new Promise((resolve) => (release = resolve));
    const calls = limiter.calls;
    const answered = direct(s).answered;
    const socket = connect(s.port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    let received = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => (received = Buffer.concat([received, chunk])));
    socket.write(plain(DE));
    for (let i = 0; limiter.calls === calls; i++) {
      assert.ok(i < 400, 'the limiter is asked');
      await sleep(5);
    }
    socket.write(plain(FR));
    await sleep(50);
    assert.equal(received.length, 0, 'nothing answered while the limiter waits');
    release();
    limiter.held = undefined;
    while (responses(received, false).length < 2) await sleep(5);
    socket.destroy();
    const got = responses(received, false);
    assert.deepEqual(
      got.map((r) => (JSON.parse(r.body) as { data: { country: string }[] }).data[0]!.country),
      ['DE', 'FR'],
    );
    assert.equal(direct(s).answered - answered, 2);
  });
});

describe('connections read directly: behind a trusted proxy', () => {
  let s: Served;
  before(async () => {
    s = await serve({ TRUST_PROXY: '127.0.0.1' });
  });
  after(() => s.t.close());

  it("takes the client's address from X-Forwarded-For, as node's path does", async () => {
    const answered = direct(s).answered;
    const { responses: got } = await converse(
      s.port,
      [plain(DE, 'X-Forwarded-For: 203.0.113.9, 198.51.100.4\r\n')],
      1,
    );
    assert.equal(got[0]!.statusLine, 'HTTP/1.1 200 OK');
    assert.equal(direct(s).answered - answered, 1);
    const line = s.lines.find((l) => l.msg === 'request' && l.url === DE);
    assert.equal(line?.ip, '198.51.100.4');
  });
});
