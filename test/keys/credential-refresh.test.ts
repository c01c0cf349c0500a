import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { CredentialCache } from '../../src/keys/index.js';
import { systemClock } from '../../src/lib/clock.js';
import { DEFAULT_PLANS } from '../../src/plans/index.js';
import type { Db } from '../../src/store/index.js';
import { freshPostgres, postgresAvailable, type TestDb } from '../helpers/db.js';
import { freeAccount, operatorServices, upgrade, type Services } from '../redis/fixture.js';

const skip = !(await postgresAvailable()) && 'no PostgreSQL';

/**
 * The database as a second instance's credential cache sees it, with a plan change committed
 * by someone else at the worst moment once armed: just after the cache's next read of the
 * accounts has run, before it returns. A read of the keys made while that read is under way
 * waits for the change's commit, as one on another pooled connection may.
 */
function racingDb(db: Db, commitChange: () => Promise<void>) {
  let armed = false;
  let accountsRead: Promise<void> | undefined;
  const query: Db['query'] = async (sql, params) => {
    if (armed && /FROM accounts\b/.test(sql)) {
      armed = false;
      let done!: () => void;
      accountsRead = new Promise<void>((r) => (done = r));
      const rows = await db.query(sql, params);
      await commitChange();
      done();
      return rows as never;
    }
    if (/FROM api_keys\b/.test(sql)) await accountsRead;
    return db.query(sql, params);
  };
  return {
    db: { ...db, kind: db.kind, query } satisfies Db,
    arm() {
      armed = true;
      accountsRead = undefined;
    },
  };
}

describe('credential re-read beside a plan change on PostgreSQL', { skip }, () => {
  let pg: TestDb;
  let s: Services;

  before(async () => {
    pg = await freshPostgres();
    s = await operatorServices(pg.db, {});
  });
  after(async () => {
    await pg?.cleanup();
  });

  /** A Free account, and its move to Enterprise (which issues its first key) to run later. */
  async function upgradeToRun(email: string) {
    const { account } = await freeAccount(s, email);
    const upgraded: { apiKey?: string } = {};
    const run = async () => {
      upgraded.apiKey = (await upgrade(s, account.id, 'enterprise')).key;
    };
    return { upgrade: run, upgraded };
  }

  function cacheOver(db: Db) {
    return new CredentialCache({
      db,
      clock: systemClock,
      plans: DEFAULT_PLANS,
      logger: pino({ level: 'silent' }),
    });
  }

  it('a re-read never pairs the key a plan change issued with the account as it was', async () => {
    const { upgrade, upgraded } = await upgradeToRun('refresh@example.com');
    const racing = racingDb(pg.db, upgrade);
    const cache = cacheOver(racing.db);
    await cache.load();
    racing.arm();
    await cache.refresh();
    assert.ok(upgraded.apiKey !== undefined, 'the plan change committed during the re-read');
    assert.equal((await cache.resolve(upgraded.apiKey))?.plan.id, 'enterprise');
  });

  it('nor does the first load', async () => {
    const { upgrade, upgraded } = await upgradeToRun('load@example.com');
    const racing = racingDb(pg.db, upgrade);
    racing.arm();
    const cache = cacheOver(racing.db);
    await cache.load();
    assert.ok(upgraded.apiKey !== undefined, 'the plan change committed during the load');
    assert.equal((await cache.resolve(upgraded.apiKey))?.plan.id, 'enterprise');
  });
});
