import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { freshPostgres, postgresAvailable, type TestDb } from '../helpers/db.js';
import { call, startInstance, until, type Instance } from '../helpers/instances.js';
import { TcpProxy } from '../helpers/tcp-proxy.js';
import {
  loadBundledRelease,
  operatorServices,
  paidAccount,
  type Services,
} from '../redis/fixture.js';

const skip = !(await postgresAvailable()) && 'no PostgreSQL';

/**
 * Three `serve` processes reach PostgreSQL through a TCP proxy. Each fault strikes while every
 * instance has a transaction open (a key being created, its account row locked by the test), so
 * the checked-out clients lose their connections mid-transaction.
 */
describe('PostgreSQL connections lost during transactions', { skip }, () => {
  let db: TestDb & { url: string };
  let s: Services;
  let proxy: TcpProxy;
  let accounts: { accountId: string; apiKey: string }[];
  const instances: Instance[] = [];

  before(async () => {
    db = await freshPostgres();
    await loadBundledRelease(db.db);
    s = await operatorServices(db.db, {});
    accounts = await Promise.all([0, 1, 2].map(() => paidAccount(s, 'enterprise')));
    const direct = new URL(db.url);
    proxy = await TcpProxy.start({ host: direct.hostname, port: Number(direct.port || 5432) });
    const proxied = new URL(db.url);
    proxied.port = String(proxy.port);
    const env = { DATABASE_URL: proxied.toString(), USAGE_FLUSH_SECONDS: '1' };
    instances.push(...(await Promise.all(accounts.map(() => startInstance(env)))));
  });
  // Bounded: after a failed case the clean-up once waited forever, holding the whole suite.
  after(
    async () => {
      await Promise.all(instances.map((i) => i.kill()));
      await proxy?.cut();
      await db?.cleanup();
    },
    { timeout: 30_000 },
  );

  const createKey = (i: number, timeoutMs?: number) =>
    call(instances[i]!.url, '/api/v1/keys', {
      method: 'POST',
      token: accounts[i]!.apiKey,
      body: { name: 'during a fault' },
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
    });

  /**
   * Opens a key creation on every instance and holds them inside their transactions (the test
   * locks their accounts' rows): the locker, and the writes, once every write waits on the lock.
   * When they did not all come to wait within `withinMs` (one write has been seen to stay out of
   * the database for 30 s while the others waited, then answer 201 once the lock was released),
   * the lock is released, the writes answered, and what was seen is returned instead.
   */
  async function holdWrites(withinMs: number) {
    const locker = new pg.Client({ connectionString: db.url });
    await locker.connect();
    await locker.query('BEGIN');
    await locker.query('SELECT id FROM accounts WHERE id = ANY($1) FOR UPDATE', [
      accounts.map((a) => a.accountId),
    ]);
    // Each write waits on the lock until the fault: its own timeout outlasts the wait below,
    // and an early answer is kept (not an unhandled rejection) so the failure says what it was.
    const writes = instances.map((_, i) =>
      createKey(i, 60_000).catch((error: unknown) => ({
        status: 0,
        headers: new Headers(),
        body: `instance ${i}: ${String(error)}\n${instances[i]!.log()}`,
      })),
    );
    try {
      await until(
        async () => {
          const rows = await locker.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM pg_stat_activity
             WHERE datname = current_database() AND wait_event_type = 'Lock'`,
          );
          return rows.rows[0]!.n >= instances.length;
        },
        withinMs,
        20,
      );
      return { locker, writes };
    } catch (error) {
      const waiting = await locker.query(
        `SELECT pid, state, wait_event_type, wait_event, left(query, 120) AS query
         FROM pg_stat_activity WHERE datname = current_database()`,
      );
      await locker.query('ROLLBACK');
      await locker.end();
      const early = await Promise.all(writes);
      return `${String(error)}: not every write waited on the lock.\n${JSON.stringify(waiting.rows, null, 1)}\n${early.map((w) => `${w.status} ${JSON.stringify(w.body).slice(0, 2000)}`).join('\n')}`;
    }
  }

  /** Holds a key creation on every instance inside its transaction (three tries), strikes. */
  async function strikeDuringTransactions(fault: (locker: pg.Client) => Promise<void>) {
    const missed: string[] = [];
    for (let attempt = 0; attempt < 3; attempt++) {
      const held = await holdWrites(5_000);
      if (typeof held === 'string') {
        missed.push(held);
        continue;
      }
      await fault(held.locker);
      await held.locker.query('ROLLBACK');
      await held.locker.end();
      return Promise.all(held.writes);
    }
    return assert.fail(missed.join('\n\n'));
  }

  async function assertRecovered() {
    for (const [i, instance] of instances.entries()) {
      assert.equal(
        instance.child.exitCode,
        null,
        `instance ${i} still running:\n${instance.log()}`,
      );
      assert.equal((await call(instance.url, '/health')).status, 200);
      await until(async () => (await createKey(i)).status === 201, 10_000, 100);
    }
    assert.ok(instances.every((i) => !/Unhandled 'error' event/.test(i.log())));
  }

  // Bounded: a case that cannot finish must fail, not hold the suite (a lock left held once did).
  const bounded = { timeout: 120_000 };

  it(
    'answers 503 with Retry-After when the backends are terminated, and every instance writes again',
    bounded,
    async () => {
      const answers = await strikeDuringTransactions(async (locker) => {
        await locker.query(
          `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
         WHERE datname = current_database() AND pid <> pg_backend_pid()`,
        );
      });
      for (const answer of answers) {
        assert.equal(answer.status, 503, JSON.stringify(answer.body));
        assert.ok(answer.headers.get('retry-after') !== null);
      }
      await assertRecovered();
    },
  );

  it(
    'answers 503 with Retry-After while the network to PostgreSQL is cut, and recovers after',
    bounded,
    async () => {
      const answers = await strikeDuringTransactions(async () => {
        await proxy.cut();
      });
      for (const answer of answers) {
        assert.equal(answer.status, 503, JSON.stringify(answer.body));
        assert.ok(answer.headers.get('retry-after') !== null);
      }
      // Still cut: writes are refused cleanly, the processes stay up.
      for (const [i] of instances.entries()) {
        const refused = await createKey(i);
        assert.equal(refused.status, 503, JSON.stringify(refused.body));
        assert.ok(refused.headers.get('retry-after') !== null);
      }
      await proxy.open();
      await assertRecovered();
    },
  );
});
