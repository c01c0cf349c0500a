import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DOWNLOADS_PER_ACCOUNT, DOWNLOADS_PER_PROCESS } from '../../src/salary/index.js';
import { accountOnPlan } from '../helpers/accounts.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';

/** One year of every country and job: 2,268 rows, a large file in Excel or Parquet. */
const ARCHIVE = '/api/v1/bulk/archive?year=2026';

describe('large Excel and Parquet downloads: a cap per account and per process', () => {
  let t: TestApp;
  let alice: Awaited<ReturnType<typeof accountOnPlan>>;
  before(async () => {
    t = await buildTestApp({
      env: { PLAN_OVERRIDES: '{"enterprise":{"requestLimit":100}}' },
    });
    alice = await accountOnPlan(t, 'enterprise', {
      price_cents: 150_000,
      request_limit: 100,
      sla_percent: 99.9,
      formats: ['json', 'csv', 'xlsx', 'xml', 'parquet'],
    });
  });
  after(() => t.close());

  const download = (format: string, key = alice.apiKey!) =>
    t.app.inject({
      url: `${ARCHIVE}&format=${format}`,
      headers: { authorization: `Bearer ${key}` },
    });

  it("refuses one more than the account's share with 429 and Retry-After, spending no quota", async () => {
    const taken = Array.from({ length: DOWNLOADS_PER_ACCOUNT }, () =>
      t.app.downloads.enter(`acct:${alice.accountId}`),
    );
    const refused = await download('xlsx');
    assert.equal(refused.statusCode, 429, refused.body);
    assert.equal(refused.json().code, 'TOO_MANY_DOWNLOADS');
    assert.equal(refused.headers['retry-after'], '5');
    // Small results and other formats are not capped.
    assert.equal((await download('csv')).statusCode, 200);
    for (const release of taken) release();
    const served = await download('xlsx');
    assert.equal(served.statusCode, 200);
    assert.equal(served.headers['x-ratelimit-remaining'], '98');
    assert.equal(t.app.downloads.running, 0, 'the finished download gave its place back');
  });

  it("refuses with 503 and Retry-After when the process's places are taken", async () => {
    const taken = Array.from({ length: DOWNLOADS_PER_PROCESS }, (_, i) =>
      t.app.downloads.enter(`acct:other-${i % 2}`),
    );
    const refused = await download('parquet');
    assert.equal(refused.statusCode, 503, refused.body);
    assert.equal(refused.json().code, 'DOWNLOADS_BUSY');
    assert.equal(refused.headers['retry-after'], '5');
    taken[0]!();
    assert.equal((await download('parquet')).statusCode, 200);
    for (const release of taken) release();
    assert.equal(t.app.downloads.running, 0);
  });
});
