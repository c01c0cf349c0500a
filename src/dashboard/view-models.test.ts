import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { UsageQuota, UsageRow } from '../usage/index.js';
import {
  DAY,
  HOUR,
  overview,
  projectQuota,
  statusClass,
  summarize,
  usageCsv,
  usageTable,
} from './view-models.js';

const NOW = Date.parse('2026-11-22T10:15:00Z');
const row = (
  hour: string,
  status: number,
  count: number,
  extra: Partial<UsageRow> = {},
): UsageRow => ({
  accountId: 'acct_1',
  keyId: 'key_1',
  endpoint: 'GET /api/v1/salary',
  status,
  hour: Date.parse(hour),
  count,
  ...extra,
});
const dayQuota = (used: number, limit = 1000): UsageQuota => ({
  limit,
  used,
  remaining: limit - used,
  window: 'day',
  resets_at: '2026-11-23T00:00:00.000Z',
});

describe('statusClass', () => {
  for (const [status, expected] of [
    [200, '2xx'],
    [204, '2xx'],
    [301, 'other'],
    [400, '4xx'],
    [403, '4xx'],
    [429, '429'],
    [500, '5xx'],
    [503, '5xx'],
  ] as const) {
    it(`puts ${status} in ${expected}`, () => assert.equal(statusClass(status), expected));
  }
});

describe('summarize', () => {
  it('counts rows from the window start on, by class, with the error rate', () => {
    const rows = [
      row('2026-11-21T10:00:00Z', 200, 100), // 24 hours before the current hour's end: out
      row('2026-11-21T11:00:00Z', 200, 6),
      row('2026-11-22T10:00:00Z', 429, 2),
      row('2026-11-22T10:00:00Z', 500, 1),
      row('2026-11-22T10:00:00Z', 404, 1),
    ];
    const s = summarize('24h', rows, Date.parse('2026-11-22T11:00:00Z') - DAY);
    assert.equal(s.total, 10);
    assert.deepEqual(s.byClass, { '2xx': 6, '4xx': 1, '429': 2, '5xx': 1, other: 0 });
    assert.equal(s.errorRate, 0.4);
  });
  it('has no error rate without requests', () => {
    assert.equal(summarize('x', [], 0).errorRate, null);
  });
});

describe('projectQuota', () => {
  it('projects the time the limit is reached at the pace of the day so far', () => {
    // 10:15 into the day, 615 used: 60 per hour; 385 left → about 6.4 hours → 16:40.
    const p = projectQuota(dayQuota(615), NOW);
    assert.equal(p.kind, 'before-reset');
    assert.ok(p.kind === 'before-reset');
    assert.equal(p.pacePerHour, 60);
    assert.equal(new Date(p.at).toISOString(), '2026-11-22T16:40:00.000Z');
  });
  it('says how many are used by the reset when the pace does not reach the limit', () => {
    const p = projectQuota(dayQuota(205), NOW); // 20 per hour, 13.75 h left → 480 by midnight
    assert.deepEqual(p, { kind: 'after-reset', expectedAtReset: 480, pacePerHour: 20 });
  });
  it('measures the pace over at least 15 minutes', () => {
    const start = Date.parse('2026-11-22T00:01:00Z');
    const p = projectQuota(dayQuota(10), start); // 10 in 1 minute is not 600 per hour
    assert.ok(p.kind === 'after-reset');
    assert.equal(p.pacePerHour, 40);
  });
  it('knows a reached, an idle and an unlimited quota', () => {
    assert.deepEqual(projectQuota(dayQuota(1000), NOW), { kind: 'reached' });
    assert.deepEqual(projectQuota(dayQuota(0), NOW), { kind: 'idle' });
    assert.deepEqual(
      projectQuota(
        { limit: null, used: null, remaining: null, window: null, resets_at: null },
        NOW,
      ),
      { kind: 'unlimited' },
    );
  });
  it('uses the hour as the window of an hourly quota', () => {
    const p = projectQuota(
      {
        limit: 100,
        used: 50,
        remaining: 50,
        window: 'hour',
        resets_at: '2026-11-22T11:00:00.000Z',
      },
      NOW,
    );
    // 50 in 15 minutes: the other 50 in 15 more.
    assert.ok(p.kind === 'before-reset');
    assert.equal(new Date(p.at).toISOString(), '2026-11-22T10:30:00.000Z');
  });
});

