import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { createSecretBox } from '../../src/lib/secret-box.js';
import type { Db } from '../../src/store/index.js';
import {
  createHttpSender,
  createWebhookWorker,
  DISABLE_AFTER_FAILING_MS,
} from '../../src/webhooks/index.js';
import { accountOnPlan } from '../helpers/accounts.js';
import { buildTestApp, TEST_SECRET_KEY, type TestApp } from '../helpers/app.js';
import { answer, startReceiver, type Receiver } from '../helpers/receiver.js';
import {
  changedRelease,
  librarySignature,
  recordEvent,
  registerWebhook,
  signedWith,
  verify,
} from '../helpers/webhooks.js';

type Delivery = {
  id: string;
  status: string;
  attempts: number;
  next_attempt_at: string | null;
  last_status_code: number | null;
  last_error: string | null;
  attempt_log: { status_code: number | null; ok: boolean; error: string | null }[];
};

describe('webhook delivery to a real receiver', () => {
  let t: TestApp;
  let receiver: Receiver;
  let apiKey: string;

  before(async () => {
    receiver = await startReceiver();
    // The clock starts at the real time so that the library's 5-minute tolerance holds.
    t = await buildTestApp({
      env: { OUTBOUND_ALLOW_PRIVATE_TARGETS: 'true' },
      now: new Date().toISOString(),
    });
    apiKey = (await accountOnPlan(t, 'business')).apiKey as string;
  });
  after(async () => {
    await t.close();
    await receiver.close();
  });

  const deliveries = async (id: string, key = apiKey): Promise<Delivery[]> =>
    (
      await t.app.inject({
        method: 'GET',
        url: `/api/v1/webhooks/${id}/deliveries`,
        headers: { authorization: `Bearer ${key}` },
      })
    ).json<{ data: Delivery[] }>().data;
  const endpoint = async (id: string) =>
    (
      await t.app.inject({
        method: 'GET',
        url: `/api/v1/webhooks/${id}`,
        headers: { authorization: `Bearer ${apiKey}` },
      })
    ).json<{ status: string; disabled_reason: string | null }>();

  it('a data release load delivers one signed data.updated event that verifies with standardwebhooks', async () => {
    const hook = await registerWebhook(t, apiKey, `${receiver.url}/load`);
    const before = receiver.received.length;
    const loaded = await t.releases.load(await changedRelease('2026.11.2-webhook-test'));
    assert.equal((await deliveries(hook.id)).length, 1, 'the delivery is written with the load');
    await t.worker.runOnce();
    const mine = receiver.received.slice(before).filter((r) => r.path === '/hook/load');
    assert.equal(mine.length, 1);
    const req = mine[0]!;
    const payload = verify(hook.secret, req) as {
      type: string;
      timestamp: string;
      data: {
        release: string;
        years: number[];
        countries: string[];
        jobs: string[];
        records: { changed: number };
      };
    };
    assert.equal(payload.type, 'data.updated');
    assert.equal(req.headers['webhook-id'], loaded.eventId);
    assert.equal(payload.data.release, '2026.11.2-webhook-test');
    assert.equal(payload.data.records.changed, 1);
    assert.equal(payload.data.countries.length, 1);
    assert.equal(payload.data.jobs.length, 1);
    assert.equal(payload.data.years.length, 1);
    assert.ok(!Number.isNaN(Date.parse(payload.timestamp)));
    assert.equal(req.headers['content-type'], 'application/json');
    const [d] = await deliveries(hook.id);
    assert.equal(d!.status, 'succeeded');
    assert.equal(d!.attempts, 1);
    assert.equal(d!.attempt_log[0]!.status_code, 200);
  });

  it('a receiver failing twice gets the event on the third attempt (clock moved, not slept)', async () => {
    const flaky = await startReceiver((_r, n, res) => res.writeHead(n <= 2 ? 503 : 200).end());
    try {
      const hook = await registerWebhook(t, apiKey, flaky.url);
      const eventId = await recordEvent(t);
      await t.worker.runOnce();
      assert.equal(flaky.received.length, 1);
      let [d] = await deliveries(hook.id);
      assert.equal(d!.status, 'pending');
      assert.equal(d!.last_status_code, 503);
      const retryIn = Date.parse(d!.next_attempt_at!) - t.clock.now();
      assert.ok(retryIn >= 4_500 && retryIn <= 5_500, `first retry after about 5 s (${retryIn})`);

      await t.worker.runOnce();
      assert.equal(flaky.received.length, 1, 'not due before the backoff');
      t.clock.advance(6_000);
      await t.worker.runOnce();
      assert.equal(flaky.received.length, 2);
      [d] = await deliveries(hook.id);
      const second = Date.parse(d!.next_attempt_at!) - t.clock.now();
      assert.ok(
        second >= 270_000 && second <= 330_000,
        `second retry after about 5 min (${second})`,
      );

      t.clock.advance(6 * 60_000);
      await t.worker.runOnce();
      assert.equal(flaky.received.length, 3);
      [d] = await deliveries(hook.id);
      assert.equal(d!.status, 'succeeded');
      assert.equal(d!.attempts, 3);
      assert.deepEqual(
        d!.attempt_log.map((a) => a.status_code),
        [503, 503, 200],
      );
      for (const req of flaky.received) {
        assert.equal(req.headers['webhook-id'], eventId, 'the same webhook-id on every attempt');
        assert.equal(req.headers['webhook-signature'], librarySignature(hook.secret, req));
      }
      assert.equal((await endpoint(hook.id)).status, 'enabled');
    } finally {
      await flaky.close();
    }
  });

  it('410 Gone disables the endpoint and ends its deliveries', async () => {
    const gone = await startReceiver(answer(410));
    try {
      const hook = await registerWebhook(t, apiKey, gone.url);
      await recordEvent(t);
      await t.worker.runOnce();
      assert.equal(gone.received.length, 1);
      const e = await endpoint(hook.id);
      assert.equal(e.status, 'disabled');
      assert.match(e.disabled_reason ?? '', /410/);
      const [d] = await deliveries(hook.id);
      assert.equal(d!.status, 'failed');
      await recordEvent(t);
      t.clock.advance(60_000);
      await t.worker.runOnce();
      assert.equal(gone.received.length, 1, 'a disabled endpoint gets nothing');
      assert.equal((await deliveries(hook.id)).length, 1, 'no delivery for a disabled endpoint');
    } finally {
      await gone.close();
    }
  });

  it('a redirect is not followed and counts as a failure', async () => {
    const redirecting = await startReceiver((req, _n, res) =>
      req.path === '/hook'
        ? res.writeHead(302, { location: '/elsewhere' }).end()
        : res.writeHead(200).end(),
    );
    try {
      const hook = await registerWebhook(t, apiKey, redirecting.url);
      await recordEvent(t);
      await t.worker.runOnce();
      assert.deepEqual(
        redirecting.received.map((r) => r.path),
        ['/hook'],
      );
      const [d] = await deliveries(hook.id);
      assert.equal(d!.status, 'pending');
      assert.equal(d!.last_status_code, 302);
      assert.match(d!.last_error ?? '', /redirect/);
    } finally {
      await redirecting.close();
    }
  });

  it('gives up after about three days, and disables an endpoint failing for five days', async () => {
    const down = await startReceiver(answer(500));
    try {
      const hook = await registerWebhook(t, apiKey, down.url);
      await recordEvent(t);
      const started = t.clock.now();
      for (let i = 0; i < 20; i++) {
        await t.worker.runOnce();
        const [d] = await deliveries(hook.id);
        if (d!.status !== 'pending') break;
        t.clock.set(d!.next_attempt_at!);
      }
      const span = t.clock.now() - started;
      assert.ok(span > 2.5 * 86_400_000 && span < 3.5 * 86_400_000, `${span / 3_600_000} h`);
      let [d] = await deliveries(hook.id);
      assert.equal(d!.status, 'failed');
      assert.equal(d!.attempts, 10);
      assert.equal(down.received.length, 10);
      assert.equal((await endpoint(hook.id)).status, 'enabled', 'failing for less than five days');

      t.clock.advance(DISABLE_AFTER_FAILING_MS);
      await recordEvent(t);
      await t.worker.runOnce();
      const e = await endpoint(hook.id);
      assert.equal(e.status, 'disabled');
      assert.match(e.disabled_reason ?? '', /five days/);
      [d] = await deliveries(hook.id);
      assert.equal(d!.status, 'failed');
    } finally {
      await down.close();
    }
  });

  it('redeliver sends the same event again; a rotated secret signs alongside the new one for 24 h', async () => {
    const hook = await registerWebhook(t, apiKey, `${receiver.url}/redeliver`);
    await recordEvent(t);
    await t.worker.runOnce();
    const [first] = await deliveries(hook.id);
    const rotated = await t.app.inject({
      method: 'POST',
      url: `/api/v1/webhooks/${hook.id}/rotate-secret`,
      headers: { authorization: `Bearer ${apiKey}` },
    });
    const newSecret = rotated.json<{ secret: string }>().secret;
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/v1/webhooks/${hook.id}/deliveries/${first!.id}/redeliver`,
      headers: { authorization: `Bearer ${apiKey}` },
    });
    assert.equal(res.statusCode, 202, res.body);
    await t.worker.runOnce();
    const got = receiver.received.filter((r) => r.path === '/hook/redeliver');
    assert.equal(got.length, 2);
    assert.equal(got[1]!.headers['webhook-id'], got[0]!.headers['webhook-id']);
    assert.equal((got[1]!.headers['webhook-signature'] as string).split(' ').length, 2);
    assert.ok(signedWith(newSecret, got[1]!), 'signed with the new secret');
    assert.ok(signedWith(hook.secret, got[1]!), 'and with the previous one during the grace');
    assert.ok(!signedWith(newSecret, got[0]!));
    const list = await deliveries(hook.id);
    assert.equal(list.length, 2);
    assert.ok(list.every((d) => d.status === 'succeeded'));
  });

  it('a test send reports the status but never the receiver’s body', async () => {
    const chatty = await startReceiver(answer(500, 'internal secrets of the receiver'));
    try {
      const hook = await registerWebhook(t, apiKey, chatty.url);
      const res = await t.app.inject({
        method: 'POST',
        url: `/api/v1/webhooks/${hook.id}/test`,
        headers: { authorization: `Bearer ${apiKey}` },
      });
      assert.equal(res.statusCode, 200);
      assert.equal(res.json<{ ok: boolean }>().ok, false);
      assert.equal(res.json<{ status_code: number }>().status_code, 500);
      assert.ok(!res.body.includes('internal secrets'));
      assert.ok(signedWith(hook.secret, chatty.received[0]!));
    } finally {
      await chatty.close();
    }
  });

  it('claims with one query when nothing is due, and opens a lane per due delivery', async () => {
    let claims = 0;
    const counted: Db = {
      ...t.db,
      query: (sql, params) => {
        if (sql.includes('UPDATE webhook_deliveries SET claimed_by')) claims++;
        return t.db.query(sql, params);
      },
    };
    const worker = createWebhookWorker({
      db: counted,
      clock: t.clock,
      box: createSecretBox(TEST_SECRET_KEY, 'webhook-secrets'),
      sender: createHttpSender({ allowPrivate: true }),
      logger: pino({ level: 'silent' }),
      concurrency: 8,
    });
    await worker.runOnce(); // what earlier tests left due
    claims = 0;
    assert.equal(await worker.runOnce(), 0);
    assert.equal(claims, 1, 'an idle outbox costs one claim, not one per lane');

    // Three endpoints of an account of their own, whose deliveries are read with its key.
    const own = (await accountOnPlan(t, 'business')).apiKey as string;
    const hooks = await Promise.all(
      ['lane-a', 'lane-b', 'lane-c'].map((p) => registerWebhook(t, own, `${receiver.url}/${p}`)),
    );
    const before = receiver.received.length;
    await recordEvent(t);
    claims = 0;
    // The event goes to every endpoint subscribed to data.updated (earlier tests' too).
    const sent = await worker.runOnce();
    assert.ok(sent >= 3, `${sent} sent`);
    // One claim for the batch, then each lane's look for more: one query per delivery, plus one.
    assert.equal(claims, sent + 1);
    const paths = receiver.received.slice(before).map((r) => r.path);
    for (const p of ['/hook/lane-a', '/hook/lane-b', '/hook/lane-c'])
      assert.equal(paths.filter((q) => q === p).length, 1, p);
    const statuses = await Promise.all(
      hooks.map(async (hook) => (await deliveries(hook.id, own)).map((d) => d.status)),
    );
    assert.deepEqual(statuses, [['succeeded'], ['succeeded'], ['succeeded']]);
  });

  it('with private targets not allowed, the address actually connected to is refused', async () => {
    const hook = await registerWebhook(t, apiKey, `https://localhost:${receiver.port}/hook/rebind`);
    await recordEvent(t);
    // The same outbox, worked by a worker whose sender does not allow private targets: the name
    // passed registration (as a public name might) but resolves to 127.0.0.1 when sending.
    const strict = createWebhookWorker({
      db: t.db,
      clock: t.clock,
      box: createSecretBox(TEST_SECRET_KEY, 'webhook-secrets'),
      sender: createHttpSender({ allowPrivate: false }),
      logger: pino({ level: 'silent' }),
      concurrency: 2,
    });
    await strict.runOnce();
    assert.equal(receiver.received.filter((r) => r.path === '/hook/rebind').length, 0);
    const [d] = await deliveries(hook.id);
    assert.equal(d!.status, 'pending');
    // The customer sees only that nothing answered; the reason is in the operator's log.
    assert.equal(d!.last_error, 'no response');
  });
});

