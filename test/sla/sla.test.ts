// The uptime SLA over the real API on a manual clock: real requests counted per 5-minute
// interval, failures made real by a database that stops answering (a fault seam in this test,
// not in the product), heartbeats of two instances on one database with a gap where both were
// down, month close run twice on both instances, credits checked to the cent.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ledger } from '../../src/billing/index.js';
import { listNotices } from '../../src/notices/index.js';
import { setContractBands } from '../../src/sla/index.js';
import type { AmbientTransaction, Db, Queryable } from '../../src/store/index.js';
import { accountOnPlan, ENTERPRISE_CONTRACT } from '../helpers/accounts.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { clonePglite } from '../helpers/db.js';

const MIN = 60_000;
const INTERVAL = 5 * MIN;
const ENV = { SLA_HEARTBEAT_SECONDS: '0', BILLING_INTERVAL_SECONDS: '86400' };

/** The database as the app sees it, made to refuse connections while `down` is set. */
function faultyDb(db: Db): Db & { down: boolean } {
  const refuse = () =>
    Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
  const wrapped = {
    down: false,
    kind: db.kind,
    query<T>(sql: string, params?: readonly unknown[]): Promise<T[]> {
      return wrapped.down ? Promise.reject(refuse()) : db.query<T>(sql, params);
    },
    transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
      return wrapped.down ? Promise.reject(refuse()) : db.transaction(fn);
    },
    begin(options?: { idleTimeoutMs?: number }): Promise<AmbientTransaction> {
      return wrapped.down ? Promise.reject(refuse()) : db.begin(options);
    },
    exec: (sql: string) => db.exec(sql),
    close: () => db.close(),
  };
  return wrapped;
}

