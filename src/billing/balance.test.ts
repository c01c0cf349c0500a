import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { applyBalance } from './balance.js';

describe('applyBalance', () => {
  const cases: [invoice: number, credit: number, applied: number, due: number, left: number][] = [
    [19900, 10000, 10000, 9900, 0],
    [4900, 10000, 4900, 0, 5100],
    [4900, 5100, 4900, 0, 200],
    [4900, 4900, 4900, 0, 0],
    [4900, 0, 0, 4900, 0],
    [0, 10000, 0, 0, 10000],
    [0, 0, 0, 0, 0],
  ];
  for (const [invoice, credit, applied, due, remainingBalance] of cases) {
    it(`invoice ${invoice} with credit ${credit} → applied ${applied}, due ${due}`, () => {
      assert.deepEqual(applyBalance(invoice, credit), { applied, due, remainingBalance });
    });
  }

  it('carries the surplus across invoices', () => {
    const first = applyBalance(4900, 10000);
    const second = applyBalance(4900, first.remainingBalance);
    const third = applyBalance(4900, second.remainingBalance);
    assert.deepEqual(
      [first, second, third],
      [
        { applied: 4900, due: 0, remainingBalance: 5100 },
        { applied: 4900, due: 0, remainingBalance: 200 },
        { applied: 200, due: 4700, remainingBalance: 0 },
      ],
    );
  });

  it('rejects negative and fractional amounts', () => {
    assert.throws(() => applyBalance(-1, 100), RangeError);
    assert.throws(() => applyBalance(100, -1), RangeError);
    assert.throws(() => applyBalance(100.5, 100), RangeError);
    assert.throws(() => applyBalance(100, 0.5), RangeError);
  });
});
