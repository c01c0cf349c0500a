import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { rangeStillValid, requestedRange } from './byte-range.js';

describe('requestedRange (RFC 9110 §14.2), for a representation of 1000 bytes', () => {
  const cases: [string | undefined, ReturnType<typeof requestedRange>][] = [
    [undefined, undefined],
    ['bytes=0-0', { start: 0, end: 0 }],
    ['bytes=0-499', { start: 0, end: 499 }],
    ['bytes=500-999', { start: 500, end: 999 }],
    ['bytes=500-', { start: 500, end: 999 }],
    ['bytes=999-', { start: 999, end: 999 }],
    // The last position is capped at the last byte.
    ['bytes=900-5000', { start: 900, end: 999 }],
    // Suffixes: the last n bytes, all of them when n is larger.
    ['bytes=-1', { start: 999, end: 999 }],
    ['bytes=-300', { start: 700, end: 999 }],
    ['bytes=-5000', { start: 0, end: 999 }],
    // Case of the unit and whitespace.
    ['Bytes = 10 - 19 ', { start: 10, end: 19 }],
    ['\tbytes=\t10-19', { start: 10, end: 19 }],
    // Only spaces and tabs are whitespace here (not U+00A0).
    ['bytes=\u00a010-19', undefined],
    // Nothing of the range is in the file.
    ['bytes=1000-', 'unsatisfiable'],
    ['bytes=1000-2000', 'unsatisfiable'],
    ['bytes=-0', 'unsatisfiable'],
    // Ignored, so the whole file: several ranges, another unit, malformed values.
    ['bytes=0-1,5-6', undefined],
    ['items=0-1', undefined],
    ['bytes=5-2', undefined],
    ['bytes=-', undefined],
    ['bytes=a-b', undefined],
    ['bytes=1.5-2', undefined],
    ['bytes=0-1234567890123456', undefined],
    ['', undefined],
    [`bytes=0-${'9'.repeat(5000)}`, undefined],
  ];
  for (const [header, expected] of cases) {
    it(`${JSON.stringify(header)} → ${JSON.stringify(expected)}`, () => {
      assert.deepEqual(requestedRange(header, 1000), expected);
    });
  }

  it('an empty representation satisfies no range', () => {
    assert.equal(requestedRange('bytes=0-', 0), 'unsatisfiable');
    assert.equal(requestedRange('bytes=-10', 0), 'unsatisfiable');
  });
});

describe('rangeStillValid (If-Range)', () => {
  const etag = '"abc"';
  it('serves the range without If-Range, or when it is the current entity tag', () => {
    assert.equal(rangeStillValid(undefined, etag), true);
    assert.equal(rangeStillValid('"abc"', etag), true);
  });
  it('serves the whole file for another tag, a weak tag or a date', () => {
    assert.equal(rangeStillValid('"abd"', etag), false);
    assert.equal(rangeStillValid('W/"abc"', etag), false);
    assert.equal(rangeStillValid('Tue, 24 Nov 2026 04:00:00 GMT', etag), false);
  });
});
