import type { FastifyRequest } from 'fastify';
import { AppError, type InvalidParam } from '../errors/index.js';

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

/**
 * Ajv coerces `limit=Infinity` or `limit=1e309` to Infinity and, with the options this API uses,
 * lets it pass as an integer within its bounds; the database then refuses it (a 500). Numbers in
 * a query must be finite: anything else is a 400 naming the parameter.
 */
export function finiteQuery(
  request: FastifyRequest,
  _reply: unknown,
  done: (error?: Error) => void,
): void {
  const query = request.query as Record<string, unknown> | undefined;
  for (const [name, value] of Object.entries(query ?? {})) {
    if (typeof value === 'number' && !Number.isFinite(value)) {
      done(AppError.invalidParams([{ name, reason: `${String(value)} is not a finite number` }]));
      return;
    }
  }
  done();
}
