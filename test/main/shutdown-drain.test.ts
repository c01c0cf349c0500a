import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { freshPostgres, postgresAvailable, type TestDb } from '../helpers/db.js';
import { LOOKUP, startInstance, type Instance } from '../helpers/instances.js';
import {
  loadBundledRelease,
  operatorServices,
  paidAccount,
  UNLIMITED,
  type Services,
} from '../redis/fixture.js';

interface Response {
  status: number;
  headers: Record<string, string>;
}

/** A keep-alive HTTP/1.1 connection that parses whole responses (Content-Length bodies). */
class Connection {
  readonly responses: Response[] = [];
  ended: 'open' | 'closed' | 'reset' = 'open';
  #buffer = Buffer.alloc(0);
  #waiters: (() => void)[] = [];

  constructor(private readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.#buffer = Buffer.concat([this.#buffer, chunk]);
      this.#parse();
    });
    socket.on('error', () => (this.ended = 'reset'));
    socket.on('close', () => {
      if (this.ended === 'open') this.ended = 'closed';
      this.#wake();
    });
  }

  static open(url: string): Promise<Connection> {
    const { hostname, port } = new URL(url);
    return new Promise((resolve, reject) => {
      const socket = connect(Number(port), hostname, () => resolve(new Connection(socket)));
      socket.once('error', reject);
    });
  }

  send(path: string): void {
    this.socket.write(`GET ${path} HTTP/1.1\r\nHost: test\r\nConnection: keep-alive\r\n\r\n`);
  }

  /** Resolves when `count` responses arrived or the connection ended. */
  async until(count: number): Promise<void> {
    while (this.responses.length < count && this.ended === 'open')
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
  }

  #wake(): void {
    for (const waiter of this.#waiters.splice(0)) waiter();
  }

  #parse(): void {
    for (;;) {
      const end = this.#buffer.indexOf('\r\n\r\n');
      if (end < 0) return;
      const [statusLine = '', ...lines] = this.#buffer.subarray(0, end).toString().split('\r\n');
      const headers = Object.fromEntries(
        lines.map((l) => [
          l.slice(0, l.indexOf(':')).toLowerCase(),
          l.slice(l.indexOf(':') + 1).trim(),
        ]),
      );
      const length = Number(headers['content-length'] ?? 0);
      if (this.#buffer.length < end + 4 + length) return;
      this.responses.push({ status: Number(statusLine.split(' ')[1]), headers });
      this.#buffer = this.#buffer.subarray(end + 4 + length);
      this.#wake();
    }
  }
}

const skip = !(await postgresAvailable()) && 'no PostgreSQL';

describe('SIGTERM with requests written on idle keep-alive connections', { skip }, () => {
  let db: TestDb & { url: string };
  let s: Services;
  let apiKey: string;
  let instance: Instance;
  before(async () => {
    db = await freshPostgres();
    await loadBundledRelease(db.db);
    s = await operatorServices(db.db, {});
    ({ apiKey } = await paidAccount(s, 'enterprise', { ...UNLIMITED, formats: ['json', 'xlsx'] }));
    instance = await startInstance({ DATABASE_URL: db.url, SHUTDOWN_TIMEOUT_SECONDS: '40' });
  });
  after(async () => {
    await instance?.kill();
    await db?.cleanup();
  });

  it('answers every request already sent (or refuses it with 503, Retry-After), never resets one', async () => {
    const connections = await Promise.all(
      Array.from({ length: 60 }, () => Connection.open(instance.url)),
    );
    for (const c of connections) c.send('/health');
    await Promise.all(connections.map((c) => c.until(1)));
    assert.ok(connections.every((c) => c.responses[0]?.status === 200));

    // The full Excel archive takes seconds to write. SIGTERM arrives meanwhile, then a request
    // on every idle connection: each is answered (or refused with 503), and the file in
    // flight is still written and sent before the process exits.
    const exporting = fetch(`${instance.url}/api/v1/bulk/archive?format=xlsx&year=all`, {
      headers: { authorization: `Bearer ${apiKey}` },
    }).then(async (r) => [r.status, (await r.arrayBuffer()).byteLength]);
    await new Promise((r) => setTimeout(r, 1000));
    instance.child.kill('SIGTERM');
    connections.forEach((c, i) => c.send(i % 2 === 0 ? '/health' : LOOKUP));
    await Promise.all(connections.map((c) => c.until(2)));
    const [exportStatus] = await exporting;
    const code = await instance.stop();

    const lost = connections.filter((c) => c.responses.length < 2);
    const closing = connections.filter((c) => c.responses[1]?.headers.connection === 'close');
    console.log(`answered ${60 - lost.length} of 60; ${closing.length} with Connection: close`);
    assert.equal(exportStatus, 200, 'the export in flight finished');
    assert.equal(lost.length, 0, `${lost.length} of 60 requests reset or dropped unanswered`);
    for (const c of connections) {
      const second = c.responses[1]!;
      assert.ok([200, 503].includes(second.status), String(second.status));
      if (second.status === 503) assert.ok(Number(second.headers['retry-after']) >= 1);
    }
    assert.equal(
      code,
      0,
      `closed once the export was out, not forced at the shutdown timeout:\n${instance.log()}`,
    );
  });
});
