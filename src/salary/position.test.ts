import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  bandOf,
  normalCdf,
  normalScore,
  percentileOf,
  tailFit,
  type Percentiles,
} from './position-model.js';

const DE: Percentiles = { p10: 41_000, p25: 56_264, median: 81_059, p75: 116_782, p90: 150_000 };

/** Five ascending percentiles, some of them equal. */
const percentiles = fc
  .array(fc.integer({ min: 1_000, max: 400_000 }), { minLength: 5, maxLength: 5 })
  .map((v) => v.sort((a, b) => a - b))
  .map(([p10, p25, median, p75, p90]) => ({ p10, p25, median, p75, p90 }) as Percentiles);

describe('pay position model', () => {
  it('maps each published percentile to itself', () => {
    assert.equal(percentileOf(DE.p10, DE), 10);
    assert.equal(percentileOf(DE.p25, DE), 25);
    assert.equal(percentileOf(DE.median, DE), 50);
    assert.equal(percentileOf(DE.p75, DE), 75);
    assert.equal(percentileOf(DE.p90, DE), 90);
  });

  it('interpolates on the log scale: the geometric midpoint of p25 and the median is the 50/50 normal score', () => {
    const mid = Math.sqrt(DE.p25 * DE.median);
    assert.ok(Math.abs(normalScore(mid, DE) - -0.6744897501960817 / 2) < 1e-12);
    // On a linear scale the arithmetic midpoint would score the same; on the log scale it is higher.
    assert.ok(normalScore((DE.p25 + DE.median) / 2, DE) > normalScore(mid, DE));
  });

  it('continues into log-normal tails fitted to p10 and p90 that meet the inner pieces', () => {
    const { logMean, logSd } = tailFit(DE);
    assert.ok(Math.abs(Math.exp(logMean) - Math.sqrt(DE.p10 * DE.p90)) < 1e-6);
    for (const knot of [DE.p10, DE.p90]) {
      const below = normalScore(knot * (1 - 1e-9), DE);
      const above = normalScore(knot * (1 + 1e-9), DE);
      assert.ok(Math.abs(below - above) < 1e-6, `continuous at ${knot}`);
    }
    // Two standard deviations of the tail's log-normal below its mean: the 2.3rd percentile.
    assert.equal(percentileOf(Math.exp(logMean - 2 * logSd), DE), 2.3);
    assert.equal(percentileOf(1, DE), 0.1);
    assert.equal(percentileOf(10_000_000, DE), 99.9);
  });

  it('is monotonic in the salary for any ascending percentiles, ties included', () => {
    fc.assert(
      fc.property(
        percentiles,
        fc.double({ min: 500, max: 500_000, noNaN: true }),
        fc.double({ min: 500, max: 500_000, noNaN: true }),
        (p, a, b) => {
          const [low, high] = a <= b ? [a, b] : [b, a];
          assert.ok(normalScore(low, p) <= normalScore(high, p));
          assert.ok(percentileOf(low, p) <= percentileOf(high, p));
          const bands = ['below_p10', 'p10_p25', 'p25_p50', 'p50_p75', 'p75_p90', 'above_p90'];
          assert.ok(bands.indexOf(bandOf(low, p)) <= bands.indexOf(bandOf(high, p)));
        },
      ),
    );
  });

  it('names the band of published percentiles around the salary', () => {
    const cases: [number, string][] = [
      [DE.p10 - 1, 'below_p10'],
      [DE.p10, 'p10_p25'],
      [DE.p25, 'p25_p50'],
      [DE.median - 1, 'p25_p50'],
      [DE.median, 'p50_p75'],
      [DE.p75, 'p75_p90'],
      [DE.p90, 'p75_p90'],
      [DE.p90 + 1, 'above_p90'],
    ];
    for (const [salary, band] of cases) assert.equal(bandOf(salary, DE), band, String(salary));
  });

  it('computes Φ within 1e-7 of reference values', () => {
    const reference: [number, number][] = [
      [0, 0.5],
      [1, 0.8413447460685429],
      [-1.959963984540054, 0.025],
      [1.2815515655446004, 0.9],
      [3, 0.9986501019683699],
    ];
    for (const [z, p] of reference) assert.ok(Math.abs(normalCdf(z) - p) < 1e-7, `Φ(${z})`);
  });

  it('answers a collapsed distribution without dividing by zero', () => {
    const flat = { p10: 50_000, p25: 50_000, median: 50_000, p75: 50_000, p90: 50_000 };
    assert.equal(percentileOf(40_000, flat), 0.1);
    assert.equal(percentileOf(60_000, flat), 99.9);
    assert.ok(Number.isFinite(percentileOf(50_000, flat)));
  });
});
