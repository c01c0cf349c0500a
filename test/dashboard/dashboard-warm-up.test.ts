import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, describe, it } from 'node:test';
import pino from 'pino';
import { warmUp, warmUpOverview, WARM_UP_ACCOUNT } from '../../src/dashboard/warm-up.js';
import { MemoryRateLimiter } from '../../src/limits/index.js';
import type { Db } from '../../src/store/index.js';
import { createUsageService } from '../../src/usage/index.js';
import { addUsage } from '../../src/usage/repo.js';
import { accountOnPlan } from '../helpers/accounts.js';
import { buildTestApp } from '../helpers/app.js';
import { clonePglite } from '../helpers/db.js';

/** A logger at debug whose lines are kept. */
function capturingLogger(): { logger: pino.Logger; lines: { level: number; msg: string }[] } {
  const lines: { level: number; msg: string }[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)) as { level: number; msg: string });
      done();
    },
  });
  return { logger: pino({ level: 'debug' }, stream), lines };
}

/** Records every statement sent to `db` and its parameters; `fail` makes matching ones throw. */
function recording(db: Db, fail?: (sql: string, params: readonly unknown[]) => boolean) {
  const statements: { sql: string; params: readonly unknown[] }[] = [];
  const original = db.query.bind(db);
  db.query = (sql: string, params: readonly unknown[] = []) => {
    statements.push({ sql, params });
    if (fail?.(sql, params) === true) return Promise.reject(new Error('the database went away'));
    return original(sql, params);
  };
  return statements;
}

const byWarmUp = (s: { params: readonly unknown[] }) => s.params.includes(WARM_UP_ACCOUNT);

async function rowCounts(db: Db): Promise<Map<string, number>> {
  const tables = await db.query<{ name: string }>(
    `SELECT table_name AS name FROM information_schema.tables
     WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY 1`,
  );
  const counts = new Map<string, number>();
  for (const { name } of tables) {
    const [row] = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${name}"`);
    counts.set(name, row?.n ?? -1);
  }
  return counts;
}

describe('dashboard warm-up at start-up', () => {
  const closing: (() => Promise<void>)[] = [];
  after(async () => {
    for (const close of closing) await close();
  });

  it('builds the overview before the server is ready, with reads only', async () => {
    const owned = await clonePglite();
    const db = owned.db;
    const statements = recording(db);
    const { logger, lines } = capturingLogger();
    const t = await buildTestApp({ db, logger });
    closing.push(() => t.close().then(() => owned.cleanup()));

    const warm = statements.filter(byWarmUp);
    // The overview's reads: the last 24 hours per hour and the last 30 days per day.
    assert.equal(warm.filter((s) => s.sql.includes('usage_hourly_by_column')).length, 1);
    assert.equal(warm.filter((s) => s.sql.includes('usage_daily')).length, 1);
    for (const { sql } of warm) assert.match(sql.trim(), /^SELECT\b/);
    for (const { sql } of warm) assert.doesNotMatch(sql, /\b(INSERT|UPDATE|DELETE|UPSERT)\b/i);
    assert.ok(lines.some((l) => l.msg === 'dashboard warmed up'));
    assert.ok(!lines.some((l) => l.level >= 40 && /warm-up/.test(l.msg)));
  });

  it('changes no row (the warm-up run again on a database with usage)', async () => {
    const t = await buildTestApp({ now: '2026-11-22T10:15:00Z' });
    closing.push(() => t.close());
    const account = await accountOnPlan(t, 'business');
    await addUsage(t.db, [
      {
        accountId: account.accountId,
        keyId: '',
        endpoint: 'GET /api/v1/salary',
        status: 200,
        hour: Date.parse('2026-11-22T09:00:00Z'),
        count: 3,
      },
    ]);
    const before = await rowCounts(t.db);
    assert.ok(before.size > 10, 'the schema is listed');
    const statements = recording(t.db);
    const plans = t.services.plans;
    await warmUpOverview({
      plans,
      clock: t.clock,
      usage: createUsageService({
        db: t.db,
        clock: t.clock,
        limiter: new MemoryRateLimiter(),
        recorder: t.recorder,
        plans,
      }),
    });
    assert.ok(statements.length >= 2);
    for (const { sql } of statements) assert.doesNotMatch(sql, /\b(INSERT|UPDATE|DELETE)\b/i);
    assert.deepEqual(await rowCounts(t.db), before);
  });

  it('does not fail start-up when its reads fail: logged at warn, the dashboard still works', async () => {
    const owned = await clonePglite();
    const db = owned.db;
    recording(db, (_sql, params) => params.includes(WARM_UP_ACCOUNT));
    const { logger, lines } = capturingLogger();
    const t = await buildTestApp({ db, logger, now: '2026-11-22T10:15:00Z' });
    closing.push(() => t.close().then(() => owned.cleanup()));

    const failed = lines.find((l) => /warm-up failed/.test(l.msg));
    assert.equal(failed?.level, 40);
    const account = await accountOnPlan(t, 'business');
    const res = await t.app.inject({
      url: '/dashboard',
      headers: { cookie: `salary_session=${account.session}` },
    });
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /id="plan"/);
  });

  it('start-up goes on past the time limit', async () => {
    const { logger, lines } = capturingLogger();
    const started = Date.now();
    await warmUp(logger, () => new Promise(() => undefined), 50);
    assert.ok(Date.now() - started < 1000);
    assert.equal(lines.find((l) => /still running/.test(l.msg))?.level, 40);
  });
});
