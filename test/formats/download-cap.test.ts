import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  DOWNLOADS_PER_ACCOUNT,
  DOWNLOADS_PER_PROCESS,
  DOWNLOADS_WAITING,
  DownloadGate,
} from '../../src/http/download-gate.js';
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

  /** Every place of the process, taken by two other accounts. */
  const takeEveryPlace = () =>
    Promise.all(
      Array.from({ length: DOWNLOADS_PER_PROCESS }, (_, i) =>
        t.app.downloads.enter(`acct:other-${i % 2}`),
      ),
    );

  const download = (format: string, query = '') =>
    t.app.inject({
      url: `${ARCHIVE}&format=${format}${query}`,
      headers: { authorization: `Bearer ${alice.apiKey!}` },
    });

  it("refuses a file still to be written over the account's share: 429, Retry-After, no quota", async () => {
    const taken = await Promise.all(
      Array.from({ length: DOWNLOADS_PER_ACCOUNT }, () =>
        t.app.downloads.enter(`acct:${alice.accountId}`),
      ),
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
    const taken = await takeEveryPlace();
    const again = await download('parquet', '&level=senior');
    assert.equal(again.statusCode, 200, again.body);
    assert.ok(again.rawPayload.equals(first.rawPayload));
    assert.equal(
      Number(again.headers['x-ratelimit-remaining']),
      Number(first.headers['x-ratelimit-remaining']) - 1,
    );
    for (const release of taken) release();
  });

  it("waits for a place when the process's are taken, and is written as soon as one frees", async () => {
    const taken = await takeEveryPlace();
    let answered = false;
    const waiting = download('parquet').then((res) => ((answered = true), res));
    await until(() => t.app.downloads.waiting === 1);
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(answered, false, 'no place, no file yet');
    taken[0]!();
    const served = await waiting;
    assert.equal(served.statusCode, 200, served.body);
    for (const release of taken) release();
    assert.equal(t.app.downloads.running, 0);
    assert.equal(t.app.downloads.waiting, 0);
  });

  it('refuses with 503 and Retry-After at once when as many requests already wait as may', async () => {
    const taken = await takeEveryPlace();
    const queued = Array.from({ length: DOWNLOADS_WAITING }, (_, i) =>
      t.app.downloads.enter(`acct:queued-${i}`),
    );
    const refused = await download('parquet', '&level=junior');
    assert.equal(refused.statusCode, 503, refused.body);
    assert.equal(refused.json().code, 'DOWNLOADS_BUSY');
    assert.equal(refused.headers['retry-after'], '5');
    for (const release of taken) release();
    // Each place goes to the next in the queue, and is given back at once.
    await Promise.all(queued.map((entered) => entered.then((release) => release())));
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

describe('the download gate: places handed on in order, a wait with an end', () => {
  it('admits a waiting account before the later requests of the accounts that keep the places busy', async () => {
    const gate = new DownloadGate(2, 4, 5_000, 16);
    const held = await Promise.all(['b', 'b', 'c', 'c'].map((a) => gate.enter(a)));
    const order: string[] = [];
    const a = gate.enter('a').then((release) => (order.push('a'), release));
    held[0]!(); // b finishes one file and asks for the next at once
    const b = gate.enter('b').then((release) => (order.push('b'), release));
    held[2]!(); // then c
    const c = gate.enter('c').then((release) => (order.push('c'), release));
    const releases = await Promise.all([a, b]);
    assert.deepEqual(order, ['a', 'b']);
    assert.equal(gate.running, 4);
    for (const release of [...releases, held[1]!, held[3]!]) release();
    (await c)();
    assert.deepEqual(order, ['a', 'b', 'c']);
    assert.equal(gate.running, 0);
  });

  it('hands places on first come, first served', async () => {
    const gate = new DownloadGate(2, 1, 5_000, 16);
    const held = await gate.enter('x');
    const order: string[] = [];
    const waiting = ['a', 'd', 'e'].map((account) =>
      gate.enter(account).then((release) => {
        order.push(account);
        release();
      }),
    );
    held();
    await Promise.all(waiting);
    assert.deepEqual(order, ['a', 'd', 'e']);
  });

  it("counts a waiting request in its account's share", async () => {
    const gate = new DownloadGate(2, 1, 5_000, 16);
    const first = await gate.enter('b');
    const second = gate.enter('a');
    const third = gate.enter('a');
    await assert.rejects(gate.enter('a'), { code: 'TOO_MANY_DOWNLOADS' });
    first();
    (await second)();
    (await third)();
    assert.equal(gate.running, 0);
  });

  it('answers 503 when no place frees in time, and forgets the request', async () => {
    const gate = new DownloadGate(2, 1, 50, 16);
    const held = await gate.enter('b');
    await assert.rejects(gate.enter('a'), { code: 'DOWNLOADS_BUSY' });
    assert.equal(gate.waiting, 0);
    held();
    assert.equal(gate.running, 0);
    (await gate.enter('a'))();
    (await gate.enter('a'))();
  });
});

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((r) => setTimeout(r, 10));
  assert.ok(condition());
}
