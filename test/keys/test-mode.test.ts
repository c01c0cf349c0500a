import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { accountOnPlan } from '../helpers/accounts.js';
import { listenHttp, type HttpCall } from '../helpers/http.js';

const LOOKUP = '/api/v1/salary?country=FR&job=chef';

describe('test-mode API keys over HTTP', () => {
  let t: TestApp;
  let call: HttpCall;
  let live: string;
  let session: string;
  let accountId: string;
  let testKey: string;
  let testKeyId: string;

  before(async () => {
    t = await buildTestApp({ now: '2026-11-22T10:00:00Z' });
    ({ call } = await listenHttp(t));
    const account = await accountOnPlan(t, 'developer');
    live = account.apiKey as string;
    session = account.session;
    accountId = account.accountId;
    const created = await call('POST', '/api/v1/keys', {
      token: session,
      body: { name: 'CI', mode: 'test' },
    });
    assert.equal(created.status, 201, created.body);
    testKey = created.json().key;
    testKeyId = created.json().id;
  });
  after(() => t.close());

  const usageRows = async (): Promise<number> => {
    const rows = await t.db.query<{ total: string | number | null }>(
      'SELECT sum(count) AS total FROM usage_hourly WHERE account_id = $1',
      [accountId],
    );
    return Number(rows[0]?.total ?? 0);
  };

  it('issues sk_test_ keys beside the plan’s live key, listed with their mode and audit-logged', async () => {
    assert.match(testKey, /^sk_test_[A-Za-z0-9_-]{20,}$/);
    const listed = (await call('GET', '/api/v1/keys', { token: session })).json().data;
    const modes = listed.map((k: { prefix: string; mode: string }) => [
      k.prefix.slice(0, 8),
      k.mode,
    ]);
    assert.deepEqual(modes.sort(), [
      ['sk_live_', 'live'],
      ['sk_test_', 'test'],
    ]);
    const audit = await t.db.query<{ data: { mode: string } }>(
      "SELECT data FROM audit_log WHERE account_id = $1 AND action = 'keys.create' AND data->>'key_id' = $2",
      [accountId, testKeyId],
    );
    assert.equal(audit[0]?.data.mode, 'test');
  });

  it('refuses an unknown mode with 400 naming the allowed values', async () => {
    const res = await call('POST', '/api/v1/keys', { token: session, body: { mode: 'sandbox' } });
    assert.equal(res.status, 400);
    assert.match(res.body, /mode/);
    assert.match(res.body, /live/);
  });

  it('answers the same figures, marked in a header, meta.mode and every file format', async () => {
    const asTest = await call('GET', LOOKUP, { token: testKey });
    const asLive = await call('GET', LOOKUP, { token: live });
    assert.equal(asTest.status, 200, asTest.body);
    assert.equal(asTest.headers.get('key-mode'), 'test');
    assert.equal(asLive.headers.get('key-mode'), null);
    assert.equal(asTest.json().meta.mode, 'test');
    assert.equal(asLive.json().meta.mode, undefined);
    assert.deepEqual(asTest.json().data, asLive.json().data);

    const csv = await call('GET', `${LOOKUP}&format=csv`, { token: testKey });
    assert.equal(csv.status, 200, csv.body);
    const [header, first] = csv.body.split(/\r?\n/);
    assert.match(header as string, /,mode$/);
    assert.match(first as string, /,test$/);
    const liveCsv = await call('GET', `${LOOKUP}&format=csv`, { token: live });
    assert.doesNotMatch(liveCsv.body.split(/\r?\n/)[0] as string, /mode/);
  });

  it('marks XML files with a root attribute (Enterprise, whose plan has XML)', async () => {
    const enterprise = await accountOnPlan(t, 'enterprise');
    const created = await call('POST', '/api/v1/keys', {
      token: enterprise.session,
      body: { mode: 'test' },
    });
    const xml = await call('GET', `${LOOKUP}&format=xml`, { token: created.json().key });
    assert.equal(xml.status, 200, xml.body);
    assert.match(xml.body, /<salaries [^>]*mode="test"/);
    assert.match(xml.body, /<mode>test<\/mode>/);
  });

  it('spends neither quota nor usage, after the flush too', async () => {
    const quotaBefore = (await call('GET', '/api/v1/usage', { token: session })).json().quota.used;
    await t.recorder.flush();
    const before = await usageRows();
    for (let i = 0; i < 5; i++)
      assert.equal((await call('GET', LOOKUP, { token: testKey })).status, 200);
    await t.recorder.flush();
    assert.equal(await usageRows(), before, 'no usage row written for the test key');
    const report = (await call('GET', '/api/v1/usage', { token: session })).json();
    assert.equal(report.quota.used, quotaBefore);
    assert.equal(report.by_key?.[testKeyId], undefined);
  });

  it('has its own limit of 30 a minute: 429 with Retry-After and the rate-limit headers', async () => {
    t.clock.set('2026-11-22T10:30:00Z'); // a fresh minute
    let refused;
    for (let i = 0; i < 31; i++) {
      const res = await call('GET', LOOKUP, { token: testKey });
      if (i < 30) {
        assert.equal(res.status, 200, `request ${i + 1}`);
        assert.match(res.headers.get('ratelimit-policy') ?? '', /"test-minute";q=30;w=60/);
      } else refused = res;
    }
    assert.ok(refused !== undefined);
    assert.equal(refused.status, 429);
    assert.ok(Number(refused.headers.get('retry-after')) >= 1);
    assert.equal(refused.headers.get('x-ratelimit-remaining'), '0');
    assert.equal(refused.headers.get('key-mode'), 'test');
    assert.match(
      refused.json().detail,
      /test-mode keys together allow 30 requests per minute and 1000 requests per day/,
    );
    // The live key's quota is its own.
    assert.equal((await call('GET', LOOKUP, { token: live })).status, 200);
    t.clock.set('2026-11-22T10:31:00Z');
    assert.equal((await call('GET', LOOKUP, { token: testKey })).status, 200);
  });

  const refused: [string, string, unknown?][] = [
    ['GET', '/api/v1/keys'],
    ['POST', '/api/v1/keys', { mode: 'live' }],
    ['GET', '/api/v1/usage'],
    ['GET', '/api/v1/account'],
    ['GET', '/api/v1/exports'],
    [
      'POST',
      '/api/v1/webhooks',
      { url: 'https://example.com/hook', events: ['release.published'] },
    ],
    ['GET', '/api/v1/custom-endpoints'],
    ['GET', '/api/v1/bulk/countries?country=FR'],
  ];
  for (const [method, url, body] of refused) {
    it(`refuses ${method} ${url} with 403 naming test mode`, async () => {
      const res = await call(method, url, { token: testKey, body });
      assert.equal(res.status, 403, res.body);
      assert.equal(res.json().code, 'TEST_MODE_NOT_ALLOWED');
      assert.equal(res.json().mode, 'test');
      assert.match(res.json().detail, /Test-mode keys/);
    });
  }

  it('takes the mode from the stored key, never from the request', async () => {
    // A live key under the test prefix is another token: unknown.
    const forged = `sk_test_${live.slice('sk_live_'.length)}`;
    assert.equal((await call('GET', LOOKUP, { token: forged })).status, 401);
    const res = await call('GET', LOOKUP, {
      token: live,
      headers: { 'key-mode': 'test' },
    });
    assert.equal(res.headers.get('key-mode'), null);
    assert.equal(res.json().meta.mode, undefined);
  });

  it('rotates into a test key and revokes like a live key', async () => {
    const rotated = await call('POST', `/api/v1/keys/${testKeyId}/rotate`, { token: session });
    assert.equal(rotated.status, 201, rotated.body);
    const next = rotated.json().key;
    assert.equal(next.mode, 'test');
    assert.match(next.key, /^sk_test_/);
    const revoked = await call('DELETE', `/api/v1/keys/${next.id}`, { token: session });
    assert.equal(revoked.json().mode, 'test');
    assert.equal((await call('GET', LOOKUP, { token: next.key })).status, 401);
  });

  it('gives Free accounts no test keys (keys need a paid plan)', async () => {
    const free = await accountOnPlan(t, 'free');
    const res = await call('POST', '/api/v1/keys', { token: free.session, body: { mode: 'test' } });
    assert.equal(res.status, 403);
    assert.equal(res.json().code, 'FEATURE_NOT_IN_PLAN');
  });

  it('shares one allowance among an account’s test keys: a rotation adds none', async () => {
    t.clock.set('2026-11-23T09:00:00Z');
    const owner = await accountOnPlan(t, 'business');
    const first = await call('POST', '/api/v1/keys', {
      token: owner.session,
      body: { name: 'CI', mode: 'test' },
    });
    const rotated = await call('POST', `/api/v1/keys/${first.json().id}/rotate`, {
      token: owner.session,
    });
    assert.equal(rotated.status, 201, rotated.body);
    const keys = [first.json().key as string, rotated.json().key.key as string];
    const statuses: number[] = [];
    for (let i = 0; i < 31; i++)
      statuses.push((await call('GET', LOOKUP, { token: keys[i % 2] })).status);
    assert.deepEqual(statuses.slice(0, 30), Array(30).fill(200));
    assert.equal(statuses[30], 429);
  });

  it('allows the account 1,000 test requests a day, whatever the minutes', async () => {
    t.clock.set('2026-11-24T00:00:00Z');
    const owner = await accountOnPlan(t, 'business');
    const key = (
      await call('POST', '/api/v1/keys', { token: owner.session, body: { mode: 'test' } })
    ).json().key as string;
    const start = Date.parse('2026-11-24T00:00:00Z');
    for (let i = 0; i < 1000; i++) {
      if (i % 30 === 0) t.clock.set(new Date(start + (i / 30) * 60_000).toISOString());
      const res = await call('GET', LOOKUP, { token: key });
      assert.equal(res.status, 200, `request ${i + 1}: ${res.body}`);
    }
    t.clock.set('2026-11-24T01:00:00Z');
    const refused = await call('GET', LOOKUP, { token: key });
    assert.equal(refused.status, 429);
    assert.match(refused.headers.get('ratelimit-policy') ?? '', /"test-day";q=1000;w=86400/);
    t.clock.set('2026-11-25T00:00:00Z');
    assert.equal((await call('GET', LOOKUP, { token: key })).status, 200);
  });

  it('answers a test key at most 500 records a request, so never a large file', async () => {
    t.clock.set('2026-11-26T00:00:00Z');
    const owner = await accountOnPlan(t, 'enterprise');
    const key = (
      await call('POST', '/api/v1/keys', { token: owner.session, body: { mode: 'test' } })
    ).json().key as string;
    const defined = await call('POST', '/api/v1/custom-endpoints', {
      token: owner.session,
      body: { slug: 'everything', description: 'all', query: { years: 'all' }, parameters: [] },
    });
    assert.equal(defined.status, 201, defined.body);
    const wide = '/api/v1/custom/everything';
    const asLive = await call('GET', wide, { token: owner.apiKey! });
    assert.equal(asLive.status, 200, asLive.body.slice(0, 300));
    assert.ok(asLive.json().meta.count > 500, `${asLive.json().meta.count} records`);
    const asTest = await call('GET', wide, { token: key });
    assert.equal(asTest.status, 403, asTest.body);
    assert.equal(asTest.json().code, 'TEST_MODE_NOT_ALLOWED');
    assert.equal(asTest.json().max_records, 500);
    assert.equal(asTest.headers.get('key-mode'), 'test');
  });

  it('marks pay position answers in JSON and files, and records the mode on revocation', async () => {
    const owner = await accountOnPlan(t, 'business');
    const created = await call('POST', '/api/v1/keys', {
      token: owner.session,
      body: { mode: 'test' },
    });
    const key = created.json().key as string;
    const query = '/api/v1/salary/position?country=FR&job=chef&level=mid&salary=40000';
    const json = await call('GET', query, { token: key });
    assert.equal(json.status, 200, json.body);
    assert.equal(json.json().meta.mode, 'test');
    const csv = await call('GET', `${query}&format=csv`, { token: key });
    const [header, row] = csv.body.split(/\r?\n/) as [string, string];
    assert.match(header, /,mode$/);
    assert.match(row, /,test$/);
    const asLive = await call('GET', query, { token: owner.apiKey! });
    assert.equal(asLive.status, 200, asLive.body);
    assert.equal(asLive.json().meta.mode, undefined);
    const revoked = await call('DELETE', `/api/v1/keys/${created.json().id}`, {
      token: owner.session,
    });
    assert.equal(revoked.status, 200, revoked.body);
    const revocations = await t.db.query<{ data: { mode: string } }>(
      "SELECT data FROM audit_log WHERE account_id = $1 AND action = 'keys.revoke'",
      [owner.accountId],
    );
    assert.deepEqual(
      revocations.map((r) => r.data.mode),
      ['test'],
    );
  });
});
