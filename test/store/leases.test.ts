import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runClaimed, type Db } from '../../src/store/index.js';
import { clonePglite, freshPostgres, postgresAvailable, type TestDb } from '../helpers/db.js';
import { until } from '../helpers/wait.js';

const postgres = await postgresAvailable();

for (const kind of ['pglite', 'postgres'] as const) {
  describe(
    `job leases (${kind})`,
    { skip: kind === 'postgres' && !postgres && 'no PostgreSQL' },
    () => {
      let t: TestDb;
      let db: Db;
      before(async () => {
        t = kind === 'pglite' ? await clonePglite() : await freshPostgres();
        db = t.db;
      });
      after(async () => t?.cleanup());

      it('runs a job on one claimant at a time; the others are told it is taken', async () => {
        let release!: () => void;
        const running = new Promise<void>((r) => (release = r));
        const now = Date.parse('2026-11-22T10:00:00Z');
        const claim = { name: 'test.once', now, leaseMs: 60_000 };
        let claimed = false;
        const first = runClaimed(db, { ...claim, holder: 'a' }, async () => {
          claimed = true;
          await running;
          return 'a ran';
        });
        await until(() => claimed);
        assert.equal(
          await runClaimed(db, { ...claim, holder: 'b' }, async () => 'b ran'),
          undefined,
        );
        release();
        assert.equal(await first, 'a ran');
        assert.equal(await runClaimed(db, { ...claim, holder: 'b' }, async () => 'b ran'), 'b ran');
      });

      it('runs a scheduled job once per interval across claimants, and again after a failure', async () => {
        const at = Date.parse('2026-11-22T11:00:00Z');
        const job = { name: 'test.every', leaseMs: 60_000, everyMs: 60_000 };
        assert.equal(await runClaimed(db, { ...job, holder: 'a', now: at }, async () => 1), 1);
        assert.equal(
          await runClaimed(db, { ...job, holder: 'b', now: at + 30_000 }, async () => 2),
          undefined,
        );
        await assert.rejects(
          runClaimed(db, { ...job, holder: 'b', now: at + 60_000 }, () =>
            Promise.reject(new Error('boom')),
          ),
        );
        assert.equal(
          await runClaimed(db, { ...job, holder: 'c', now: at + 61_000 }, async () => 3),
          3,
        );
      });

      it('takes over a lease whose holder died', async () => {
        const at = Date.parse('2026-11-22T12:00:00Z');
        await db.query(
          `INSERT INTO job_leases (name, holder, locked_until, next_run_at) VALUES ('test.crash', 'dead', $1, $2)`,
          [new Date(at + 10_000), new Date(at)],
        );
        const job = { name: 'test.crash', holder: 'b', leaseMs: 60_000 };
        assert.equal(await runClaimed(db, { ...job, now: at }, async () => 'b'), undefined);
        assert.equal(await runClaimed(db, { ...job, now: at + 10_000 }, async () => 'b'), 'b');
      });
    },
  );
}
