import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { buildTestApp } from '../helpers/app.js';
import { clonePglite, freshPostgres, postgresAvailable, type TestDb } from '../helpers/db.js';
import { listenHttp } from '../helpers/http.js';

const NOW = '2026-11-22T10:15:00Z';
const FREE_LIMIT = 100;
const LOOKUP = '/api/v1/salary?country=DE&job=software-engineer';

/** Starts the API on `db` (as a restarted process would), sends `n` anonymous lookups. */
async function serveAndSpend(db: TestDb['db'], n: number): Promise<number[]> {
  const t = await buildTestApp({ db, now: NOW });
  try {
    const { call } = await listenHttp(t);
    const statuses: number[] = [];
    for (let i = 0; i < n; i++) statuses.push((await call('GET', LOOKUP)).status);
    return statuses;
  } finally {
    await t.close();
  }
}

const count = (statuses: number[], status: number) => statuses.filter((s) => s === status).length;

for (const store of ['embedded', 'postgres'] as const) {
  describe(`anonymous Free counts survive a restart without Redis (${store})`, async () => {
    const skip = store === 'postgres' && !(await postgresAvailable()) ? 'no PostgreSQL' : false;
    let opened: TestDb | undefined;
    after(() => opened?.cleanup());
    const open = async () =>
      (opened = store === 'embedded' ? await clonePglite() : await freshPostgres());

    it(
      'a client that spent its 100 requests, then a restart: the next request is 429',
      { skip },
      async () => {
        const { db } = await open();
        assert.equal(count(await serveAndSpend(db, FREE_LIMIT), 200), FREE_LIMIT);
        const t = await buildTestApp({ db, now: NOW });
        try {
          const { call } = await listenHttp(t);
          const res = await call('GET', LOOKUP);
          assert.equal(res.status, 429, res.body);
          assert.ok(Number(res.headers.get('retry-after')) > 0);
          assert.equal(res.headers.get('x-ratelimit-remaining'), '0');
        } finally {
          await t.close();
        }
        // Kept by a keyed hash of the bucket, never the address.
        const rows = await db.query<{ bucket_hash: string; units: string | number }>(
          'SELECT bucket_hash, units FROM limit_address_counts',
        );
        assert.equal(rows.length, 1);
        assert.equal(Number(rows[0]!.units), FREE_LIMIT);
        assert.doesNotMatch(rows[0]!.bucket_hash, /127|addr/);
      },
    );

    it('counts exactly across restarts: 60, then 40 more, then none', { skip }, async () => {
      await opened?.cleanup();
      const { db } = await open();
      assert.equal(count(await serveAndSpend(db, 60), 200), 60);
      const second = await serveAndSpend(db, 45);
      assert.equal(count(second, 200), 40, second.join(' '));
      assert.equal(count(second, 429), 5);
      assert.equal(count(await serveAndSpend(db, 1), 429), 1);
    });

    it(
      'a window that rolled over is written whole: the new hour counts from 0',
      { skip },
      async () => {
        await opened?.cleanup();
        const { db } = await open();
        const t = await buildTestApp({ db, now: NOW });
        try {
          const { call } = await listenHttp(t);
          for (let i = 0; i < 60; i++) assert.equal((await call('GET', LOOKUP)).status, 200);
          await t.recorder.flush();
          t.clock.advance(60 * 60_000);
          for (let i = 0; i < 30; i++) assert.equal((await call('GET', LOOKUP)).status, 200);
          await t.recorder.flush();
        } finally {
          await t.close();
        }
        const rows = await db.query<{ units: string | number }>(
          'SELECT units FROM limit_address_counts WHERE window_end > $1',
          [new Date(Date.parse(NOW) + 60 * 60_000).toISOString()],
        );
        assert.deepEqual(
          rows.map((r) => Number(r.units)),
          [30],
        );
        // After a restart within that hour, the client has 70 left, not more.
        const t2 = await buildTestApp({
          db,
          now: new Date(Date.parse(NOW) + 60 * 60_000).toISOString(),
        });
        try {
          const { call } = await listenHttp(t2);
          const statuses: number[] = [];
          for (let i = 0; i < 71; i++) statuses.push((await call('GET', LOOKUP)).status);
          assert.equal(count(statuses, 200), 70, statuses.join(' '));
        } finally {
          await t2.close();
        }
      },
    );
  });
}
