import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import pino from 'pino';
import { ManualClock } from '../../src/lib/clock.js';
import { backoffDelay, createQueue, type QueueItem } from '../../src/lib/queue.js';
import {
  claimRows,
  extendLease,
  releaseClaims,
  settleClaimed,
  type Db,
  type QueueTable,
} from '../../src/store/index.js';
import { clonePglite, freshPostgres, postgresAvailable, type TestDb } from '../helpers/db.js';

const postgres = await postgresAvailable();
const logger = pino({ level: 'silent' });
const ITEMS: QueueTable = { table: 'queue_test_items', open: ['pending'] };
const START = Date.parse('2026-11-22T10:00:00Z');
const LEASE_MS = 60_000;

describe('backoffDelay', () => {
  it('follows the schedule by attempts made, within the jitter, and gives up after it', () => {
    const delays = [1_000, 10_000, 100_000];
    assert.deepEqual(
      [1, 2, 3, 4].map((n) => backoffDelay(delays, n)),
      [1_000, 10_000, 100_000, null],
    );
    assert.equal(
      backoffDelay(delays, 2, 0.1, () => 0),
      9_000,
    );
    assert.equal(
      backoffDelay(delays, 2, 0.1, () => 1),
      11_000,
    );
    assert.equal(
      backoffDelay(delays, 4, 0.1, () => 0.5),
      null,
    );
  });
});

