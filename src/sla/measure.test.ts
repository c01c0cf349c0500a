import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  INTERVAL_MS,
  businessBands,
  creditCents,
  creditPercent,
  enterpriseBands,
  formatPercent,
  maintenanceIntervals,
  measure,
  parseBands,
  statusClass,
  type IntervalCounts,
  type MeasureInputs,
} from './measure.js';

const DAY = 86_400_000;
const NOV = Date.UTC(2026, 10, 1);
const DEC = Date.UTC(2026, 11, 1);
const at = (iso: string) => Date.parse(iso);

function inputs(over: Partial<MeasureInputs> = {}): MeasureInputs {
  return {
    from: NOV,
    until: DEC,
    counts: new Map(),
    alive: new Set(),
    heartbeatsFrom: null,
    probes: new Map(),
    maintenance: [],
    ...over,
  };
}

describe('statusClass', () => {
  it('counts 500/502/503/504 and answers after 30 s as failed, 429/402 as refused, 4xx not at all', () => {
    const table: [number, number, string | undefined][] = [
      [200, 0, 'served'],
      [304, 0, 'served'],
      [500, 0, 'failed'],
      [502, 0, 'failed'],
      [503, 0, 'failed'],
      [504, 0, 'failed'],
      [501, 0, undefined],
      [200, 30_000, 'failed'],
      [200, 29_999, 'served'],
      [429, 0, 'refused'],
      [402, 0, 'refused'],
      [400, 0, undefined],
      [401, 0, undefined],
      [403, 0, undefined],
      [404, 0, undefined],
    ];
    for (const [status, ms, expected] of table)
      assert.equal(statusClass(status, ms), expected, `${status} after ${ms} ms`);
  });
});

describe('measure', () => {
  it('a month without requests is 100 %', () => {
    const m = measure(inputs());
    assert.equal(m.intervals, 8640);
    assert.equal(m.uptime, 100);
  });

  it('averages the intervals’ error rates over the month', () => {
    const counts = new Map<number, IntervalCounts>([
      [NOV, { served: 3, failed: 1, refused: 0 }],
      [NOV + INTERVAL_MS, { served: 0, failed: 2, refused: 0 }],
    ]);
    const m = measure(inputs({ counts }));
    assert.equal(m.down.length, 2);
    assert.equal(m.down[0]!.errorRate, 25);
    assert.equal(m.uptime, 100 - 125 / 8640);
  });

  it('an interval with no instance alive (after the first heartbeat) is 100 % down without requests', () => {
    const alive = new Set<number>();
    for (let t = NOV; t < DEC; t += INTERVAL_MS) alive.add(t);
    alive.delete(NOV + 10 * INTERVAL_MS);
    const m = measure(inputs({ alive, heartbeatsFrom: NOV }));
    assert.deepEqual(
      m.down.map((d) => [d.start, d.reason, d.errorRate]),
      [[NOV + 10 * INTERVAL_MS, 'no_instance_alive', 100]],
    );
    // Before the first heartbeat nothing is judged by heartbeats.
    assert.equal(measure(inputs({ alive: new Set(), heartbeatsFrom: DEC })).down.length, 0);
  });

  it('an interval where the probe failed throughout is down; one success in it is not', () => {
    const probes = new Map([
      [NOV, { ok: 0, failed: 10 }],
      [NOV + INTERVAL_MS, { ok: 1, failed: 9 }],
    ]);
    const m = measure(inputs({ probes }));
    assert.deepEqual(
      m.down.map((d) => d.reason),
      ['probe_failed'],
    );
  });

  it('excludes intervals where the account’s requests were only refused for its own reasons', () => {
    const counts = new Map<number, IntervalCounts>([
      [NOV, { served: 0, failed: 0, refused: 40 }],
      [NOV + INTERVAL_MS, { served: 1, failed: 1, refused: 40 }],
    ]);
    const m = measure(inputs({ counts }));
    assert.equal(m.excluded.ownReasons, 1);
    assert.equal(m.intervals, 8639);
    assert.equal(m.uptime, 100 - 50 / 8639);
  });
});

describe('maintenance', () => {
  it('excludes whole intervals of windows announced at least 5 days ahead, at most 4 hours a month', () => {
    const start = at('2026-11-10T02:00:00Z');
    const announcedEarly = start - 5 * DAY;
    const announcedLate = start - 5 * DAY + 1;
    assert.equal(
      maintenanceIntervals([{ start, end: start + 3_600_000, announcedAt: announcedEarly }]).size,
      12,
    );
    assert.equal(
      maintenanceIntervals([{ start, end: start + 3_600_000, announcedAt: announcedLate }]).size,
      0,
    );
    // Six hours announced: four are excluded, the first four.
    const six = maintenanceIntervals([
      { start, end: start + 6 * 3_600_000, announcedAt: announcedEarly },
    ]);
    assert.equal(six.size, 48);
    assert.ok(six.has(start) && !six.has(start + 4 * 3_600_000));
    // A window starting mid-interval excludes only the whole intervals inside it.
    assert.equal(
      maintenanceIntervals([
        { start: start + 60_000, end: start + 11 * 60_000, announcedAt: announcedEarly },
      ]).size,
      1,
    );
  });
});

describe('credit bands', () => {
  it('Business: below 99.5 → 10 %, below 99.0 → 25 %, below 95.0 → 50 %', () => {
    const bands = businessBands(99.5);
    const table: [number, number][] = [
      [100, 0],
      [99.5, 0],
      [99.49, 10],
      [99.0, 10],
      [98.99, 25],
      [95.0, 25],
      [94.99, 50],
      [0, 50],
    ];
    for (const [uptime, percent] of table) assert.equal(creditPercent(uptime, bands), percent);
  });

  it('Enterprise: below the figure → 10 %, below 99.0 → 25 %, below 95.0 → 100 %', () => {
    const bands = enterpriseBands(99.95);
    const table: [number, number][] = [
      [99.95, 0],
      [99.94, 10],
      [98.9, 25],
      [94.9, 100],
    ];
    for (const [uptime, percent] of table) assert.equal(creditPercent(uptime, bands), percent);
  });

  it('contract bands parse, and a credit never exceeds the fee', () => {
    assert.deepEqual(parseBands('99:25, 99.95:10,95:100'), [
      { below: 99.95, percent: 10 },
      { below: 99, percent: 25 },
      { below: 95, percent: 100 },
    ]);
    assert.match(parseBands('99.9') as string, /BELOW:PERCENT/);
    assert.match(parseBands('99.9:150') as string, /percentage of the fee/);
    assert.equal(creditCents(19_900, 10), 1990);
    assert.equal(creditCents(4_999, 25), 1250);
    assert.equal(creditCents(150_000, 100), 150_000);
    assert.equal(creditCents(150_000, 120), 150_000);
  });

  it('prints uptime rounded down, so a miss never prints as the target', () => {
    assert.equal(formatPercent(99.4999), '99.49 %');
    assert.equal(formatPercent(99.5), '99.5 %');
    assert.equal(formatPercent(100), '100 %');
  });
});
