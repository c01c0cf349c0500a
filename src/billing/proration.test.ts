import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cycleAt, type Period } from './cycle.js';
import { prorate, unusedFraction, upgradeCharge } from './proration.js';

const DAY = 86_400_000;
const START = Date.parse('2025-03-01T00:00:00.000Z');
const days = (n: number) => ({ start: START, end: START + n * DAY });
// "Day 10 of 30" means 10 whole days have elapsed: the change happens at start + 10 days.
const afterDays = (n: number) => START + n * DAY;

describe('unusedFraction', () => {
  const cases: [label: string, at: number, expected: number][] = [
    ['at the start', afterDays(0), 1],
    ['before the start', afterDays(0) - 1, 1],
    ['after 10 of 30 days', afterDays(10), 2 / 3],
    ['halfway', afterDays(15), 0.5],
    ['1 ms before the end', afterDays(30) - 1, 1 / (30 * DAY)],
    ['at the end', afterDays(30), 0],
    ['after the end', afterDays(31), 0],
  ];
  for (const [label, at, expected] of cases) {
    it(`${label} → ${expected}`, () => {
      assert.equal(unusedFraction(days(30), at), expected);
    });
  }

  it('rejects empty, inverted and fractional periods', () => {
    assert.throws(() => unusedFraction({ start: START, end: START }, START), RangeError);
    assert.throws(() => unusedFraction({ start: START, end: START - 1 }, START), RangeError);
    assert.throws(() => unusedFraction({ start: START, end: START + 0.5 }, START), RangeError);
  });
});

describe('prorate', () => {
  const twoMs = { start: START, end: START + 2 };
  const threeMs = { start: START, end: START + 3 };
  // 25 × 1,403,136,000 / 2,419,200,000 is exactly 14.5; 25 × (1,403,136,000 / 2,419,200,000) in
  // floats is 14.499999999999998.
  const floatTrap = { start: START, end: START + 28 * DAY };
  const floatTrapAt = floatTrap.end - 1_403_136_000;
  const cases: [label: string, amount: number, period: Period, at: number, expected: number][] = [
    ['15000 after 10 of 30 days', 15000, days(30), afterDays(10), 10000],
    ['15000 after 9 of 30 days', 15000, days(30), afterDays(9), 10500],
    ['15000 after 7 of 31 days (11612.90…)', 15000, days(31), afterDays(7), 11613],
    ['credit −15000 after 7 of 31 days', -15000, days(31), afterDays(7), -11613],
    ['15000 after 1 of 31 days (14516.12…)', 15000, days(31), afterDays(1), 14516],
    ['credit −15000 after 1 of 31 days', -15000, days(31), afterDays(1), -14516],
    ['1 × 1/2 rounds up', 1, twoMs, START + 1, 1],
    ['−1 × 1/2 rounds down', -1, twoMs, START + 1, -1],
    ['3 × 1/2 rounds up', 3, twoMs, START + 1, 2],
    ['−3 × 1/2 rounds down', -3, twoMs, START + 1, -2],
    ['1 × 1/3 rounds to zero', 1, threeMs, START + 2, 0],
    ['−1 × 1/3 rounds to +0, not −0', -1, threeMs, START + 2, 0],
    ['−1 × 2/3 rounds to −1', -1, threeMs, START + 1, -1],
    ['an exact half the float product misses', 25, floatTrap, floatTrapAt, 15],
    ['its credit mirror', -25, floatTrap, floatTrapAt, -15],
    ['€10M after 7 days + 1 ms of 31', 1_000_000_000, days(31), afterDays(7) + 1, 774_193_548],
    ['zero amount', 0, days(30), afterDays(10), 0],
    ['at the start: everything', 4900, days(30), afterDays(0), 4900],
    ['at the end: nothing', 4900, days(30), afterDays(30), 0],
    ['credit at the end: +0', -4900, days(30), afterDays(30), 0],
  ];
  for (const [label, amount, period, at, expected] of cases) {
    it(`${label} → ${expected}`, () => {
      assert.equal(prorate(amount, period, at), expected);
    });
  }

  it('rejects fractional cents and instants', () => {
    assert.throws(() => prorate(0.5, days(30), START), RangeError);
    assert.throws(() => prorate(100, days(30), START + 0.5), RangeError);
    assert.throws(() => prorate(100, days(30), Number.NaN), RangeError);
  });
});

describe('upgradeCharge', () => {
  const cases: [
    label: string,
    from: number,
    to: number,
    period: Period,
    at: number,
    expected: number,
  ][] = [
    ['4900 → 19900 after 10 of 30 days', 4900, 19900, days(30), afterDays(10), 10000],
    ['4900 → 19900 after 7 of 31 days', 4900, 19900, days(31), afterDays(7), 11613],
    ['4900 → 19900 at the start', 4900, 19900, days(30), afterDays(0), 15000],
    ['4900 → 19900 at the very end', 4900, 19900, days(30), afterDays(30), 0],
    ['4900 → 19900 1 ms before the end', 4900, 19900, days(30), afterDays(30) - 1, 0],
    ['0 → 4900 halfway', 0, 4900, days(30), afterDays(15), 2450],
    ['downgrade 19900 → 4900', 19900, 4900, days(30), afterDays(10), 0],
    ['same price', 4900, 4900, days(30), afterDays(10), 0],
  ];
  for (const [label, from, to, period, at, expected] of cases) {
    it(`${label} → ${expected}`, () => {
      assert.equal(upgradeCharge(from, to, period, at), expected);
    });
  }

  it('prorates over the real billing period of a 31st anchor', () => {
    const anchor = Date.parse('2025-01-31T10:00:00.000Z');
    const period = cycleAt(anchor, Date.parse('2025-02-10T00:00:00.000Z'));
    // Feb 14 10:00 is 14 of the period's 28 days.
    assert.equal(upgradeCharge(4900, 19900, period, Date.parse('2025-02-14T10:00:00.000Z')), 7500);
  });

  it('rejects fractional prices', () => {
    assert.throws(() => upgradeCharge(4900.5, 19900, days(30), START), RangeError);
    assert.throws(() => upgradeCharge(4900, 19900.5, days(30), START), RangeError);
  });
});
