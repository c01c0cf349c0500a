import assert from 'node:assert/strict';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { CONNECTION_ERRORS, errorSlug, type ErrorCode } from '../../src/errors/index.js';
import { REQUEST_TIMEOUT_MS } from '../../src/http/client-errors.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';

/** Writes `bytes` on a new connection and reads until the server closes it. */
function exchange(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(bytes));
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(answer));
    socket.setTimeout(5_000, () => reject(new Error(`no close; got ${JSON.stringify(answer)}`)));
  });
}

function parse(answer: string): { status: number; headers: string; body: Record<string, unknown> } {
  const [head = '', body = ''] = answer.split('\r\n\r\n');
  return {
    status: Number(/^HTTP\/1\.1 (\d{3}) /.exec(head)?.[1]),
    headers: head.toLowerCase(),
    body: JSON.parse(body) as Record<string, unknown>,
  };
}

describe('requests node cannot read are answered with a problem document', () => {
  let t: TestApp;
  let port: number;
  before(async () => {
    t = await buildTestApp();
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    port = (t.app.server.address() as AddressInfo).port;
  });
  after(() => t.close());

  const cases = [
    {
      name: 'a malformed request line',
      bytes: 'GETS / HTTP/1.1\r\nHost: x\r\n\r\n',
      status: 400,
      code: 'MALFORMED_REQUEST',
      detail: /not valid HTTP\/1\.1: Expected space after method/,
    },
    {
      name: 'Content-Length and Transfer-Encoding together (request smuggling)',
      bytes:
        'POST /api/v1/sessions HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
      status: 400,
      code: 'MALFORMED_REQUEST',
      detail: /Transfer-Encoding can't be present with Content-Length/,
    },
    {
      name: 'headers over 16 KiB',
      bytes: `GET /health HTTP/1.1\r\nHost: x\r\nX-Padding: ${'a'.repeat(20_000)}\r\n\r\n`,
      status: 431,
      code: 'HEADERS_TOO_LARGE',
      detail: /over 16 KiB/,
    },
  ];
  for (const c of cases) {
    it(`${c.name}: ${c.status} ${c.code}, then the connection is closed`, async () => {
      const answer = parse(await exchange(port, c.bytes));
      assert.equal(answer.status, c.status);
      assert.match(answer.headers, /content-type: application\/problem\+json/);
      assert.match(answer.headers, /connection: close/);
      assert.equal(answer.body.code, c.code);
      assert.equal(answer.body.status, c.status);
      assert.equal(answer.body.type, `/errors/${errorSlug(c.code as ErrorCode)}`);
      assert.match(String(answer.body.detail), c.detail);
      assert.ok(CONNECTION_ERRORS.has(c.code as ErrorCode), 'its page documents it as such');
    });
  }

  it('the pages of these codes show their answer as it is: a path for type, no request id', async () => {
    for (const code of CONNECTION_ERRORS) {
      const slug = errorSlug(code);
      const page = await t.app.inject({ url: `/errors/${slug}` });
      assert.equal(page.statusCode, 200);
      assert.match(page.body, new RegExp(`&quot;type&quot;: &quot;/errors/${slug}&quot;`));
      assert.doesNotMatch(page.body, /&quot;request_id&quot;/);
    }
    const other = await t.app.inject({ url: '/errors/not-found' });
    assert.match(other.body, /&quot;request_id&quot;/);
  });

  it('a request, headers and body, must arrive whole within the request timeout', () => {
    assert.equal(t.app.server.requestTimeout, REQUEST_TIMEOUT_MS);
  });

  it('a request that did not arrive in time: 408 REQUEST_TIMEOUT, then the connection is closed', async () => {
    // What node emits when the request timeout passes, on a connection it has accepted.
    const accepted = new Promise<Socket>((resolve) => t.app.server.once('connection', resolve));
    const client = connect(port, '127.0.0.1');
    let answer = '';
    client.setEncoding('utf8');
    client.on('data', (chunk: string) => (answer += chunk));
    const closed = new Promise((resolve) => client.on('close', resolve));
    client.write('POST /api/v1/sessions HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{');
    const timeout = Object.assign(new Error('Request timeout'), {
      code: 'ERR_HTTP_REQUEST_TIMEOUT',
    });
    t.app.server.emit('clientError', timeout, await accepted);
    await closed;
    const parsed = parse(answer);
    assert.equal(parsed.status, 408);
    assert.equal(parsed.body.code, 'REQUEST_TIMEOUT');
    assert.match(String(parsed.body.detail), /within 30 seconds/);
  });
});

describe('links in an answer are built only from a Host header that is a host name', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(() => t.close());

  it('a Host with a path or query gives relative links, a host name absolute ones', async () => {
    const bad = await t.app.inject({ url: '/nope', headers: { host: 'evil.example/phish?' } });
    assert.equal(bad.json().type, '/errors/not-found');
    assert.equal(bad.json().doc_url, '/errors/not-found');
    const good = await t.app.inject({ url: '/nope', headers: { host: 'api.example.eu:8443' } });
    assert.equal(good.json().type, 'http://api.example.eu:8443/errors/not-found');
  });
});
