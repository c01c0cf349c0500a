import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors/index.js';
import { decimalQuery } from './text-guard.js';

/** What the guard answers for a query: undefined when it lets it through, else the 400. */
function guarded(schema: unknown, query: Record<string, unknown>): AppError | undefined {
  const guard = decimalQuery(schema);
  assert.ok(guard !== undefined, 'the schema has a numeric parameter');
  const answers: (Error | undefined)[] = [];
  void guard.call(
    undefined as never,
    { query } as unknown as FastifyRequest,
    {} as FastifyReply,
    (error?: Error) => answers.push(error),
  );
  assert.equal(answers.length, 1, 'the guard answers once, at once');
  return answers[0] as AppError | undefined;
}

describe('decimalQuery', () => {
  const schema = Type.Object({
    year: Type.Optional(Type.Integer({ minimum: 2000 })),
    salary: Type.Optional(Type.Number()),
    levels: Type.Optional(Type.Array(Type.Integer())),
    country: Type.Optional(Type.String()),
  });

  it('lets decimal digits through, with a sign and, for numbers, a decimal point', () => {
    for (const query of [
      {},
      { year: '2024' },
      { year: '-1' },
      { salary: '72000' },
      { salary: '72000.50' },
      { levels: ['1', '2'] },
      { country: '0x7E6' },
    ])
      assert.equal(guarded(schema, query), undefined, JSON.stringify(query));
  });

  it('refuses what JavaScript would read as a number, naming the parameter', () => {
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ year: '0x7E6' }, 'year', /whole number written in decimal digits/],
      [{ year: '1e3' }, 'year', /whole number/],
      [{ year: '+2024' }, 'year', /whole number/],
      [{ year: ' 2024' }, 'year', /whole number/],
      [{ year: '2024.0' }, 'year', /whole number/],
      [{ year: 'Infinity' }, 'year', /whole number/],
      [{ year: '' }, 'year', /whole number/],
      [{ salary: '7.2e4' }, 'salary', /number written in decimal digits \(such as 72000/],
      [{ salary: '.5' }, 'salary', /number written in decimal digits/],
      [{ levels: ['1', '0b1'] }, 'levels', /whole number/],
    ];
    for (const [query, name, reason] of cases) {
      const error = guarded(schema, query);
      assert.ok(error instanceof AppError, JSON.stringify(query));
      assert.equal(error.status, 400);
      const [param] = error.extensions?.invalid_params as { name: string; reason: string }[];
      assert.equal(param?.name, name);
      assert.match(String(param?.reason), reason);
    }
  });

  it('leaves a parameter that may also be text to the schema, and a route without numbers alone', () => {
    const either = Type.Object({ year: Type.Union([Type.Integer(), Type.Literal('latest')]) });
    assert.equal(decimalQuery(either), undefined);
    assert.equal(decimalQuery(Type.Object({ country: Type.String() })), undefined);
    assert.equal(decimalQuery(undefined), undefined);
  });
});
