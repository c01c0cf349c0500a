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

/**
 * The first string or key of a body that the database cannot store as text, with its path
 * (`name`, `fields/0/name`).
 */
export function unstorableText(value: unknown, path = ''): InvalidParam | undefined {
  if (typeof value === 'string') {
    const reason = problemOf(value);
    return reason === undefined ? undefined : { name: path || '(body)', reason };
  }
  if (value === null || typeof value !== 'object') return undefined;
  for (const [key, item] of Object.entries(value)) {
    const at = path === '' ? key : `${path}/${key}`;
    const reason = problemOf(key);
    if (reason !== undefined) return { name: at, reason };
    const found = unstorableText(item, at);
    if (found !== undefined) return found;
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
