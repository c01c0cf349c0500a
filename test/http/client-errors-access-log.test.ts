// Answers written by the clientErrorHandler (bytes that never became a readable request) have
// their access line like every other answer: exactly one each, with what is known. Raw sockets
// against a listening server; the request timeout is node's own, in real time.
import assert from 'node:assert/strict';
import type { Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { listenHttp } from '../helpers/http.js';
import { capturedLogger } from '../helpers/log-lines.js';
import { openSocket } from '../helpers/sockets.js';

/** Everything the server writes on `socket` until it closes the connection. */
function readToClose(socket: Socket, limitMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('close', () => resolve(text));
    socket.setTimeout(limitMs, () => reject(new Error(`not closed; got ${JSON.stringify(text)}`)));
  });
}

describe('unreadable requests in the access log', () => {
  let t: TestApp;
  let base: string;
  const { logger, lines } = capturedLogger();
  const accessLines = (status: number) =>
    lines.filter((l) => l.msg === 'request' && l.status === status);

  before(async () => {
    t = await buildTestApp({ env: { ACCESS_LOG: 'true' }, logger });
    ({ base } = await listenHttp(t));
  });
  after(() => t.close());

  it('a malformed request: one line with its status and address, no id, method or URL', async () => {
    const socket = await openSocket(base);
    const closed = readToClose(socket, 5_000);
    socket.write('GETS /secret HTTP/1.1\r\nHost: test\r\n\r\n');
    assert.match(await closed, /^HTTP\/1\.1 400 /);
    const logged = accessLines(400);
    assert.equal(logged.length, 1, JSON.stringify(lines));
    assert.equal(logged[0]!.ip, '127.0.0.1');
    for (const field of ['request_id', 'method', 'url', 'ms', 'account'])
      assert.equal(logged[0]![field], undefined, field);
  });

  it(
    'a request trickled past the timeout, in its headers or its body: one 408 line each',
    { timeout: 120_000 },
    async () => {
      const headers = await openSocket(base);
      const body = await openSocket(base);
      const answers = [readToClose(headers, 60_000), readToClose(body, 60_000)];
      headers.write('GET /health HTTP/1.1\r\nHost: test\r\n');
      body.write(
        'POST /api/v1/accounts HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n' +
          'Content-Length: 100\r\n\r\n{',
      );
      // A few bytes every 5 s keep both connections busy, as a slow-loris client would.
      const drip = setInterval(() => {
        if (!headers.destroyed) headers.write('X-Drip: 1\r\n');
        if (!body.destroyed) body.write(' ');
      }, 5_000);
      const [headersAnswer, bodyAnswer] = await Promise.all(answers).finally(() =>
        clearInterval(drip),
      );
      assert.match(headersAnswer!, /^HTTP\/1\.1 408 /);
      assert.match(bodyAnswer!, /^HTTP\/1\.1 408 /);
      // Anything else the server might log about these requests has had time to arrive.
      await new Promise((r) => setTimeout(r, 200));
      const logged = accessLines(408);
      assert.equal(logged.length, 2, JSON.stringify(logged));
      const unread = logged.find((l) => l.url === undefined);
      const arriving = logged.find((l) => l.url === '/api/v1/accounts');
      assert.ok(unread !== undefined && arriving !== undefined, JSON.stringify(logged));
      assert.equal(unread.method, undefined);
      assert.equal(arriving.method, 'POST');
      for (const line of logged) {
        assert.equal(line.ip, '127.0.0.1');
        assert.equal(line.request_id, undefined);
      }
      const others = lines.filter((l) => l.msg === 'request' && l.url === '/api/v1/accounts');
      assert.equal(others.length, 1, 'the request still arriving has no other line');
    },
  );
});