describe('SLA: a Business account with 5xx in some intervals', () => {
  let t: TestApp;
  let faulty: Db & { down: boolean };
  let cleanup: () => Promise<void>;
  let business: { accountId: string; apiKey: string | null };
  let quiet: { accountId: string; apiKey: string | null };

  before(async () => {
    const owned = await clonePglite();
    cleanup = () => owned.cleanup();
    faulty = faultyDb(owned.db);
    // A Business day of 3 requests, so real 429s can be sent (they must not count).
    const env = { ...ENV, PLAN_OVERRIDES: '{"business":{"requestLimit":3}}' };
    t = await buildTestApp({ db: faulty, now: '2026-10-31T12:00:00Z', env });
    business = await accountOnPlan(t, 'business');
    quiet = await accountOnPlan(t, 'business');
  });
  after(async () => {
    await t.close();
    await cleanup();
  });

  const lookup = (key: string) =>
    t.app.inject({
      method: 'GET',
      url: '/api/v1/salary?country=DE&job=software-engineer',
      headers: { authorization: `Bearer ${key}` },
    });
  /** A request that needs the database: 503 while it is down. */
  const usage = (key: string) =>
    t.app.inject({
      method: 'GET',
      url: '/api/v1/usage',
      headers: { authorization: `Bearer ${key}` },
    });

  async function failIn(at: number, failures: number, successes = 0): Promise<void> {
    t.clock.set(at);
    const key = business.apiKey!;
    for (let i = 0; i < successes; i++) assert.equal((await lookup(key)).statusCode, 200);
    faulty.down = true;
    try {
      for (let i = 0; i < failures; i++) {
        const res = await usage(key);
        assert.equal(res.statusCode, 503, res.body);
        assert.ok(res.headers['retry-after'] !== undefined);
      }
    } finally {
      faulty.down = false;
    }
  }

  it('computes the month’s uptime and credits 10 % of the fee once, to the cent', async () => {
    // Announced on 1 November: maintenance on the 10th (9 days ahead, excluded) and on the
    // 15th, announced on the 14th (1 day ahead, counted).
    t.clock.set('2026-11-01T00:00:00Z');
    const early = await t.sla.status.scheduleMaintenance({
      title: 'Database upgrade',
      start: '2026-11-10T02:00:00Z',
      end: '2026-11-10T03:00:00Z',
    });
    assert.equal(early.excluded_from_sla, true);
    t.clock.set('2026-11-14T00:00:00Z');
    const late = await t.sla.status.scheduleMaintenance({
      title: 'Short-notice fix',
      start: '2026-11-15T02:00:00Z',
      end: '2026-11-15T03:00:00Z',
    });
    assert.equal(late.excluded_from_sla, false);

    // 12 failing intervals inside the announced window: excluded.
    for (let i = 0; i < 12; i++) await failIn(Date.parse('2026-11-10T02:00:00Z') + i * INTERVAL, 2);
    // 50 intervals entirely failed from 02:00 on the 15th (12 of them in the late window).
    for (let i = 0; i < 50; i++) await failIn(Date.parse('2026-11-15T02:00:00Z') + i * INTERVAL, 1);
    // 2 intervals half failed.
    await failIn(Date.parse('2026-11-20T10:00:00Z'), 1, 1);
    await failIn(Date.parse('2026-11-20T10:05:00Z'), 2, 2);
    // The day's 3 requests are spent: 429s in the same interval are neither failed nor counted
    // (counted as served they would make its error rate 2 of 7, not 50 %).
    t.clock.set(Date.parse('2026-11-20T10:06:00Z'));
    for (let i = 0; i < 3; i++) assert.equal((await lookup(business.apiKey!)).statusCode, 429);
    // Client errors and refusals in other intervals: not counted.
    t.clock.set('2026-11-21T10:00:00Z');
    const bad = await t.app.inject({
      method: 'GET',
      url: '/api/v1/salary?country=XX&job=software-engineer',
      headers: { authorization: `Bearer ${business.apiKey!}` },
    });
    assert.ok(bad.statusCode >= 400 && bad.statusCode < 500, String(bad.statusCode));
    const wrongKey = await lookup('sk_live_notakey');
    assert.equal(wrongKey.statusCode, 401);

    // The customer's view before month close: the intervals that counted as down.
    t.clock.set('2026-11-30T12:00:00Z');
    const report = await t.app.inject({
      method: 'GET',
      url: '/api/v1/sla',
      headers: { authorization: `Bearer ${business.apiKey!}` },
    });
    assert.equal(report.statusCode, 200, report.body);
    const body = report.json<{
      target_percent: number;
      current_month: {
        intervals: number;
        excluded: { maintenance: number };
        down: { error_rate_percent: number; reason: string }[];
      };
    }>();
    assert.equal(body.target_percent, 99.5);
    assert.equal(body.current_month.excluded.maintenance, 12);
    assert.equal(body.current_month.down.length, 52);
    assert.deepEqual(
      body.current_month.down
        .filter((d) => d.error_rate_percent !== 100)
        .map((d) => d.error_rate_percent),
      [50, 50],
    );

    // Month close, twice, an hour into December.
    await t.sla.counter.flush();
    t.clock.set('2026-12-01T01:00:00Z');
    const first = await t.sla.service.closeMonth();
    const second = await t.sla.service.closeMonth();
    assert.equal(second, undefined);
    assert.equal(first?.month, '2026-11');
    // 8640 intervals − 12 excluded = 8628; failed: 50 × 100 % + 2 × 50 % = 5100.
    const uptime = 100 - 5100 / 8628; // 99.4089…
    assert.deepEqual(
      first?.credits.map((c) => [c.accountId, c.cents]),
      [[business.accountId, 1990]],
    );
    assert.equal(first?.credits[0]?.uptime, Math.floor(uptime * 10_000) / 10_000);

    const lines = (await ledger(t.db, business.accountId)).filter((l) =>
      l.reason.startsWith('SLA'),
    );
    assert.deepEqual(
      lines.map((l) => [l.amountCents, l.reason]),
      [[1990, 'SLA credit, November 2026: uptime 99.4 % (target 99.5 %)']],
    );
    // No traffic at all: 100 %, nothing credited.
    assert.equal(
      (await ledger(t.db, quiet.accountId)).filter((l) => l.reason.startsWith('SLA')).length,
      0,
    );
    const notices = (await listNotices(t.db, business.accountId)).filter(
      (n) => n.kind === 'sla.credit_issued',
    );
    assert.equal(notices.length, 1);

    const after = await t.app.inject({
      method: 'GET',
      url: '/api/v1/sla',
      headers: { authorization: `Bearer ${quiet.apiKey!}` },
    });
    const months = after.json<{
      months: { month: string; uptime_percent: number; credit_cents: number }[];
    }>().months;
    assert.deepEqual(months, [
      {
        month: '2026-11',
        uptime_percent: 100,
        target_percent: 99.5,
        intervals: 8640 - 12,
        excluded_intervals: 12,
        down_intervals: 0,
        fee_cents: 19900,
        credit_percent: 0,
        credit_cents: 0,
      },
    ]);
  });

  it('keeps heartbeats and counts while the database is away and writes them late', async () => {
    t.clock.set('2026-12-02T10:00:00Z');
    faulty.down = true;
    try {
      for (let i = 0; i < 3; i++) {
        await assert.rejects(t.heartbeat.beat());
        t.clock.advance(5 * MIN);
      }
      assert.equal(t.heartbeat.buffered, 3);
      t.sla.counter.count(business.accountId, 200, t.clock.now());
      await assert.rejects(t.sla.counter.flush());
    } finally {
      faulty.down = false;
    }
    await t.heartbeat.beat();
    assert.equal(t.heartbeat.buffered, 0);
    const beats = await t.db.query<{ interval_start: Date; beats: number }>(
      "SELECT interval_start, beats FROM sla_heartbeats WHERE interval_start >= '2026-12-02' ORDER BY 1",
    );
    assert.deepEqual(
      beats.map((b) => [new Date(b.interval_start).toISOString().slice(11, 16), b.beats]),
      [
        ['10:00', 1],
        ['10:05', 1],
        ['10:10', 1],
        ['10:15', 1],
      ],
    );
    await t.sla.counter.flush();
    const counted = await t.db.query<{ served: string }>(
      "SELECT served FROM sla_intervals WHERE account_id = $1 AND interval_start = '2026-12-02T10:15:00Z'",
      [business.accountId],
    );
    assert.equal(Number(counted[0]?.served), 1);
  });

  it('shows the month’s intervals and refuses a future month and lower plans', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/v1/sla/intervals?month=2026-11',
      headers: { authorization: `Bearer ${business.apiKey!}` },
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json<{ down: unknown[] }>().down.length, 52);
    const future = await t.app.inject({
      method: 'GET',
      url: '/api/v1/sla/intervals?month=2027-01',
      headers: { authorization: `Bearer ${business.apiKey!}` },
    });
    assert.equal(future.statusCode, 400);
    assert.match(future.body, /must not be after the current month/);
    const malformed = await t.app.inject({
      method: 'GET',
      url: '/api/v1/sla/intervals?month=2026-13',
      headers: { authorization: `Bearer ${business.apiKey!}` },
    });
    assert.equal(malformed.statusCode, 400);
    const developer = await accountOnPlan(t, 'developer');
    const refused = await t.app.inject({
      method: 'GET',
      url: '/api/v1/sla',
      headers: { authorization: `Bearer ${developer.apiKey!}` },
    });
    assert.equal(refused.statusCode, 403);
    assert.equal(refused.json<{ required_plan: string }>().required_plan, 'business');
    const anonymous = await t.app.inject({ method: 'GET', url: '/api/v1/sla' });
    assert.equal(anonymous.statusCode, 401);
  });
});

