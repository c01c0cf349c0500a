// Requests pipelined on one connection are answered in the order they arrived, also when one
// of them cannot be read: its 400 comes after the answers of the requests before it, and those
// requests are in the access log like any other.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { listenHttp } from '../helpers/http.js';
import { capturedLogger } from '../helpers/log-lines.js';
import { openSocket } from '../helpers/sockets.js';
import type { Socket } from 'node:net';

/** Everything the server writes on `socket` until it closes the connection (at most 5 s). */
function readToClose(socket: Socket): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('close', () => resolve(text));
    socket.setTimeout(5_000, () => reject(new Error(`not closed; got ${JSON.stringify(text)}`)));
  });
}

/** The status lines of the HTTP answers in `text`, in order. */
function statuses(text: string): number[] {
  return [...text.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]));
}

describe('pipelined requests followed by a malformed one', () => {
  let t: TestApp;
  let base: string;
  const { logger, lines } = capturedLogger();
  let release: () => void = () => undefined;

  before(async () => {
    t = await buildTestApp({
      env: { ACCESS_LOG: 'true' },
      logger,
      routes: (app) =>
        app.get('/held-answer', async () => {
          await new Promise<void>((resolve) => (release = resolve));
          return { held: true };
        }),
    });
    ({ base } = await listenHttp(t));
  });
  after(() => t.close());

  it('answers the valid requests first, in order, then the 400, then closes', async () => {
    const socket = await openSocket(base);
    const closed = readToClose(socket);
    socket.write(
      'GET /held-answer HTTP/1.1\r\nHost: test\r\n\r\n' +
        'GET /health HTTP/1.1\r\nHost: test\r\n\r\n' +
        'GETS / HTTP/1.1\r\nHost: test\r\n\r\n',
    );
    // The malformed request is parsed at once; the first answer is held until it was.
    await new Promise((r) => setTimeout(r, 100));
    release();
    const answer = await closed;
    assert.deepEqual(statuses(answer), [200, 200, 400], answer);
    assert.ok(answer.indexOf('{"held":true}') < answer.indexOf('MALFORMED_REQUEST'), answer);
    assert.match(answer.slice(answer.lastIndexOf('HTTP/1.1 400')), /connection: close/i);
    const logged = lines
      .filter((l) => l.msg === 'request')
      .map((l) => `${String(l.status)} ${String(l.url)}`);
    assert.ok(logged.includes('200 /held-answer'), logged.join(', '));
    assert.ok(logged.includes('200 /health'), logged.join(', '));
  });

  it('a malformed request pipelined after a quick answer waits for that answer too', async () => {
    const socket = await openSocket(base);
    const closed = readToClose(socket);
    socket.write(
      'GET /health HTTP/1.1\r\nHost: test\r\n\r\n' +
        'POST /api/v1/sessions HTTP/1.1\r\nHost: test\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
    );
    const answer = await closed;
    assert.deepEqual(statuses(answer), [200, 400], answer);
  });
});
