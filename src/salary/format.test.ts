import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppError } from '../errors/index.js';
import { negotiateFormat } from './format.js';

describe('negotiateFormat', () => {
  const cases: [string | undefined, string | undefined, string][] = [
    [undefined, undefined, 'json'],
    [undefined, '', 'json'],
    [undefined, '*/*', 'json'],
    [undefined, 'text/csv', 'csv'],
    [undefined, 'text/csv;q=0.5, application/json', 'json'],
    [undefined, 'application/json;q=0.2, application/vnd.apache.parquet', 'parquet'],
    [undefined, 'application/xml, text/html;q=0.9', 'xml'],
    [undefined, 'text/html, */*;q=0.1', 'json'],
    ['csv', 'application/json', 'csv'],
    // The most specific range decides a format's q (RFC 9110 §12.5.1).
    [undefined, 'application/json;q=0, */*', 'csv'],
    [undefined, 'text/*', 'csv'],
    [undefined, 'application/*', 'json'],
    [undefined, 'application/*, application/json;q=0.1', 'xlsx'],
    [undefined, 'application/problem+json', 'json'],
    [undefined, 'text/csv;q=0.5, application/xml;q=0.5', 'csv'],
  ];
  for (const [param, accept, expected] of cases) {
    it(`format=${param ?? '∅'} Accept="${accept ?? '∅'}" → ${expected}`, () => {
      assert.equal(negotiateFormat(param as never, accept), expected);
    });
  }
  it('406 when Accept names only types never produced', () => {
    assert.throws(
      () => negotiateFormat(undefined, 'image/png, text/html'),
      (e: unknown) => e instanceof AppError && e.status === 406,
    );
    assert.throws(
      () => negotiateFormat(undefined, 'text/csv;q=0'),
      (e: unknown) => e instanceof AppError && e.status === 406,
    );
    assert.throws(
      () => negotiateFormat(undefined, 'text/*, text/csv;q=0'),
      (e: unknown) => e instanceof AppError && e.status === 406,
    );
  });
  it('answers a remembered Accept value as the first time, the 406 included', () => {
    for (let i = 0; i < 3; i++) {
      assert.equal(negotiateFormat(undefined, 'text/csv, application/json;q=0.5'), 'csv');
      assert.equal(negotiateFormat('xlsx', 'text/csv'), 'xlsx', 'the parameter still wins');
      assert.throws(
        () => negotiateFormat(undefined, 'image/png'),
        (e: unknown) => e instanceof AppError && e.status === 406,
      );
    }
    // Past the remembered values (and a value too long to keep): still decided each time.
    for (let i = 0; i < 300; i++)
      assert.equal(negotiateFormat(undefined, `text/x-${i}, text/csv`), 'csv');
    const long = `${'text/x-long;q=0.1, '.repeat(20)}application/vnd.apache.parquet`;
    assert.equal(negotiateFormat(undefined, long), 'parquet');
    assert.equal(negotiateFormat(undefined, long), 'parquet');
    assert.equal(negotiateFormat(undefined, 'text/csv, application/json;q=0.5'), 'csv');
  });
});