describe('createHttpSender without private targets', () => {
  let receiver: Receiver;
  before(async () => {
    receiver = await startReceiver();
  });
  after(() => receiver.close());

  it('refuses http, loopback literals and names that resolve to loopback, without connecting', async () => {
    const sender = createHttpSender({ allowPrivate: false });
    const body = '{}';
    for (const url of [
      receiver.url,
      `https://127.0.0.1:${receiver.port}/hook`,
      `https://[::1]:${receiver.port}/hook`,
      `https://[::ffff:127.0.0.1]:${receiver.port}/hook`,
      `https://localhost:${receiver.port}/hook`,
    ]) {
      const result = await sender.send({ url, headers: {}, body });
      assert.equal(result.ok, false, url);
      assert.match(result.detail ?? '', /refused address|https/, url);
      assert.equal(result.error, 'no response', url);
    }
    assert.equal(receiver.received.length, 0);
  });

  it('times out a receiver that does not answer', async () => {
    const silent = await startReceiver(() => undefined);
    try {
      const sender = createHttpSender({ allowPrivate: true, timeoutMs: 300 });
      const result = await sender.send({ url: silent.url, headers: {}, body: '{}' });
      assert.equal(result.ok, false);
      assert.match(result.detail ?? '', /no response within/);
      assert.equal(result.error, 'no response');
    } finally {
      await silent.close();
    }
  });
});
