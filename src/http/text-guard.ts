import type { FastifyRequest, preValidationHookHandler } from 'fastify';
import { AppError, type InvalidParam } from '../errors/index.js';
import { quoted } from './problem.js';

const NUL = 'must not contain U+0000 (NUL)';
const LONE_SURROGATE = 'must be well-formed Unicode (it holds a lone surrogate)';

function problemOf(text: string): string | undefined {
  if (text.includes('\u0000')) return NUL;
  // With the u flag a surrogate pair is one code point, so only a lone surrogate matches.
  if (/\p{Cs}/u.test(text)) return LONE_SURROGATE;
  return undefined;
}

/** No request body of this API nests deeper; a deeper one is refused before anything walks it. */
export const MAX_BODY_DEPTH = 32;
/** Nor holds more values (the largest real one is a 100-entry allowlist or schema). */
export const MAX_BODY_VALUES = 10_000;

/**
 * What makes a parsed JSON body too deep or too wide to be a request of this API, or undefined.
 * One pass with its own stack, stopping at the first excess: client input never drives recursion
 * and a 1 MB body of 100,000 members costs no more than reading it.
 */
export function bodyShapeProblem(value: unknown): string | undefined {
  const stack: [unknown, number][] = [[value, 0]];
  let values = 0;
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [item, depth] = next;
    if (++values > MAX_BODY_VALUES)
      return `holds more than ${MAX_BODY_VALUES} values; no request of this API needs more`;
    if (typeof item === 'number' && !Number.isFinite(item))
      return 'holds a number too large to represent (such as 1e309)';
    if (item === null || typeof item !== 'object') continue;
    if (depth >= MAX_BODY_DEPTH)
      return `nests objects and arrays deeper than ${MAX_BODY_DEPTH} levels; no request of this API needs more`;
    for (const child of Object.values(item)) stack.push([child, depth + 1]);
  }
  return undefined;
}

/**
 * The first string or key of a body that the database cannot store as text, with its path
 * (`name`, `fields/0/name`). Walks with its own stack: client input never drives recursion.
 */
export function unstorableText(value: unknown): InvalidParam | undefined {
  const stack: [unknown, string][] = [[value, '']];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [item, path] = next;
    if (typeof item === 'string') {
      const reason = problemOf(item);
      if (reason !== undefined) return { name: path || '(body)', reason };
      continue;
    }
    if (item === null || typeof item !== 'object') continue;
    const entries = Object.entries(item);
    // Pushed in reverse, so the first offending field in document order is the one named.
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, child] = entries[i] as [string, unknown];
      const at = path === '' ? key : `${path}/${key}`;
      const reason = problemOf(key);
      if (reason !== undefined) return { name: at, reason };
      stack.push([child, at]);
    }
  }
  return undefined;
}

/**
 * PostgreSQL text cannot hold U+0000, and jsonb refuses a lone surrogate (`"\ud800"`), so a
 * body carrying either would fail in the database (500). It is refused up front as a 400
 * naming the field, for every endpoint with a body.
 */
export function textGuard(request: FastifyRequest, _reply: unknown, done: (error?: Error) => void) {
  const param = request.body === undefined ? undefined : unstorableText(request.body);
  if (param === undefined) {
    done();
    return;
  }
  done(
    new AppError('INVALID_BODY', `The request body is invalid: ${param.name} ${param.reason}.`, {
      extensions: { invalid_params: [param] },
    }),
  );
}

/** How a numeric query parameter must be written: decimal digits, a sign, a decimal point. */
const DECIMAL = {
  integer: {
    pattern: /^-?\d+$/,
    reason: 'is not a whole number written in decimal digits (such as 2024)',
  },
  number: {
    pattern: /^-?\d+(\.\d+)?$/,
    reason: 'is not a number written in decimal digits (such as 72000 or 72000.50)',
  },
} as const;

type NumericKind = keyof typeof DECIMAL;

/** `integer` or `number` when every value a property's schema allows is one; else undefined. */
function numericKind(schema: unknown): NumericKind | undefined {
  if (schema === null || typeof schema !== 'object') return undefined;
  const s = schema as { type?: unknown; anyOf?: unknown[]; items?: unknown };
  if (s.type === 'integer' || s.type === 'number') return s.type;
  if (s.type === 'array') return numericKind(s.items);
  if (Array.isArray(s.anyOf) && s.anyOf.length > 0) {
    const kinds = s.anyOf.map(numericKind);
    if (kinds.some((k) => k === undefined)) return undefined;
    return kinds.includes('number') ? 'number' : 'integer';
  }
  return undefined;
}

/** The first value of a query (or of arguments coerced like one) not written as its number. */
export type DecimalCheck = (query: Record<string, unknown>) => InvalidParam | undefined;

/**
 * Query values are text, and Ajv turns text into a number the way JavaScript does: `0x7E6` would
 * be 2022, `1e3` 1000, `+2024` or ` 2024` 2024, and `Infinity` or `1e309` an infinite number
 * that passes as an integer. Each text value of a numeric parameter of `querySchema` must be
 * decimal digits (with a sign, and a decimal point where fractions are allowed). Undefined for a
 * schema without a numeric parameter.
 */
export function decimalCheck(querySchema: unknown): DecimalCheck | undefined {
  const properties = (querySchema as { properties?: Record<string, unknown> } | undefined)
    ?.properties;
  const numeric: [string, NumericKind][] = [];
  for (const [name, schema] of Object.entries(properties ?? {})) {
    const kind = numericKind(schema);
    if (kind !== undefined) numeric.push([name, kind]);
  }
  if (numeric.length === 0) return undefined;
  return (query) => {
    for (const [name, kind] of numeric) {
      const given = query[name];
      if (given === undefined) continue;
      for (const value of Array.isArray(given) ? given : [given]) {
        if (typeof value === 'string' && !DECIMAL[kind].pattern.test(value))
          return { name, reason: `${quoted(value)} ${DECIMAL[kind].reason}` };
      }
    }
    return undefined;
  };
}

/**
 * The route's `decimalCheck` before validation (Ajv's coercion): a value not written in decimal
 * digits is a 400 naming the parameter. Undefined for a route without a numeric query parameter.
 */
export function decimalQuery(querySchema: unknown): preValidationHookHandler | undefined {
  const check = decimalCheck(querySchema);
  if (check === undefined) return undefined;
  return (request, _reply, done) => {
    const param = check(request.query as Record<string, unknown>);
    if (param === undefined) done();
    else done(AppError.invalidParams([param]));
  };
}
