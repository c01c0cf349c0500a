import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { accountOnPlan } from '../helpers/accounts.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { answer, startReceiver, type Receiver } from '../helpers/receiver.js';

type Json = Record<string, unknown>;

describe('webhooks API', () => {
  let t: TestApp;
  let logs = '';
  let receiver: Receiver;
  let business: string;
  let other: string;

  before(async () => {
    receiver = await startReceiver(answer(200, 'RECEIVER-PRIVATE-BODY'));
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        logs += chunk.toString();
        done();
      },
    });
    t = await buildTestApp({
      env: { OUTBOUND_ALLOW_PRIVATE_TARGETS: 'true' },
      logger: pino({ level: 'trace' }, sink),
    });
    business = (await accountOnPlan(t, 'business')).apiKey as string;
    other = (await accountOnPlan(t, 'enterprise')).apiKey as string;
  });
  after(async () => {
    await t.close();
    await receiver.close();
  });

  const call = (
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    url: string,
    key?: string,
    payload?: unknown,
  ) =>
    t.app.inject({
      method,
      url,
      headers: key === undefined ? {} : { authorization: `Bearer ${key}` },
      ...(payload === undefined ? {} : { payload: payload as Json }),
    });
  const create = (key: string, url = receiver.url, events: unknown = ['data.updated']) =>
    call('POST', '/api/v1/webhooks', key, { url, events });

  it('Free and Developer get 403 naming Business; anonymous callers 401', async () => {
    const free = await accountOnPlan(t, 'free');
    const developer = await accountOnPlan(t, 'developer');
    for (const key of [free.session, developer.apiKey as string]) {
      const res = await create(key);
      assert.equal(res.statusCode, 403, res.body);
      const body = res.json<Json>();
      assert.equal(body.code, 'FEATURE_NOT_IN_PLAN');
      assert.equal(body.required_plan, 'business');
      assert.match(body.detail as string, /Business/);
    }
    assert.equal((await create('')).statusCode, 401);
    assert.equal((await call('GET', '/api/v1/webhooks')).statusCode, 401);
  });

  it('creates an endpoint: 201 with the whsec_ secret shown once, never in list, get or logs', async () => {
    const res = await create(business);
    assert.equal(res.statusCode, 201, res.body);
    const created = res.json<Json>();
    assert.match(created.id as string, /^wh_/);
    assert.equal(created.url, receiver.url);
    assert.deepEqual(created.events, ['data.updated']);
    assert.equal(created.status, 'enabled');
    assert.ok(typeof created.created_at === 'string');
    assert.match(created.secret as string, /^whsec_[A-Za-z0-9+/]{43}=$/);

    const got = await call('GET', `/api/v1/webhooks/${created.id as string}`, business);
    assert.equal(got.statusCode, 200);
    assert.equal(got.json<Json>().secret, undefined);
    const list = await call('GET', '/api/v1/webhooks', business);
    assert.ok(list.json<{ data: Json[] }>().data.some((w) => w.id === created.id));
    assert.ok(!list.body.includes(created.secret as string));

    const stored = await t.db.query<{ secret_enc: string }>(
      'SELECT secret_enc FROM webhook_endpoints WHERE id = $1',
      [created.id],
    );
    assert.ok(!stored[0]!.secret_enc.includes((created.secret as string).slice(6)), 'encrypted');

    const test = await call('POST', `/api/v1/webhooks/${created.id as string}/test`, business);
    assert.equal(test.statusCode, 200, test.body);
    const result = test.json<Json>();
    assert.equal(result.ok, true);
    assert.equal(result.status_code, 200);
    assert.ok(!test.body.includes('RECEIVER-PRIVATE-BODY'), 'the target’s body is not echoed');
    assert.equal(JSON.parse(receiver.received.at(-1)!.body).type, 'webhook.test');
    assert.ok(!logs.includes((created.secret as string).slice(6)), 'the secret is not logged');
  });

  it('400 for an unknown event kind, listing the known ones', async () => {
    const res = await create(business, receiver.url, ['data.updated', 'data.deleted']);
    assert.equal(res.statusCode, 400);
    const body = res.json<{ invalid_params: Json[] }>();
    assert.equal(body.invalid_params[0]!.name, 'events');
    assert.deepEqual(body.invalid_params[0]!.allowed, [
      'data.updated',
      'export.completed',
      'export.failed',
      'sla.credit_issued',
      'status.incident',
      'status.maintenance',
    ]);
    assert.equal((await create(business, receiver.url, [])).statusCode, 400);
  });

  it('400 for an invalid URL, saying why', async () => {
    const cases: [string, RegExp][] = [
      ['not a url', /absolute URL/],
      ['ftp://example.com/x', /scheme/],
      ['https://user:pw@example.com/x', /credentials/],
    ];
    for (const [url, reason] of cases) {
      const res = await create(business, url);
      assert.equal(res.statusCode, 400, url);
      assert.match(
        res.json<{ invalid_params: Json[] }>().invalid_params[0]!.reason as string,
        reason,
      );
    }
  });

  it('updates url, events and enabled; deletes; audits each change', async () => {
    const { id } = (await create(business)).json<{ id: string }>();
    const off = await call('PATCH', `/api/v1/webhooks/${id}`, business, { enabled: false });
    assert.equal(off.statusCode, 200, off.body);
    assert.equal(off.json<Json>().status, 'disabled');
    const on = await call('PATCH', `/api/v1/webhooks/${id}`, business, {
      enabled: true,
      url: `${receiver.url}?v=2`,
      events: ['data.updated'],
    });
    assert.equal(on.json<Json>().status, 'enabled');
    assert.equal(on.json<Json>().url, `${receiver.url}?v=2`);
    assert.equal(
      (await call('PATCH', `/api/v1/webhooks/${id}`, business, { events: ['nope'] })).statusCode,
      400,
    );
    const rotated = await call('POST', `/api/v1/webhooks/${id}/rotate-secret`, business);
    assert.equal(rotated.statusCode, 200, rotated.body);
    assert.match(rotated.json<Json>().secret as string, /^whsec_/);
    assert.equal((await call('DELETE', `/api/v1/webhooks/${id}`, business)).statusCode, 204);
    assert.equal((await call('GET', `/api/v1/webhooks/${id}`, business)).statusCode, 404);

    const audit = await call('GET', '/api/v1/account/audit-log', business);
    const actions = audit
      .json<{ data: { action: string; data: Json }[] }>()
      .data.filter((e) => e.data.webhook_id === id)
      .map((e) => e.action);
    assert.deepEqual(actions, [
      'webhooks.delete',
      'webhooks.rotate_secret',
      'webhooks.update',
      'webhooks.update',
      'webhooks.create',
    ]);
    assert.ok(!audit.body.includes('whsec_'), 'no secret in the audit log');
  });

  it('another account’s endpoint is 404 everywhere', async () => {
    const { id } = (await create(business)).json<{ id: string }>();
    for (const [method, url] of [
      ['GET', `/api/v1/webhooks/${id}`],
      ['PATCH', `/api/v1/webhooks/${id}`],
      ['DELETE', `/api/v1/webhooks/${id}`],
      ['POST', `/api/v1/webhooks/${id}/test`],
      ['POST', `/api/v1/webhooks/${id}/rotate-secret`],
      ['GET', `/api/v1/webhooks/${id}/deliveries`],
      ['POST', `/api/v1/webhooks/${id}/deliveries/dlv_x/redeliver`],
    ] as const) {
      const res = await call(
        method,
        url,
        other,
        method === 'PATCH' ? { enabled: false } : undefined,
      );
      assert.equal(res.statusCode, 404, `${method} ${url}: ${res.body}`);
    }
    const list = await call('GET', '/api/v1/webhooks', other);
    assert.ok(!list.json<{ data: Json[] }>().data.some((w) => w.id === id));
  });

  it('Business allows 10 endpoints; the 11th is 409 WEBHOOK_LIMIT_REACHED', async () => {
    const fresh = (await accountOnPlan(t, 'business')).apiKey as string;
    for (let i = 0; i < 10; i++) assert.equal((await create(fresh)).statusCode, 201);
    const res = await create(fresh);
    assert.equal(res.statusCode, 409);
    assert.equal(res.json<Json>().code, 'WEBHOOK_LIMIT_REACHED');
    assert.equal(res.json<Json>().max_endpoints, 10);
  });

  it('Idempotency-Key replays a create, its secret included, without a second endpoint', async () => {
    const fresh = (await accountOnPlan(t, 'business')).apiKey as string;
    const send = () =>
      t.app.inject({
        method: 'POST',
        url: '/api/v1/webhooks',
        headers: { authorization: `Bearer ${fresh}`, 'idempotency-key': 'wh-create-1' },
        payload: { url: receiver.url, events: ['data.updated'] },
      });
    const first = await send();
    const replay = await send();
    assert.equal(first.statusCode, 201);
    assert.equal(replay.statusCode, 201);
    assert.equal(replay.json<Json>().id, first.json<Json>().id);
    assert.equal(replay.json<Json>().secret, first.json<Json>().secret);
    assert.equal(
      (await call('GET', '/api/v1/webhooks', fresh)).json<{ data: Json[] }>().data.length,
      1,
    );
  });
});

describe('webhooks API without private targets', () => {
  let t: TestApp;
  let key: string;
  before(async () => {
    t = await buildTestApp();
    key = (await accountOnPlan(t, 'business')).apiKey as string;
  });
  after(() => t.close());

  for (const url of [
    'http://hooks.example.com/x',
    'https://127.0.0.1/x',
    'https://localhost:8443/x',
    'https://[::ffff:7f00:1]/x',
    'https://10.0.0.5/x',
    'https://169.254.169.254/latest/meta-data',
  ]) {
    it(`refuses ${url} at registration`, async () => {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/webhooks',
        headers: { authorization: `Bearer ${key}` },
        payload: { url, events: ['data.updated'] },
      });
      assert.equal(res.statusCode, 400, res.body);
      assert.equal(res.json<{ invalid_params: Json[] }>().invalid_params[0]!.name, 'url');
    });
  }

  it('accepts a public https URL', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/webhooks',
      headers: { authorization: `Bearer ${key}` },
      payload: { url: 'https://93.184.215.14/hooks/salary', events: ['data.updated'] },
    });
    assert.equal(res.statusCode, 201, res.body);
  });
});
