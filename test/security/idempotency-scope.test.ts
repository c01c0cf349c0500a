import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { accountOnPlan } from '../helpers/accounts.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { listenHttp, type HttpCall } from '../helpers/http.js';

describe('an Idempotency-Key is scoped to the credential, not only the account', () => {
  let t: TestApp;
  let call: HttpCall;
  let ent: Awaited<ReturnType<typeof accountOnPlan>>;
  let narrow: string;
  before(async () => {
    t = await buildTestApp();
    ({ call } = await listenHttp(t));
    ent = await accountOnPlan(t, 'enterprise');
    narrow = (
      await call('POST', '/api/v1/keys', { token: ent.session, body: { scopes: ['keys:write'] } })
    ).json().key;
  });
  after(() => t.close());

  it('a narrower key replaying a broader credential’s request is decided on its own', async () => {
    const body = { name: 'full', scopes: ['billing:write', 'keys:write'] };
    const headers = { 'idempotency-key': 'shared-key-1' };
    const first = await call('POST', '/api/v1/keys', { token: ent.apiKey!, body, headers });
    assert.equal(first.status, 201, first.body);
    const replay = await call('POST', '/api/v1/keys', { token: ent.apiKey!, body, headers });
    assert.equal(replay.headers.get('idempotent-replayed'), 'true');
    for (const token of [narrow, ent.session]) {
      const res = await call('POST', '/api/v1/keys', { token, body, headers });
      assert.equal(res.headers.get('idempotent-replayed'), null, res.body);
      assert.notEqual(res.json().id, first.json().id);
    }
    const refused = await call('POST', '/api/v1/keys', { token: narrow, body, headers });
    assert.equal(refused.status, 403, 'the narrower key is refused, not answered 201');
  });
});
