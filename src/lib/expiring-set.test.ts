import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ExpiringSet } from './expiring-set.js';

describe('ExpiringSet', () => {
  it('remembers a value for its time, then forgets it', () => {
    const set = new ExpiringSet(1000, 10);
    assert.equal(set.add('a', 0), true);
    assert.equal(set.add('a', 500), false);
    assert.equal(set.has('a', 1499), true);
    assert.equal(set.has('a', 1500), false);
    assert.equal(set.add('a', 1500), true);
  });

  it('never holds more than its bound: the oldest go first', () => {
    const set = new ExpiringSet(60_000, 3);
    for (const v of ['a', 'b', 'c', 'd', 'e']) set.add(v, 0);
    assert.equal(set.size, 3);
    assert.deepEqual(
      ['a', 'b', 'c', 'd', 'e'].map((v) => set.has(v, 1)),
      [false, false, true, true, true],
    );
  });
});
