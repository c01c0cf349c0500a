import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { accountOnPlan } from '../helpers/accounts.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { startReceiver, type Received, type Receiver } from '../helpers/receiver.js';
import { recordEvent, registerWebhook, signedWith, verifyAt } from '../helpers/webhooks.js';

/** The Standard Webhooks tolerance a receiver applies (the library's default). */
const TOLERANCE_MS = 5 * 60_000;
const GRACE_MS = 24 * 3_600_000;

/**
 * Signatures as a receiver sees them over days of the injected clock: the receiver records the
 * clock when each request arrives, and verifies with the standardwebhooks library at that time.
 */
describe('webhook signatures over time (injected clock, real receiver)', () => {
  let t: TestApp;
  let receiver: Receiver;
  let apiKey: string;
  /** Per received request, the injected clock when it arrived. */
  const arrivedAt = new Map<Received, number>();
  let failFirst = 0;

  before(async () => {
    receiver = await startReceiver((req, n, res) => {
      arrivedAt.set(req, t.clock.now());
      res.writeHead(n <= failFirst ? 503 : 200).end();
    });
    t = await buildTestApp({ env: { OUTBOUND_ALLOW_PRIVATE_TARGETS: 'true' } });
    apiKey = (await accountOnPlan(t, 'business')).apiKey as string;
  });
  after(async () => {
    await t.close();
    await receiver.close();
  });

  const api = (method: 'GET' | 'POST', url: string) =>
    t.app.inject({ method, url, headers: { authorization: `Bearer ${apiKey}` } });
  const nextAttemptAt = async (hookId: string): Promise<string | null> =>
    (await api('GET', `/api/v1/webhooks/${hookId}/deliveries`)).json<{
      data: { next_attempt_at: string | null; status: string }[];
    }>().data[0]!.next_attempt_at;
  const received = (path: string) => receiver.received.filter((r) => r.path === path);
  const signatures = (req: Received) => (req.headers['webhook-signature'] as string).split(' ');

  it('each retry, hours later, carries its own attempt time and verifies then', async () => {
    failFirst = receiver.received.length + 4;
    const hook = await registerWebhook(t, apiKey, `${receiver.url}/retried`);
    const created = t.clock.now();
    await recordEvent(t);
    await t.worker.runOnce();
    for (let i = 0; i < 4; i++) {
      const due = await nextAttemptAt(hook.id);
      assert.notEqual(due, null, `attempt ${i + 1} failed and is retried`);
      t.clock.set(due!);
      await t.worker.runOnce();
    }
    const attempts = received('/hook/retried');
    assert.equal(attempts.length, 5);
    const times = attempts.map((r) => arrivedAt.get(r)!);
    assert.ok(times[4]! - created > 2 * 3_600_000, 'the last retry is hours after the event');
    for (const [i, req] of attempts.entries()) {
      const at = times[i]!;
      assert.equal(
        req.headers['webhook-timestamp'],
        String(Math.floor(at / 1000)),
        `attempt ${i + 1}: the attempt's time, not the event's`,
      );
      // A receiver applying the library's tolerance accepts it when it arrives …
      assert.doesNotThrow(() => verifyAt(hook.secret, req, at), `attempt ${i + 1} verifies`);
      assert.doesNotThrow(() => verifyAt(hook.secret, req, at + TOLERANCE_MS - 1000));
      // … and rejects a replay of it later than the tolerance.
      assert.throws(() => verifyAt(hook.secret, req, at + TOLERANCE_MS + 1000), /too old/);
      assert.equal(req.headers['webhook-id'], attempts[0]!.headers['webhook-id']);
      assert.equal(req.body, attempts[0]!.body, 'the payload is the same on every attempt');
    }
    const payload = JSON.parse(attempts[4]!.body) as { timestamp: string };
    assert.equal(payload.timestamp, new Date(created).toISOString(), "the event's own time");
  });

  it('a test send carries the time it is sent and verifies then', async () => {
    failFirst = 0;
    const hook = await registerWebhook(t, apiKey, `${receiver.url}/test-send`);
    t.clock.advance(3 * 3_600_000 + 1234);
    const res = await api('POST', `/api/v1/webhooks/${hook.id}/test`);
    assert.equal(res.statusCode, 200, res.body);
    const [req] = received('/hook/test-send');
    const at = arrivedAt.get(req!)!;
    assert.equal(req!.headers['webhook-timestamp'], String(Math.floor(at / 1000)));
    assert.doesNotThrow(() => verifyAt(hook.secret, req!, at));
  });

  it('after a rotation both secrets sign for 24 hours, then only the new one', async () => {
    failFirst = 0;
    const path = '/hook/rotated';
    const hook = await registerWebhook(t, apiKey, `${receiver.url}/rotated`);
    const rotatedAt = t.clock.now();
    const rotated = await api('POST', `/api/v1/webhooks/${hook.id}/rotate-secret`);
    assert.equal(rotated.statusCode, 200, rotated.body);
    const { secret: newSecret, previous_secret_expires_at: expires } = rotated.json<{
      secret: string;
      previous_secret_expires_at: string;
    }>();
    assert.equal(Date.parse(expires), rotatedAt + GRACE_MS);

    /** One delivery by the worker and one test send at `at`; both requests as received. */
    const sendAt = async (at: number): Promise<Received[]> => {
      t.clock.set(new Date(at).toISOString());
      const before = received(path).length;
      await recordEvent(t);
      await t.worker.runOnce();
      assert.equal((await api('POST', `/api/v1/webhooks/${hook.id}/test`)).statusCode, 200);
      const got = received(path).slice(before);
      assert.equal(got.length, 2, 'a delivery and a test send');
      return got;
    };

    for (const req of await sendAt(rotatedAt + GRACE_MS - 1000)) {
      assert.equal(signatures(req).length, 2, 'two signatures during the grace');
      assert.ok(signedWith(newSecret, req) && signedWith(hook.secret, req));
      assert.doesNotThrow(() => verifyAt(hook.secret, req, arrivedAt.get(req)!));
      // New secret first, as docs/webhooks.md says.
      const onlyFirst = {
        ...req,
        headers: { ...req.headers, 'webhook-signature': signatures(req)[0]! },
      };
      assert.doesNotThrow(() => verifyAt(newSecret, onlyFirst, arrivedAt.get(req)!));
    }

    for (const req of await sendAt(rotatedAt + GRACE_MS)) {
      assert.equal(signatures(req).length, 1, 'exactly one signature once the grace is over');
      assert.doesNotThrow(() => verifyAt(newSecret, req, arrivedAt.get(req)!));
      assert.throws(() => verifyAt(hook.secret, req, arrivedAt.get(req)!), /No matching signature/);
    }

    for (const req of await sendAt(rotatedAt + 365 * GRACE_MS)) {
      assert.equal(signatures(req).length, 1, 'a year later, still one');
      assert.throws(() => verifyAt(hook.secret, req, arrivedAt.get(req)!), /No matching signature/);
    }
  });

  it('a second rotation within the grace drops the oldest secret at once', async () => {
    failFirst = 0;
    const path = '/hook/twice';
    const hook = await registerWebhook(t, apiKey, `${receiver.url}/twice`);
    const rotate = async () =>
      (await api('POST', `/api/v1/webhooks/${hook.id}/rotate-secret`)).json<{ secret: string }>()
        .secret;
    const second = await rotate();
    t.clock.advance(3_600_000);
    const third = await rotate();
    await recordEvent(t);
    await t.worker.runOnce();
    const [req] = received(path);
    assert.deepEqual(
      [third, second, hook.secret].map((s) => signedWith(s, req!)),
      [true, true, false],
    );
    assert.equal(signatures(req!).length, 2);
  });
});
