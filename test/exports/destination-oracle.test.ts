import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:net';
import { after, before, describe, it } from 'node:test';
import ssh2 from 'ssh2';
import { createHttpSender, TEST_SEND_RULE } from '../../src/webhooks/index.js';
import { accountOnPlan } from '../helpers/accounts.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { listenHttp, type HttpCall } from '../helpers/http.js';

const TIMEOUT_MS = 1_500;
/** Under load the answer may come later than the timeout; never sooner. */
const LATEST_MS = 2 * TIMEOUT_MS + 500;
const WRONG_KEY = `SHA256:${'A'.repeat(43)}`;

async function listening(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as { port: number }).port;
}

/** A loopback port with nothing listening (bound, then closed). */
async function closedPort(): Promise<number> {
  const server = createServer();
  const port = await listening(server);
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * An ed25519 key pair in OpenSSH form that ssh2 itself can read. Its generator drops leading
 * zero bytes of the public key, so about one pair in 256 is refused by its own parser
 * (mscdex/ssh2#1513); such a pair is made again.
 */
function ed25519Pair(): { private: string; public: string } {
  for (;;) {
    const pair = ssh2.utils.generateKeyPairSync('ed25519');
    const unreadable = [pair.private, pair.public].some(
      (key) => ssh2.utils.parseKey(key) instanceof Error,
    );
    if (!unreadable) return pair;
  }
}

/** A real SSH server (ssh2's) with a host key of its own, refusing every log-in. */
async function sshServer(): Promise<{ port: number; server: ssh2.Server }> {
  const { private: hostKey } = ed25519Pair();
  const server = new ssh2.Server({ hostKeys: [hostKey] }, (client) => {
    client.on('authentication', (ctx) => ctx.reject());
    client.on('error', () => undefined);
  });
  const port = await listening(server);
  return { port, server };
}

describe('export destination tests are no port-scan oracle', () => {
  let t: TestApp;
  let call: HttpCall;
  let key: string;
  let ssh: { port: number; server: ssh2.Server };
  let http: Server;
  let httpPort: number;
  let silent: Server;
  let silentPort: number;
  const { private: clientKey } = ed25519Pair();

  before(async () => {
    t = await buildTestApp({
      env: { OUTBOUND_ALLOW_PRIVATE_TARGETS: 'true' },
      webhookSender: createHttpSender({ allowPrivate: true, timeoutMs: TIMEOUT_MS }),
    });
    ({ call } = await listenHttp(t));
    key = (await accountOnPlan(t, 'enterprise')).apiKey!;
    ssh = await sshServer();
    // An open port speaking another protocol: answers with HTTP and closes.
    http = createServer((socket) => {
      socket.on('error', () => undefined);
      socket.end('HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n');
    });
    httpPort = await listening(http);
    silent = createServer((socket) => socket.on('error', () => undefined));
    silentPort = await listening(silent);
  });
  after(async () => {
    ssh?.server.close();
    http?.close();
    silent?.close();
    await t?.close();
  });

  const sftp = (port: number, over: Record<string, unknown> = {}) => ({
    type: 'sftp',
    host: '127.0.0.1',
    port,
    username: 'probe',
    private_key: clientKey,
    host_key_sha256: WRONG_KEY,
    path: '/upload',
    ...over,
  });

  const probe = async (token: string, destination: object, exportId?: string) => {
    const started = performance.now();
    const res = await call('POST', '/api/v1/exports/test-destination', {
      token,
      body: { destination, ...(exportId === undefined ? {} : { export_id: exportId }) },
    });
    return { res, took: performance.now() - started };
  };

  it('a closed port, an open port of another protocol, a silent one and an SSH server with another host key answer alike, after the timeout', async () => {
    const answers = new Set<string>();
    const ports = {
      closed: await closedPort(),
      http: httpPort,
      silent: silentPort,
      ssh: ssh.port,
    };
    for (const [what, port] of Object.entries(ports)) {
      const { res, took } = await probe(key, sftp(port));
      assert.equal(res.status, 200, `${what}: ${res.body}`);
      assert.ok(took >= TIMEOUT_MS - 20 && took < LATEST_MS, `${what}: ${took} ms`);
      assert.equal(res.json().ok, false);
      assert.doesNotMatch(
        res.body,
        /ECONN|refused|handshake|SHA256:[A-Za-z0-9+/]{40}|127\.0\.0\.1/,
      );
      answers.add(res.body);
    }
    assert.equal(answers.size, 1, [...answers].join('\n'));
  });

  it('a webhook destination: a closed port and a silent one both read "no response" after the timeout', async () => {
    for (const port of [await closedPort(), silentPort]) {
      const { res, took } = await probe(key, {
        type: 'webhook',
        url: `http://127.0.0.1:${port}/hook`,
      });
      assert.ok(took >= TIMEOUT_MS - 20 && took < LATEST_MS, `${port}: ${took} ms`);
      const { ok, error } = res.json();
      assert.deepEqual({ ok, error }, { ok: false, error: 'no response' });
    }
  });

  it('names a host-key mismatch, with the key shown, only for the host saved on the export being edited', async () => {
    const created = await call('POST', '/api/v1/exports', {
      token: key,
      body: {
        name: 'edited',
        schedule: '0 6 * * 1',
        query: { kind: 'archive', years: 'current' },
        format: 'csv',
        destination: sftp(ssh.port),
      },
    });
    assert.equal(created.status, 201, created.body);
    const id = created.json().id as string;
    const named = await probe(key, sftp(ssh.port), id);
    assert.match(named.res.json().error, /host key SHA256:\S+ does not match host_key_sha256/);
    assert.ok(named.took >= TIMEOUT_MS - 20, `${named.took} ms`);
    // Another host than the saved one (same server, by another name): not named.
    const other = await probe(key, sftp(ssh.port, { host: 'localhost' }), id);
    assert.doesNotMatch(other.res.body, /SHA256:[A-Za-z0-9+/]{40}|host key SHA256/);
    // Nothing reached SSH on a closed port: no mismatch, even for the saved host.
    const closed = await probe(key, sftp(await closedPort()), id);
    assert.equal(closed.res.json().error, other.res.json().error);
  });

  it(`at most ${TEST_SEND_RULE.limit} destination tests an hour per account, then 429 with Retry-After`, async () => {
    const fresh = (await accountOnPlan(t, 'enterprise')).apiKey!;
    // Answered at once: a webhook receiver that accepts.
    const ok = createServer((socket) => {
      socket.on('error', () => undefined);
      socket.end('HTTP/1.1 204 No Content\r\n\r\n');
    });
    const okPort = await listening(ok);
    const destination = { type: 'webhook', url: `http://127.0.0.1:${okPort}/hook` };
    try {
      for (let i = 0; i < TEST_SEND_RULE.limit; i++) {
        const { res } = await probe(fresh, destination);
        assert.equal(res.status, 200, `test ${i + 1}: ${res.body}`);
      }
      const { res } = await probe(fresh, destination);
      assert.equal(res.status, 429, res.body);
      assert.ok(Number(res.headers.get('retry-after')) > 60, 'the window is the hour');
      assert.equal(res.json().code, 'TOO_MANY_ATTEMPTS');
      // Minutes later, still within the hour: still refused.
      t.clock.advance(5 * 60_000);
      assert.equal((await probe(fresh, destination)).res.status, 429);
    } finally {
      ok.close();
    }
  });
});
