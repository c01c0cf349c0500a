import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { SESSION_TTL_MS } from '../../src/accounts/index.js';
import type { Db } from '../../src/store/index.js';
import { accountOnPlan } from '../helpers/accounts.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { clonePglite, type TestDb } from '../helpers/db.js';

/** The database with a count of the queries sent to it (transactions' statements included). */
function counting(db: Db): { db: Db; queries: () => number } {
  let queries = 0;
  const counted: Db = {
    // As a shared PostgreSQL: other processes may add credentials (an embedded database
    // belongs to one process, which refuses unknown credentials without reading it at all).
    kind: 'postgres',
    query: (sql, params) => {
      queries++;
      return db.query(sql, params);
    },
    transaction: (fn) =>
      db.transaction((tx) =>
        fn({
          query: (sql, params) => {
            queries++;
            return tx.query(sql, params);
          },
        }),
      ),
    begin: (options) => db.begin(options),
    exec: (sql) => db.exec(sql),
    close: () => db.close(),
  };
  return { db: counted, queries: () => queries };
}

describe('unknown credentials are refused from memory', () => {
  let owned: TestDb;
  let count: ReturnType<typeof counting>;
  let a: TestApp;
  let b: TestApp;
  before(async () => {
    owned = await clonePglite();
    count = counting(owned.db);
    // Two instances over one database, without Redis: nothing tells one of the other's changes.
    a = await buildTestApp({ db: count.db });
    b = await buildTestApp({ db: count.db });
  });
  after(async () => {
    await a.close();
    await b.close();
    await owned.cleanup();
  });

  const get = (t: TestApp, url: string, token: string) =>
    t.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });

  it('a flood of distinct random keys and session tokens costs the database almost nothing', async () => {
    const before = count.queries();
    for (let i = 0; i < 200; i++) {
      const key = await get(
        a,
        '/api/v1/salary?country=DE&job=software-engineer',
        `sk_live_${randomBytes(32).toString('base64url')}`,
      );
      assert.equal(key.statusCode, 401);
      assert.equal(key.json().code, 'UNAUTHENTICATED');
      const session = await get(
        a,
        '/api/v1/account',
        `sess_${randomBytes(32).toString('base64url')}`,
      );
      assert.equal(session.statusCode, 401);
    }
    // One re-read of what changed (three queries) while the clock stands still, not 400 lookups.
    assert.ok(count.queries() - before <= 6, `${count.queries() - before} queries`);
  });

  it('a key and a session created on another instance a moment ago are accepted at once', async () => {
    b.clock.advance(1_000);
    const created = await accountOnPlan(a, 'developer');
    const key = await get(b, '/api/v1/salary?country=DE&job=software-engineer', created.apiKey!);
    assert.equal(key.statusCode, 200, key.body);
    const session = await get(b, '/api/v1/account', created.session);
    assert.equal(session.statusCode, 200, session.body);
  });

  it('a session works on the instance that started it at once, and not after it expires', async () => {
    const created = await accountOnPlan(a, 'free');
    assert.equal((await get(a, '/api/v1/account', created.session)).statusCode, 200);
    a.clock.advance(SESSION_TTL_MS + 1);
    assert.equal((await get(a, '/api/v1/account', created.session)).statusCode, 401);
  });
});
