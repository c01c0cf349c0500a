import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addMonthsAnchored, cycleAt } from './cycle.js';

const ms = (iso: string): number => Date.parse(iso);
const iso = (t: number): string => new Date(t).toISOString();

describe('addMonthsAnchored', () => {
  const cases: [anchor: string, months: number, expected: string][] = [
    // A 31st anchor through a non-leap year and into the next.
    ['2025-01-31T10:00:00.000Z', 0, '2025-01-31T10:00:00.000Z'],
    ['2025-01-31T10:00:00.000Z', 1, '2025-02-28T10:00:00.000Z'],
    ['2025-01-31T10:00:00.000Z', 2, '2025-03-31T10:00:00.000Z'],
    ['2025-01-31T10:00:00.000Z', 3, '2025-04-30T10:00:00.000Z'],
    ['2025-01-31T10:00:00.000Z', 4, '2025-05-31T10:00:00.000Z'],
    ['2025-01-31T10:00:00.000Z', 5, '2025-06-30T10:00:00.000Z'],
    ['2025-01-31T10:00:00.000Z', 6, '2025-07-31T10:00:00.000Z'],
    ['2025-01-31T10:00:00.000Z', 7, '2025-08-31T10:00:00.000Z'],
    ['2025-01-31T10:00:00.000Z', 8, '2025-09-30T10:00:00.000Z'],
    ['2025-01-31T10:00:00.000Z', 9, '2025-10-31T10:00:00.000Z'],
    ['2025-01-31T10:00:00.000Z', 10, '2025-11-30T10:00:00.000Z'],
    ['2025-01-31T10:00:00.000Z', 11, '2025-12-31T10:00:00.000Z'],
    ['2025-01-31T10:00:00.000Z', 12, '2026-01-31T10:00:00.000Z'],
    ['2025-01-31T10:00:00.000Z', 13, '2026-02-28T10:00:00.000Z'],
    // Leap years: February 29 when it exists, including the century rule.
    ['2024-01-31T10:00:00.000Z', 1, '2024-02-29T10:00:00.000Z'],
    ['2024-01-31T10:00:00.000Z', 2, '2024-03-31T10:00:00.000Z'],
    ['2099-12-31T10:00:00.000Z', 2, '2100-02-28T10:00:00.000Z'],
    ['1999-12-31T10:00:00.000Z', 2, '2000-02-29T10:00:00.000Z'],
    // Feb 29 anchor across four years.
    ['2028-02-29T12:34:56.789Z', 1, '2028-03-29T12:34:56.789Z'],
    ['2028-02-29T12:34:56.789Z', 11, '2029-01-29T12:34:56.789Z'],
    ['2028-02-29T12:34:56.789Z', 12, '2029-02-28T12:34:56.789Z'],
    ['2028-02-29T12:34:56.789Z', 13, '2029-03-29T12:34:56.789Z'],
    ['2028-02-29T12:34:56.789Z', 24, '2030-02-28T12:34:56.789Z'],
    ['2028-02-29T12:34:56.789Z', 36, '2031-02-28T12:34:56.789Z'],
    ['2028-02-29T12:34:56.789Z', 47, '2032-01-29T12:34:56.789Z'],
    ['2028-02-29T12:34:56.789Z', 48, '2032-02-29T12:34:56.789Z'],
    // Days 29 and 30 clamp too.
    ['2025-01-30T00:00:00.000Z', 1, '2025-02-28T00:00:00.000Z'],
    ['2025-01-30T00:00:00.000Z', 2, '2025-03-30T00:00:00.000Z'],
    ['2025-01-29T00:00:00.000Z', 1, '2025-02-28T00:00:00.000Z'],
    ['2025-01-28T00:00:00.000Z', 1, '2025-02-28T00:00:00.000Z'],
    // The last millisecond of a day never spills into the next day or month.
    ['2025-01-31T23:59:59.999Z', 1, '2025-02-28T23:59:59.999Z'],
    ['2025-12-31T23:59:59.999Z', 1, '2026-01-31T23:59:59.999Z'],
    ['2025-12-31T23:59:59.999Z', 2, '2026-02-28T23:59:59.999Z'],
    ['2023-12-31T23:59:59.999Z', 2, '2024-02-29T23:59:59.999Z'],
    ['2025-03-01T00:00:00.000Z', 1, '2025-04-01T00:00:00.000Z'],
    // Negative months and instants before 1970.
    ['2025-03-31T10:00:00.000Z', -1, '2025-02-28T10:00:00.000Z'],
    ['2025-01-31T10:00:00.000Z', -2, '2024-11-30T10:00:00.000Z'],
    ['1969-12-31T23:59:59.999Z', 2, '1970-02-28T23:59:59.999Z'],
    // Years below 100 are not shifted into the 1900s.
    ['0050-01-31T10:00:00.000Z', 1, '0050-02-28T10:00:00.000Z'],
  ];
  for (const [anchor, months, expected] of cases) {
    it(`${anchor} + ${months} → ${expected}`, () => {
      assert.equal(iso(addMonthsAnchored(ms(anchor), months)), expected);
    });
  }

  it('counts from the anchor, not from the previous period', () => {
    const anchor = ms('2025-01-31T10:00:00.000Z');
    const chained = addMonthsAnchored(addMonthsAnchored(anchor, 1), 1);
    assert.equal(iso(chained), '2025-03-28T10:00:00.000Z');
    assert.equal(iso(addMonthsAnchored(anchor, 2)), '2025-03-31T10:00:00.000Z');
  });

  it('rejects fractional months and non-integer or unrepresentable instants', () => {
    assert.throws(() => addMonthsAnchored(0, 1.5), RangeError);
    assert.throws(() => addMonthsAnchored(Number.NaN, 1), RangeError);
    assert.throws(() => addMonthsAnchored(0.5, 1), RangeError);
    assert.throws(() => addMonthsAnchored(8.64e15, 1), RangeError);
  });
});

