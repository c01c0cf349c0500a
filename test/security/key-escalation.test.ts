import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SCOPES } from '../../src/auth/index.js';
import { accountOnPlan } from '../helpers/accounts.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { listenHttp, type HttpCall } from '../helpers/http.js';

describe('a key never creates, rotates or changes a key broader than itself', () => {
  let t: TestApp;
  let call: HttpCall;
  let ent: Awaited<ReturnType<typeof accountOnPlan>>;
  let fullKeyId: string;
  let writer: { id: string; key: string };

  before(async () => {
    t = await buildTestApp();
    ({ call } = await listenHttp(t));
    ent = await accountOnPlan(t, 'enterprise');
    fullKeyId = (await call('GET', '/api/v1/keys', { token: ent.session })).json().data[0].id;
    writer = (
      await call('POST', '/api/v1/keys', {
        token: ent.session,
        body: { name: 'writer', scopes: ['keys:write', 'keys:read', 'salary:read'] },
      })
    ).json();
  });
  after(() => t.close());

  it('a key created by a scoped key without scopes gets the creator’s scopes, not all', async () => {
    const res = await call('POST', '/api/v1/keys', { token: writer.key, body: { name: 'child' } });
    assert.equal(res.status, 201, res.body);
    assert.deepEqual([...res.json().scopes].sort(), ['keys:read', 'keys:write', 'salary:read']);
    const child = res.json().key as string;
    assert.equal((await call('GET', '/api/v1/invoices', { token: child })).status, 403);
  });

  it('asking for a scope the creator lacks is 403 naming it', async () => {
    const res = await call('POST', '/api/v1/keys', {
      token: writer.key,
      body: { scopes: ['salary:read', 'billing:write'] },
    });
    assert.equal(res.status, 403, res.body);
    assert.equal(res.json().code, 'KEY_EXCEEDS_CALLER');
    assert.deepEqual(res.json().missing_scopes, ['billing:write']);
    assert.match(res.headers.get('content-type') ?? '', /application\/problem\+json/);
  });

  it('a narrower key cannot rotate, revoke or rename a full-scope key', async () => {
    const rotate = await call('POST', `/api/v1/keys/${fullKeyId}/rotate`, { token: writer.key });
    assert.equal(rotate.status, 403, rotate.body);
    assert.equal(rotate.json().code, 'KEY_EXCEEDS_CALLER');
    assert.equal(rotate.body.includes('sk_live_'), false);
    const revoke = await call('DELETE', `/api/v1/keys/${fullKeyId}`, { token: writer.key });
    assert.equal(revoke.status, 403);
    const rename = await call('PATCH', `/api/v1/keys/${fullKeyId}`, {
      token: writer.key,
      body: { name: 'mine now' },
    });
    assert.equal(rename.status, 403);
    const still = (await call('GET', `/api/v1/keys/${fullKeyId}`, { token: ent.session })).json();
    assert.equal(still.status, 'active');
    assert.notEqual(still.name, 'mine now');
  });

  it('a key may rotate a key with the same or fewer scopes', async () => {
    const narrow = (
      await call('POST', '/api/v1/keys', { token: writer.key, body: { scopes: ['salary:read'] } })
    ).json();
    const res = await call('POST', `/api/v1/keys/${narrow.id}/rotate`, { token: writer.key });
    assert.equal(res.status, 201, res.body);
    assert.deepEqual(res.json().key.scopes, ['salary:read']);
  });

  it('a key without keys:write creates none', async () => {
    const reader = (
      await call('POST', '/api/v1/keys', { token: ent.session, body: { scopes: ['keys:read'] } })
    ).json();
    const res = await call('POST', '/api/v1/keys', { token: reader.key, body: {} });
    assert.equal(res.status, 403);
    assert.equal(res.json().code, 'SCOPE_MISSING');
  });

  it('sessions and full-scope keys still create keys with every scope', async () => {
    for (const token of [ent.session, ent.apiKey!]) {
      const res = await call('POST', '/api/v1/keys', { token, body: {} });
      assert.equal(res.status, 201, res.body);
      assert.deepEqual([...res.json().scopes].sort(), [...SCOPES].sort());
    }
  });

  it('a key limited to an allowlist cannot mint or widen a key outside it', async () => {
    const boxed = (
      await call('POST', '/api/v1/keys', {
        token: ent.session,
        body: { scopes: ['keys:write'], allowlist: ['127.0.0.0/24'] },
      })
    ).json();
    const inherited = await call('POST', '/api/v1/keys', { token: boxed.key, body: {} });
    assert.equal(inherited.status, 201, inherited.body);
    assert.deepEqual(inherited.json().allowlist, ['127.0.0.0/24']);
    const inside = await call('POST', '/api/v1/keys', {
      token: boxed.key,
      body: { allowlist: ['127.0.0.1', '127.0.0.128/25'] },
    });
    assert.equal(inside.status, 201, inside.body);
    for (const allowlist of [[], ['0.0.0.0/0'], ['127.0.0.0/23'], ['127.0.1.0']]) {
      const res = await call('POST', '/api/v1/keys', { token: boxed.key, body: { allowlist } });
      assert.equal(res.status, 403, `${JSON.stringify(allowlist)}: ${res.body}`);
      assert.equal(res.json().code, 'KEY_EXCEEDS_CALLER');
    }
    for (const allowlist of [['foo'], ['127.0.0.1/33'], ['127.0.0.1/32 '], ['127.0.0.1/32/8']]) {
      const res = await call('POST', '/api/v1/keys', { token: boxed.key, body: { allowlist } });
      assert.equal(res.status, 400, `${JSON.stringify(allowlist)}: ${res.body}`);
      assert.equal(res.json().invalid_params[0].name, 'allowlist');
    }
    const widen = await call('PATCH', `/api/v1/keys/${boxed.id}`, {
      token: boxed.key,
      body: { allowlist: [] },
    });
    assert.equal(widen.status, 403, widen.body);
  });
});
