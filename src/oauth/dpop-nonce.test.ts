import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DpopNonces, NONCE_WINDOW_MS } from './dpop-nonce.js';

const KEY = 'k'.repeat(32);
const T = Date.parse('2026-11-23T12:00:30Z');

describe('DpopNonces', () => {
  it('two instances with the same SECRET_KEY hand out and accept the same nonces, with no shared state', () => {
    const a = new DpopNonces(KEY, 'all');
    const b = new DpopNonces(KEY, 'all');
    assert.equal(a.current(T), b.current(T));
    assert.ok(b.accepts(a.current(T), T));
  });

  it("accepts the current window's and the previous window's nonce, nothing older or newer", () => {
    const n = new DpopNonces(KEY, 'token');
    const issued = n.current(T);
    assert.ok(n.accepts(issued, T + NONCE_WINDOW_MS));
    assert.ok(!n.accepts(issued, T + 2 * NONCE_WINDOW_MS));
    assert.ok(!n.accepts(n.current(T + NONCE_WINDOW_MS), T - NONCE_WINDOW_MS));
    assert.ok(!n.accepts(undefined, T));
    assert.ok(!n.accepts(42, T));
  });

  it('another SECRET_KEY makes other nonces', () => {
    const other = new DpopNonces('o'.repeat(32), 'all');
    assert.ok(!new DpopNonces(KEY, 'all').accepts(other.current(T), T));
  });

  it('requires nonces where the mode says', () => {
    assert.deepEqual(
      (['off', 'token', 'all'] as const).map((mode) => {
        const n = new DpopNonces(KEY, mode);
        return [n.required('token'), n.required('resource')];
      }),
      [
        [false, false],
        [true, false],
        [true, true],
      ],
    );
  });
});
