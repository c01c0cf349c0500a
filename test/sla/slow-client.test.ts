// The SLA counts the server's own time only: a client that sends its body slowly, or reads a
// large answer slowly, never turns a request into a failure (docs/sla.md, rule 2). Real HTTP
// on a raw socket; the server's clock is moved while the client dawdles.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { after, before, describe, it } from 'node:test';
import { accountOnPlan } from '../helpers/accounts.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { listenHttp } from '../helpers/http.js';
import { openSocket, readUntil } from '../helpers/sockets.js';

const SLOW = 31_000;

describe('SLA latency is the server’s own time', () => {
  let t: TestApp;
  let base: string;
  let account: { accountId: string; apiKey: string | null };

  before(async () => {
    // Counts stay in memory (pending) for the whole test: no flush.
    t = await buildTestApp({ now: '2026-11-22T10:01:00Z', env: { USAGE_FLUSH_SECONDS: '3600' } });
    account = await accountOnPlan(t, 'enterprise');
    ({ base } = await listenHttp(t));
  });
  after(() => t.close());

  const counts = () => [...t.sla.counter.pending(account.accountId).values()];

  it('a request body trickled for over 30 s is served, not failed', async () => {
    const body = JSON.stringify({ name: 'slow upload' });
    const socket = await openSocket(base);
    socket.write(
      `POST /api/v1/keys HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer ${account.apiKey}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n` +
        body.slice(0, 5),
    );
    await new Promise((r) => setTimeout(r, 200));
    t.clock.advance(SLOW);
    socket.write(body.slice(5));
    const answer = await readUntil(socket, (s) => s.includes('sk_live_'));
    socket.destroy();
    assert.match(answer, /^HTTP\/1\.1 201/);
    assert.deepEqual(counts(), [{ served: 1, failed: 0, refused: 0 }]);
  });

  it('a large answer read slowly for over 30 s is served, not failed', async () => {
    const socket = await openSocket(base);
    socket.write(
      `GET /api/v1/bulk/archive?year=all HTTP/1.1\r\nHost: test\r\n` +
        `Authorization: Bearer ${account.apiKey}\r\nConnection: close\r\n\r\n`,
    );
    const head = await readUntil(socket, (s) => s.includes('\r\n\r\n'));
    assert.match(head, /^HTTP\/1\.1 200/);
    // The client stops reading with most of the answer still to come, then resumes later.
    socket.pause();
    await new Promise((r) => setTimeout(r, 300));
    t.clock.advance(SLOW);
    socket.resume();
    let bytes = head.length;
    socket.on('data', (chunk: Buffer) => (bytes += chunk.length));
    await once(socket, 'end');
    assert.ok(bytes > 8_000_000, `a large answer (${bytes} bytes)`);
    const all = () =>
      counts().reduce((sum, c) => ({
        served: sum.served + c.served,
        failed: sum.failed + c.failed,
        refused: sum.refused + c.refused,
      }));
    // Counted once the server saw the end of the answer.
    for (let i = 0; i < 200 && all().served + all().failed < 2; i++)
      await new Promise((r) => setTimeout(r, 25));
    assert.deepEqual(all(), { served: 2, failed: 0, refused: 0 });
  });
});
