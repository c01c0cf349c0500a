import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_ATTEMPTS, RETRY_DELAYS_MS, retryDelay } from './backoff.js';

describe('retryDelay', () => {
  it('grows exponentially-ish and spans about three days', () => {
    const total = RETRY_DELAYS_MS.reduce((a, b) => a + b, 0);
    assert.ok(total > 2.8 * 86_400_000 && total < 3.2 * 86_400_000, `${total / 3_600_000} h`);
    for (let i = 1; i < RETRY_DELAYS_MS.length; i++) {
      assert.ok((RETRY_DELAYS_MS[i] as number) >= (RETRY_DELAYS_MS[i - 1] as number));
    }
    assert.equal(MAX_ATTEMPTS, 10);
  });

  it('jitters by at most ±10 % and gives up after the last retry', () => {
    assert.equal(
      retryDelay(1, () => 0),
      4_500,
    );
    assert.equal(
      retryDelay(1, () => 1),
      5_500,
    );
    assert.equal(
      retryDelay(2, () => 0.5),
      300_000,
    );
    assert.equal(
      retryDelay(MAX_ATTEMPTS - 1, () => 0.5),
      72_000_000,
    );
    assert.equal(retryDelay(MAX_ATTEMPTS), null);
  });
});