describe('SLA: a total outage seen by two instances on one database', () => {
  let a: TestApp;
  let b: TestApp;
  let cleanup: () => Promise<void>;

  before(async () => {
    const owned = await clonePglite();
    cleanup = () => owned.cleanup();
    a = await buildTestApp({ db: owned.db, now: '2026-10-31T12:00:00Z', env: ENV });
    b = await buildTestApp({ db: owned.db, now: '2026-10-31T12:00:00Z', env: ENV });
  });
  after(async () => {
    await a.close();
    await b.close();
    await cleanup();
  });

  const both = (at: number) => {
    a.clock.set(at);
    b.clock.set(at);
  };

  it('counts the gap without heartbeats as down for an account that sent nothing, and credits once', async () => {
    const enterprise = await accountOnPlan(a, 'enterprise', {
      ...ENTERPRISE_CONTRACT,
      sla_percent: 99.95,
    });
    await setContractBands(
      a.db,
      enterprise.accountId,
      [
        { below: 99.95, percent: 20 },
        { below: 99, percent: 50 },
      ],
      a.clock.now(),
    );
    const business = await accountOnPlan(a, 'business');
    // Heartbeats from 30 November 00:00 (the first ever), every minute on both instances, except
    // from 06:00 to 08:00, when both were stopped.
    const start = Date.parse('2026-11-30T00:00:00Z');
    const stopped = [Date.parse('2026-11-30T06:00:00Z'), Date.parse('2026-11-30T08:00:00Z')];
    for (let at = start; at < Date.parse('2026-12-01T00:00:00Z'); at += 4 * MIN) {
      if (at >= stopped[0]! && at < stopped[1]!) continue;
      both(at);
      await Promise.all([a.heartbeat.beat(), b.heartbeat.beat()]);
    }
    // The status page shows the day's outage from the same measurements.
    both(Date.parse('2026-11-30T23:59:00Z'));
    const status = await b.app.inject({ method: 'GET', url: '/api/v1/status' });
    assert.equal(status.statusCode, 200);
    const day = status
      .json<{
        uptime: { daily: { date: string; uptime_percent: number; down_minutes: number }[] };
      }>()
      .uptime.daily.find((d) => d.date === '2026-11-30');
    assert.equal(day?.down_minutes, 120);

    both(Date.parse('2026-12-01T02:00:00Z'));
    const results = await Promise.all([a.sla.service.closeMonth(), b.sla.service.closeMonth()]);
    await Promise.all([a.sla.service.closeMonth(), b.sla.service.closeMonth()]);
    // Whichever instance held the run: 24 intervals of 8640 down → 99.7222 %.
    const credits = results.flatMap((r) => r?.credits ?? []);
    assert.deepEqual(
      credits.map((c) => [c.accountId, c.cents]).sort(),
      [
        [business.accountId, 0],
        [enterprise.accountId, 30_000],
      ]
        .filter(([, cents]) => cents !== 0)
        .sort(),
    );
    const lines = (await ledger(a.db, enterprise.accountId)).filter((l) =>
      l.reason.startsWith('SLA'),
    );
    assert.deepEqual(
      lines.map((l) => [l.amountCents, l.reason]),
      [[30_000, 'SLA credit, November 2026: uptime 99.72 % (target 99.95 %)']],
    );
    // Business at 99.5 %: 99.72 % is no miss.
    assert.equal(
      (await ledger(a.db, business.accountId)).filter((l) => l.reason.startsWith('SLA')).length,
      0,
    );
    const events = await a.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM events WHERE type = 'sla.credit_issued'",
    );
    assert.equal(events[0]?.n, 1);
  });
});
