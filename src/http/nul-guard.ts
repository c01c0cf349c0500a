import type { FastifyRequest } from 'fastify';
import { AppError } from '../errors/index.js';

/** The path (`name`, `fields/0/name`) of the first string or key holding U+0000, if any. */
export function nulPath(value: unknown, path = ''): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? path || '(body)' : undefined;
  if (value === null || typeof value !== 'object') return undefined;
  for (const [key, item] of Object.entries(value)) {
    const at = path === '' ? key : `${path}/${key}`;
    if (key.includes('\u0000')) return at;
    const found = nulPath(item, at);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * PostgreSQL text cannot hold U+0000, so a body carrying it would fail in the database (500).
 * It is refused up front as a 400 naming the field, for every endpoint with a body.
 */
export function nulGuard(request: FastifyRequest, _reply: unknown, done: (error?: Error) => void) {
  const path = request.body === undefined ? undefined : nulPath(request.body);
  if (path === undefined) {
    done();
    return;
  }
  done(
    new AppError('INVALID_BODY', `The request body is invalid: ${path} contains U+0000 (NUL).`, {
      extensions: { invalid_params: [{ name: path, reason: 'must not contain U+0000 (NUL)' }] },
    }),
  );
}
