import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createHttpSender, REDELIVERY_RULE, TEST_SEND_RULE } from '../../src/webhooks/index.js';
import { accountOnPlan } from '../helpers/accounts.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { listenHttp, type HttpCall } from '../helpers/http.js';
import { answer, startReceiver, type Receiver } from '../helpers/receiver.js';
import { recordEvent } from '../helpers/webhooks.js';

const TIMEOUT_MS = 1_000;

/** A loopback port with nothing listening (bound, then closed). */
async function closedPort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('webhook test sends and redeliveries are no port-scan oracle', () => {
  let t: TestApp;
  let call: HttpCall;
  let receiver: Receiver;
  let key: string;
  before(async () => {
    // Loopback targets allowed, so the probes can reach local ports as an attacker's would
    // reach public ones.
    t = await buildTestApp({
      env: { OUTBOUND_ALLOW_PRIVATE_TARGETS: 'true' },
      webhookSender: createHttpSender({ allowPrivate: true, timeoutMs: TIMEOUT_MS }),
    });
    ({ call } = await listenHttp(t));
    receiver = await startReceiver(answer(503, 'RECEIVER BODY'));
    key = (await accountOnPlan(t, 'business')).apiKey!;
  });
  after(async () => {
    await receiver.close();
    await t.close();
  });

  /** A new Business account (its own throttle budget) with one endpoint at the receiver. */
  const freshAccountWithHook = async () => {
    const fresh = (await accountOnPlan(t, 'business')).apiKey!;
    const body = { url: receiver.url, events: ['data.updated'] };
    const id = (await call('POST', '/api/v1/webhooks', { token: fresh, body })).json().id as string;
    return { fresh, id };
  };

  const register = async (url: string) =>
    (
      await call('POST', '/api/v1/webhooks', {
        token: key,
        body: { url, events: ['data.updated'] },
      })
    ).json().id as string;

  it('a closed port, a refused name and a silent host all read "no response", answered after the timeout', async () => {
    const port = await closedPort();
    const silent = createServer(() => undefined).listen(0, '127.0.0.1');
    await new Promise((resolve) => silent.once('listening', resolve));
    const silentPort = (silent.address() as { port: number }).port;
    for (const url of [
      `http://127.0.0.1:${port}/x`,
      `http://nonexistent.invalid:${port}/x`,
      `http://127.0.0.1:${silentPort}/x`,
    ]) {
      const id = await register(url);
      const started = performance.now();
      const res = await call('POST', `/api/v1/webhooks/${id}/test`, { token: key });
      const took = performance.now() - started;
      assert.ok(took >= TIMEOUT_MS - 20 && took < TIMEOUT_MS + 500, `${url}: ${took} ms`);
      assert.equal(res.status, 200, res.body);
      assert.deepEqual(res.json(), {
        ok: false,
        status_code: null,
        duration_ms: null,
        error: 'no response',
      });
      assert.doesNotMatch(res.body, /ECONN|ENOTFOUND|EAI_AGAIN|refused|127\.0\.0\.1|\d+ s/);
    }
    silent.close();
  });

  it('the delivery log schedules a refused attempt as if it had waited the whole timeout', async () => {
    const port = await closedPort();
    const id = await register(`http://127.0.0.1:${port}/x`);
    await recordEvent(t);
    const startedAt = t.clock.now();
    await t.worker.runOnce();
    const [d] = (await call('GET', `/api/v1/webhooks/${id}/deliveries`, { token: key })).json()
      .data as { next_attempt_at: string; attempt_log: { started_at: string }[] }[];
    assert.equal(Date.parse(d!.attempt_log[0]!.started_at), startedAt);
    // Backoff of the first retry: 5 s ± 10 %, counted from the end of the full timeout.
    const gap = Date.parse(d!.next_attempt_at) - startedAt - TIMEOUT_MS;
    assert.ok(gap >= 4_500 && gap <= 5_500, `${gap} ms`);
    const hook = (await call('GET', `/api/v1/webhooks/${id}`, { token: key })).json();
    assert.equal(Date.parse(hook.failing_since), startedAt);
  });

  it('an answering receiver is reported by its status class, never its body', async () => {
    const id = await register(receiver.url);
    const res = await call('POST', `/api/v1/webhooks/${id}/test`, { token: key });
    const result = res.json();
    assert.equal(result.ok, false);
    assert.equal(result.status_code, 503);
    assert.equal(result.error, 'HTTP 5xx');
    assert.equal(typeof result.duration_ms, 'number');
    assert.doesNotMatch(res.body, /RECEIVER BODY/);
  });

  it(`at most ${TEST_SEND_RULE.limit} test sends an hour per account, then 429 with Retry-After`, async () => {
    const { fresh, id } = await freshAccountWithHook();
    for (let i = 0; i < TEST_SEND_RULE.limit; i++) {
      const ok = await call('POST', `/api/v1/webhooks/${id}/test`, { token: fresh });
      assert.equal(ok.status, 200, `send ${i + 1}: ${ok.body}`);
    }
    const sent = receiver.received.length;
    const refused = await call('POST', `/api/v1/webhooks/${id}/test`, { token: fresh });
    assert.equal(refused.status, 429, refused.body);
    assert.equal(refused.json().code, 'TOO_MANY_ATTEMPTS');
    assert.ok(Number(refused.headers.get('retry-after')) > 0);
    assert.equal(receiver.received.length, sent, 'the refused send went nowhere');
    t.clock.advance(3_600_000);
    assert.equal((await call('POST', `/api/v1/webhooks/${id}/test`, { token: fresh })).status, 200);
  });

  it(`at most ${REDELIVERY_RULE.limit} redeliveries an hour per account`, async () => {
    const { fresh, id } = await freshAccountWithHook();
    await recordEvent(t);
    const [delivery] = (
      await call('GET', `/api/v1/webhooks/${id}/deliveries`, { token: fresh })
    ).json().data as { id: string }[];
    const path = `/api/v1/webhooks/${id}/deliveries/${delivery!.id}/redeliver`;
    for (let i = 0; i < REDELIVERY_RULE.limit; i++) {
      const ok = await call('POST', path, { token: fresh });
      assert.ok(ok.status < 300, `redelivery ${i + 1}: ${ok.body}`);
    }
    const refused = await call('POST', path, { token: fresh });
    assert.equal(refused.status, 429, refused.body);
    assert.ok(Number(refused.headers.get('retry-after')) > 0);
  });
});

describe('webhook URLs that name loopback or metadata in disguise are refused at registration', () => {
  let t: TestApp;
  let call: HttpCall;
  let key: string;
  before(async () => {
    t = await buildTestApp();
    ({ call } = await listenHttp(t));
    key = (await accountOnPlan(t, 'business')).apiKey!;
  });
  after(() => t.close());

  for (const url of [
    'https://[::127.0.0.1]/',
    'https://[::7f00:1]:8443/x',
    'https://localhost./x',
    'https://metadata.google.internal./computeMetadata/v1/',
    'https://[::a9fe:a9fe]/latest/meta-data',
  ]) {
    it(`${url}: 400 naming url`, async () => {
      const res = await call('POST', '/api/v1/webhooks', {
        token: key,
        body: { url, events: ['data.updated'] },
      });
      assert.equal(res.status, 400, res.body);
      assert.equal(res.json().invalid_params[0].name, 'url');
    });
  }
});
