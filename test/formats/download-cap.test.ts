import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DOWNLOADS_PER_ACCOUNT, DOWNLOADS_PER_PROCESS } from '../../src/http/download-gate.js';
import { accountOnPlan } from '../helpers/accounts.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';

/** One year of every country and job: 2,268 rows, a large file in every file format. */
const ARCHIVE = '/api/v1/bulk/archive?year=2026';

describe('large files: a cap per account and per process on writing them, none on serving them', () => {
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

  const download = (format: string, query = '') =>
    t.app.inject({
      url: `${ARCHIVE}&format=${format}${query}`,
      headers: { authorization: `Bearer ${alice.apiKey!}` },
    });

  it("refuses a file still to be written over the account's share: 429, Retry-After, no quota", async () => {
    const taken = Array.from({ length: DOWNLOADS_PER_ACCOUNT }, () =>
      t.app.downloads.enter(`acct:${alice.accountId}`),
    );
    for (const format of ['xlsx', 'csv']) {
      const refused = await download(format);
      assert.equal(refused.statusCode, 429, refused.body);
      assert.equal(refused.json().code, 'TOO_MANY_DOWNLOADS');
      assert.equal(refused.headers['retry-after'], '5');
    }
    // JSON is written on the main thread, a chunk of records per turn: not capped.
    assert.equal((await download('json')).statusCode, 200);
    for (const release of taken) release();
    const served = await download('xlsx');
    assert.equal(served.statusCode, 200);
    assert.equal(served.headers['x-ratelimit-remaining'], '98', 'only the served ones spent quota');
    assert.equal(t.app.downloads.running, 0, 'the written file gave its place back');
  });

  it('serves a file already written even when every place is taken, and it spends quota', async () => {
    const first = await download('parquet', '&level=senior');
    assert.equal(first.statusCode, 200);
    const taken = Array.from({ length: DOWNLOADS_PER_PROCESS }, (_, i) =>
      t.app.downloads.enter(`acct:other-${i % 2}`),
    );
    const again = await download('parquet', '&level=senior');
    assert.equal(again.statusCode, 200, again.body);
    assert.ok(again.rawPayload.equals(first.rawPayload));
    assert.equal(
      Number(again.headers['x-ratelimit-remaining']),
      Number(first.headers['x-ratelimit-remaining']) - 1,
    );
    for (const release of taken) release();
  });

  it("refuses a file still to be written with 503 and Retry-After when the process's places are taken", async () => {
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

  it('keeps answering other requests while a large file is written', async () => {
    // The whole archive (every year) as Excel: seconds of work, in a worker thread.
    const file = t.app.inject({
      url: '/api/v1/bulk/archive?year=all&format=xlsx',
      headers: { authorization: `Bearer ${alice.apiKey!}` },
    });
    let fileDone = false;
    void file.then(() => (fileDone = true));
    for (let i = 0; i < 5; i++) {
      const health = await t.app.inject({ url: '/health' });
      assert.equal(health.statusCode, 200);
    }
    assert.equal(fileDone, false, 'five /health answers came while the file was being written');
    assert.equal((await file).statusCode, 200);
  });
});
