import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { freshPostgres, postgresAvailable, type TestDb } from '../helpers/db.js';
import { startInstance, until, type Instance } from '../helpers/instances.js';
import {
  loadBundledRelease,
  operatorServices,
  paidAccount,
  type Services,
} from '../redis/fixture.js';

const skip = !(await postgresAvailable()) && 'no PostgreSQL';

interface Answer {
  status: number;
  headers: Headers;
  body: { id?: string; key?: string; code?: string };
}

/**
 * Two `serve` processes on one PostgreSQL. A trigger (installed by the test) makes the write
 * that stores a response wait on a lock the test holds, so the first attempt can be killed
 * after the handler's writes and before its response is stored.
 */
describe('Idempotency-Key across a crash', { skip }, () => {
  let db: TestDb & { url: string };
  let s: Services;
  let apiKey: string;
  let accountId: string;
  let first: Instance;
  let second: Instance;

  before(async () => {
    db = await freshPostgres();
    await loadBundledRelease(db.db);
    s = await operatorServices(db.db, {});
    ({ apiKey, accountId } = await paidAccount(s, 'enterprise'));
    const started = await Promise.all([0, 1].map(() => startInstance({ DATABASE_URL: db.url })));
    first = started[0]!;
    second = started[1]!;
  });
  after(async () => {
    await Promise.all([first, second].map((i) => i?.kill()));
    await db?.cleanup();
  });

  const createKey = async (instance: Instance, idempotencyKey: string): Promise<Answer> => {
    const response = await fetch(`${instance.url}/api/v1/keys`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${apiKey}`,
        'content-type': 'application/json',
        'idempotency-key': idempotencyKey,
      },
      body: JSON.stringify({ name: idempotencyKey }),
      signal: AbortSignal.timeout(10_000),
    });
    return {
      status: response.status,
      headers: response.headers,
      body: (await response.json()) as Answer['body'],
    };
  };
  const keysNamed = async (name: string) =>
    (
      await db.db.query('SELECT id FROM api_keys WHERE account_id = $1 AND name = $2', [
        accountId,
        name,
      ])
    ).length;
  const works = async (instance: Instance, key: string) =>
    (
      await fetch(`${instance.url}/api/v1/keys`, {
        headers: { authorization: `Bearer ${key}` },
        signal: AbortSignal.timeout(10_000),
      })
    ).status === 200;

  it('a retry after the first attempt was killed mid-request creates the key once and gets its secret', async () => {
    const locker = new pg.Client({ connectionString: db.url });
    await locker.connect();
    try {
      await locker.query(`
        CREATE FUNCTION test_hold() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN PERFORM pg_advisory_xact_lock(4242); RETURN NEW; END $$;
        CREATE TRIGGER test_hold BEFORE UPDATE ON idempotency_keys
        FOR EACH ROW EXECUTE FUNCTION test_hold();
        SELECT pg_advisory_lock(4242);`);
      const dying = createKey(first, 'crash-1').catch(() => undefined);
      await until(
        async () =>
          (
            await locker.query(
              `SELECT 1 FROM pg_stat_activity
               WHERE datname = current_database() AND wait_event = 'advisory'`,
            )
          ).rowCount === 1,
        10_000,
        20,
      );

      const meanwhile = await createKey(second, 'crash-1');
      assert.equal(meanwhile.status, 409, 'the first attempt is still running');
      assert.ok(Number(meanwhile.headers.get('retry-after')) >= 1, 'with Retry-After');

      await first.kill();
      await dying;
      await locker.query('DROP TRIGGER test_hold ON idempotency_keys; DROP FUNCTION test_hold();');
      await locker.query('SELECT pg_advisory_unlock(4242)');
    } finally {
      await locker.end();
    }

    let retry: Answer | undefined;
    await until(
      async () => {
        retry = await createKey(second, 'crash-1');
        return retry.status !== 409;
      },
      10_000,
      100,
    );
    assert.equal(retry?.status, 201, JSON.stringify(retry?.body));
    assert.equal(await keysNamed('crash-1'), 1, 'created exactly once');
    assert.ok(await works(second, retry.body.key!), 'the secret the retry got authenticates');

    const replay = await createKey(second, 'crash-1');
    assert.equal(replay.status, 201);
    assert.equal(replay.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual([replay.body.id, replay.body.key], [retry.body.id, retry.body.key]);
  });

  it('a retry whose first response was lost gets the committed result, secret included', async () => {
    const lost = await createKey(second, 'lost-1');
    assert.equal(lost.status, 201);
    const retry = await createKey(second, 'lost-1');
    assert.equal(retry.headers.get('idempotent-replayed'), 'true');
    assert.equal(retry.body.id, lost.body.id);
    assert.ok(await works(second, retry.body.key!), 'the replayed secret authenticates');
    assert.equal(await keysNamed('lost-1'), 1);
  });
});