describe('cycleAt', () => {
  const anchor = ms('2025-01-31T10:00:00.000Z');
  const cases: [at: string, index: number, start: string, end: string][] = [
    ['2025-01-31T10:00:00.000Z', 0, '2025-01-31T10:00:00.000Z', '2025-02-28T10:00:00.000Z'],
    ['2025-02-28T09:59:59.999Z', 0, '2025-01-31T10:00:00.000Z', '2025-02-28T10:00:00.000Z'],
    // The end is exclusive: its instant opens the next period.
    ['2025-02-28T10:00:00.000Z', 1, '2025-02-28T10:00:00.000Z', '2025-03-31T10:00:00.000Z'],
    // Earlier in the month than the anchor's day: the period began the month before.
    ['2025-03-15T00:00:00.000Z', 1, '2025-02-28T10:00:00.000Z', '2025-03-31T10:00:00.000Z'],
    ['2025-03-31T09:59:59.999Z', 1, '2025-02-28T10:00:00.000Z', '2025-03-31T10:00:00.000Z'],
    ['2025-03-31T10:00:00.000Z', 2, '2025-03-31T10:00:00.000Z', '2025-04-30T10:00:00.000Z'],
    ['2025-05-01T00:00:00.000Z', 3, '2025-04-30T10:00:00.000Z', '2025-05-31T10:00:00.000Z'],
    ['2026-01-01T00:00:00.000Z', 11, '2025-12-31T10:00:00.000Z', '2026-01-31T10:00:00.000Z'],
    ['2035-01-31T10:00:00.000Z', 120, '2035-01-31T10:00:00.000Z', '2035-02-28T10:00:00.000Z'],
    ['2035-01-31T09:59:59.999Z', 119, '2034-12-31T10:00:00.000Z', '2035-01-31T10:00:00.000Z'],
  ];
  for (const [at, index, start, end] of cases) {
    it(`${at} → #${index} [${start}, ${end})`, () => {
      const cycle = cycleAt(anchor, ms(at));
      assert.deepEqual(
        { index: cycle.index, start: iso(cycle.start), end: iso(cycle.end) },
        { index, start, end },
      );
    });
  }

  it('handles an anchor at the last millisecond of a year', () => {
    const lastMs = ms('2025-12-31T23:59:59.999Z');
    assert.deepEqual(cycleAt(lastMs, ms('2026-01-01T00:00:00.000Z')), {
      index: 0,
      start: lastMs,
      end: ms('2026-01-31T23:59:59.999Z'),
    });
    assert.equal(cycleAt(lastMs, ms('2026-02-28T23:59:59.998Z')).index, 1);
    assert.equal(cycleAt(lastMs, ms('2026-02-28T23:59:59.999Z')).index, 2);
  });

  it('agrees with addMonthsAnchored at both edges of distant periods', () => {
    for (const months of [1, 13, 47, 48, 120, 1200]) {
      const start = addMonthsAnchored(anchor, months);
      const end = addMonthsAnchored(anchor, months + 1);
      assert.deepEqual(cycleAt(anchor, start), { index: months, start, end });
      assert.deepEqual(cycleAt(anchor, end - 1), { index: months, start, end });
      assert.deepEqual(cycleAt(anchor, end), {
        index: months + 1,
        start: end,
        end: addMonthsAnchored(anchor, months + 2),
      });
    }
  });

  it('matches walking period by period from a Feb 29 anchor, for every 7 hours of 5 years', () => {
    const leapAnchor = ms('2028-02-29T23:59:59.999Z');
    const step = 7 * 3600_000 + 1;
    let index = 0;
    let checked = 0;
    for (let at = leapAnchor; at < ms('2033-03-02T00:00:00.000Z'); at += step) {
      while (addMonthsAnchored(leapAnchor, index + 1) <= at) index += 1;
      const cycle = cycleAt(leapAnchor, at);
      assert.equal(cycle.index, index, `at ${iso(at)}`);
      assert.equal(cycle.start, addMonthsAnchored(leapAnchor, index));
      assert.equal(cycle.end, addMonthsAnchored(leapAnchor, index + 1));
      checked += 1;
    }
    assert.equal(index, 60);
    assert.ok(checked > 6000);
  });

  it('rejects an instant before the anchor', () => {
    assert.throws(() => cycleAt(anchor, anchor - 1), RangeError);
    assert.throws(() => cycleAt(anchor, Number.NaN), RangeError);
  });
});