describe('overview', () => {
  it('has 24 hourly and 30 daily points ending with the current hour and day', () => {
    const hourly = [row('2026-11-22T10:00:00Z', 200, 3), row('2026-11-21T11:00:00Z', 429, 2)];
    const daily = [
      row('2026-11-22T00:00:00Z', 200, 3),
      row('2026-11-21T00:00:00Z', 429, 2),
      row('2026-11-16T00:00:00Z', 500, 4), // the seventh UTC day back, today included
      row('2026-11-15T00:00:00Z', 200, 6),
      row('2026-10-24T00:00:00Z', 200, 5, { endpoint: 'GET /api/v1/countries' }),
    ];
    const view = overview(hourly, daily, dayQuota(3), NOW);
    assert.equal(view.hourly.length, 24);
    assert.equal(view.hourly[0]?.start, Date.parse('2026-11-21T11:00:00Z'));
    assert.equal(view.hourly[0]?.byClass['429'], 2);
    assert.equal(view.hourly.at(-1)?.start, Date.parse('2026-11-22T10:00:00Z'));
    assert.equal(view.hourly.at(-1)?.byClass['2xx'], 3);
    assert.equal(view.daily.length, 30);
    assert.equal(view.daily[0]?.start, Date.parse('2026-10-24T00:00:00Z'));
    assert.equal(view.daily[0]?.byClass['2xx'], 5);
    assert.deepEqual(
      view.windows.map((w) => w.total),
      [5, 9, 20],
    );
    assert.deepEqual(view.endpoints, [
      { endpoint: 'GET /api/v1/salary', total: 15, errors: 6 },
      { endpoint: 'GET /api/v1/countries', total: 5, errors: 0 },
    ]);
  });
});

describe('usageTable and usageCsv', () => {
  const from = Date.parse('2026-11-20T00:00:00Z');
  const to = Date.parse('2026-11-23T00:00:00Z');
  it('has one row per bucket and one column per group, busiest first, with totals', () => {
    const rows = [
      row('2026-11-20T05:00:00Z', 200, 2, { keyId: 'key_a' }),
      row('2026-11-22T05:00:00Z', 200, 5, { keyId: 'key_b' }),
      row('2026-11-22T06:00:00Z', 400, 1, { keyId: '' }),
      row('2026-11-23T00:00:00Z', 200, 9), // after the range
    ];
    const table = usageTable(rows, { from, to, step: DAY, breakdown: 'key' }, (_b, v) =>
      v === '' ? 'session' : v,
    );
    assert.deepEqual(table.groups, ['key_b', 'key_a', 'session']);
    assert.deepEqual(
      table.rows.map((r) => r.counts),
      [
        [0, 2, 0],
        [0, 0, 0],
        [5, 0, 1],
      ],
    );
    assert.deepEqual(table.totals, [5, 2, 1]);
    assert.equal(table.total, 8);
    assert.equal(
      usageCsv(table),
      'start_utc,key_b,key_a,session,total\r\n' +
        '2026-11-20T00:00:00.000Z,0,2,0,2\r\n' +
        '2026-11-21T00:00:00.000Z,0,0,0,0\r\n' +
        '2026-11-22T00:00:00.000Z,5,0,1,6\r\n',
    );
  });
  it('sums the groups after the seventh under "other"', () => {
    const rows = Array.from({ length: 10 }, (_, i) =>
      row('2026-11-20T00:00:00Z', 200, 10 - i, { endpoint: `GET /e${i}` }),
    );
    const table = usageTable(rows, { from, to, step: HOUR, breakdown: 'endpoint' }, (_b, v) => v);
    assert.equal(table.groups.length, 8);
    assert.equal(table.groups.at(-1), 'other');
    assert.equal(table.totals.at(-1), 3 + 2 + 1);
    assert.equal(table.rows.length, 72);
  });
  it('keeps the status classes in their order and quotes and defuses CSV cells', () => {
    const rows = [row('2026-11-20T00:00:00Z', 500, 1), row('2026-11-20T00:00:00Z', 200, 4)];
    assert.deepEqual(
      usageTable(rows, { from, to, step: DAY, breakdown: 'class' }, (_b, v) => v).groups,
      ['2xx', '5xx'],
    );
    const named = usageTable(
      [row('2026-11-20T00:00:00Z', 200, 1, { keyId: 'k' })],
      { from, to, step: DAY, breakdown: 'key' },
      () => '=HYPERLINK("x"),y',
    );
    assert.match(usageCsv(named), /^start_utc,"'=HYPERLINK\(""x""\),y",total\r\n/);
  });
});