for (const kind of ['pglite', 'postgres'] as const) {
  describe(
    `job queue (${kind})`,
    { skip: kind === 'postgres' && !postgres && 'no PostgreSQL' },
    () => {
      let t: TestDb;
      let db: Db;
      let clock: ManualClock;
      before(async () => {
        t = kind === 'pglite' ? await clonePglite() : await freshPostgres();
        db = t.db;
        await db.query(`CREATE TABLE queue_test_items (
        id text PRIMARY KEY, status text NOT NULL DEFAULT 'pending',
        attempts integer NOT NULL DEFAULT 0, next_attempt_at timestamptz,
        claimed_by text, claimed_until timestamptz, updated_at timestamptz, done_by text)`);
      });
      after(async () => t?.cleanup());
      beforeEach(async () => {
        clock = new ManualClock(START);
        await db.query('DELETE FROM queue_test_items');
      });

      async function add(n: number): Promise<string[]> {
        const ids = Array.from({ length: n }, (_, i) => `item_${String(i).padStart(3, '0')}`);
        for (const id of ids)
          await db.query('INSERT INTO queue_test_items (id, next_attempt_at) VALUES ($1, $2)', [
            id,
            new Date(START).toISOString(),
          ]);
        return ids;
      }
      const row = async (id: string) =>
        (
          await db.query<{ status: string; attempts: number; next_attempt_at: Date | string }>(
            'SELECT status, attempts, next_attempt_at FROM queue_test_items WHERE id = $1',
            [id],
          )
        )[0]!;
      const claim = (holder: string, at: number, limit = 10) =>
        claimRows(db, ITEMS, holder, new Date(at), new Date(at + LEASE_MS), limit);

      function queue(
        handle: (item: QueueItem, holder: string) => Promise<void>,
        options: { concurrency?: number; heartbeatMs?: number } = {},
      ) {
        return createQueue<QueueItem>({
          name: 'test.run',
          concurrency: options.concurrency ?? 1,
          leaseMs: LEASE_MS,
          clock,
          logger,
          claim: (holder, now, leaseUntil, limit) =>
            claimRows(db, ITEMS, holder, now, leaseUntil, limit),
          handle,
          ...(options.heartbeatMs === undefined
            ? {}
            : {
                heartbeat: {
                  everyMs: options.heartbeatMs,
                  extend: (item, holder, until) => extendLease(db, ITEMS, item.id, holder, until),
                },
              }),
        });
      }
      const settleDone = (item: QueueItem, holder: string) =>
        settleClaimed(
          db,
          ITEMS,
          item.id,
          holder,
          { status: 'done', done_by: holder },
          new Date(clock.now()),
        );

      it('claims an item whose lease lapsed again; the first holder can no longer settle it', async () => {
        const [id] = await add(1);
        const [first] = await claim('a', START);
        assert.equal(first?.attempts, 1);
        assert.deepEqual(await claim('b', START + LEASE_MS - 1), [], 'held while the lease runs');
        const [again] = await claim('b', START + LEASE_MS);
        assert.deepEqual(again, { id, attempts: 2 });
        const at = new Date(START + LEASE_MS);
        assert.equal(await settleClaimed(db, ITEMS, id!, 'a', { status: 'done' }, at), false);
        assert.equal(await settleClaimed(db, ITEMS, id!, 'b', { status: 'done' }, at), true);
        assert.equal(await settleClaimed(db, ITEMS, id!, 'b', { status: 'done' }, at), false);
        assert.equal((await row(id!)).status, 'done');
      });

      it('releases the claims of a stopped process: due again at once', async () => {
        const [id] = await add(1);
        await claim('a', START);
        assert.equal(await releaseClaims(db, ITEMS), 1);
        assert.equal((await claim('b', START + 1))[0]?.id, id);
      });

      it('works on no more items at once than its concurrency, and on all of them', async () => {
        const ids = await add(7);
        let inWork = 0;
        let most = 0;
        const q = queue(
          async (item, holder) => {
            most = Math.max(most, ++inWork);
            await new Promise((r) => setTimeout(r, 20));
            inWork--;
            assert.ok(await settleDone(item, holder));
          },
          { concurrency: 3 },
        );
        assert.equal(await q.runOnce(), 7);
        assert.equal(most, 3);
        for (const id of ids) assert.equal((await row(id)).status, 'done');
      });

      it('retries after the backoff: not claimed before its next attempt is due', async () => {
        const [id] = await add(1);
        const delays = [30_000, 120_000];
        const q = queue(async (item, holder) => {
          const delay = backoffDelay(delays, item.attempts);
          const at = new Date(clock.now());
          await settleClaimed(
            db,
            ITEMS,
            item.id,
            holder,
            delay === null
              ? { status: 'failed' }
              : { next_attempt_at: new Date(clock.now() + delay) },
            at,
          );
        });
        const attemptsAt: number[] = [];
        for (const step of [0, 29_999, 1, 119_999, 1, 10_000_000]) {
          clock.advance(step);
          if ((await q.runOnce()) > 0) attemptsAt.push(clock.now() - START);
        }
        assert.deepEqual(attemptsAt, [0, 30_000, 150_000]);
        assert.deepEqual(
          { status: (await row(id!)).status, attempts: (await row(id!)).attempts },
          { status: 'failed', attempts: 3 },
        );
      });

      it('a handler that throws leaves the item to be claimed again after the lease', async () => {
        const [id] = await add(1);
        const q = queue(() => Promise.reject(new Error('crashed mid-attempt')));
        assert.equal(await q.runOnce(), 1);
        clock.advance(LEASE_MS - 1);
        assert.equal(await q.runOnce(), 0);
        clock.advance(1);
        assert.equal(await q.runOnce(), 1);
        assert.equal((await row(id!)).attempts, 2);
      });

      it('a heartbeat keeps the lease of a long attempt from lapsing', async () => {
        const [id] = await add(1);
        let finish!: () => void;
        const long = new Promise<void>((r) => (finish = r));
        const q = queue(
          async (item, holder) => {
            await long;
            assert.ok(await settleDone(item, holder));
          },
          { heartbeatMs: 10 },
        );
        const running = q.runOnce();
        await new Promise((r) => setTimeout(r, 30));
        clock.advance(LEASE_MS + 1);
        await new Promise((r) => setTimeout(r, 60));
        assert.deepEqual(await claim('other', clock.now()), [], 'the lease was moved on');
        finish();
        assert.equal(await running, 1);
        assert.equal((await row(id!)).status, 'done');
      });

      it('two workers never work on or settle the same item twice', async () => {
        const ids = await add(24);
        const seen: string[] = [];
        const settled: string[] = [];
        const handle = async (item: QueueItem, holder: string): Promise<void> => {
          seen.push(item.id);
          await new Promise((r) => setTimeout(r, 2));
          if (await settleDone(item, holder)) settled.push(item.id);
        };
        const a = queue(handle, { concurrency: 3 });
        const b = queue(handle, { concurrency: 3 });
        const [na, nb] = await Promise.all([a.runOnce(), b.runOnce()]);
        assert.equal(na + nb, ids.length);
        assert.deepEqual([...seen].sort(), ids);
        assert.deepEqual([...settled].sort(), ids);
        const holders = await db.query<{ done_by: string; n: string | number }>(
          'SELECT done_by, count(*) AS n FROM queue_test_items GROUP BY done_by',
        );
        assert.ok(holders.every((h) => h.done_by === a.id || h.done_by === b.id));
      });
    },
  );
}
