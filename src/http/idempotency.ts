import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors/index.js';
import type { Clock } from '../lib/clock.js';
import { sha256Hex } from '../lib/crypto.js';
import type { Db } from '../store/index.js';
import { hookList, onRoutesWith } from './route-hooks.js';

const KEY = /^[\x21-\x7e]{1,255}$/;
const TTL_MS = 24 * 3_600_000;
const SECRET_FIELDS = new Set(['key', 'token', 'secret']);

declare module 'fastify' {
  interface FastifyRequest {
    idempotency: { scope: string; key: string } | null;
  }
}

/** Secrets are never stored: a replay returns them as null (they were shown once). */
function redact(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redact);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>).map(([k, v]) => [
        k,
        SECRET_FIELDS.has(k) && typeof v === 'string' ? null : redact(v),
      ]),
    );
  }
  return value;
}

/**
 * `Idempotency-Key` on every POST: the first response (2xx or 4xx) is stored for 24 hours
 * and a retry with the same key and body gets it again (`Idempotent-Replayed: true`) instead
 * of a second create. The same key with another body is 409; one still running is 409 too.
 */
export function registerIdempotency(app: FastifyInstance, db: Db, clock: Clock): void {
  app.decorateRequest('idempotency', null);

  const preHandler = async (request: FastifyRequest, reply: FastifyReply) => {
    const header = request.headers['idempotency-key'];
    if (header === undefined) return;
    if (typeof header !== 'string' || !KEY.test(header)) {
      throw AppError.invalidParams([
        { name: 'Idempotency-Key', reason: 'must be 1–255 printable ASCII characters' },
      ]);
    }
    const scope = request.principal?.accountId ?? `addr:${request.ip}`;
    const hash = sha256Hex(
      `${request.method} ${request.url}\n${JSON.stringify(request.body ?? null)}`,
    );
    const now = clock.now();
    await db.query(
      'DELETE FROM idempotency_keys WHERE scope = $1 AND key = $2 AND created_at < $3',
      [scope, header, new Date(now - TTL_MS).toISOString()],
    );
    const inserted = await db.query(
      `INSERT INTO idempotency_keys (scope, key, request_hash, status, response, created_at)
       VALUES ($1, $2, $3, 0, '', $4) ON CONFLICT (scope, key) DO NOTHING RETURNING key`,
      [scope, header, hash, new Date(now).toISOString()],
    );
    if (inserted.length === 1) {
      request.idempotency = { scope, key: header };
      return;
    }
    const rows = await db.query<{ request_hash: string; status: number; response: string }>(
      'SELECT request_hash, status, response FROM idempotency_keys WHERE scope = $1 AND key = $2',
      [scope, header],
    );
    const stored = rows[0];
    if (stored === undefined || stored.request_hash !== hash) {
      throw new AppError(
        'IDEMPOTENCY_KEY_REUSED',
        'This Idempotency-Key was used with a different request.',
      );
    }
    if (stored.status === 0)
      throw new AppError(
        'CONFLICT',
        'A request with this Idempotency-Key is still being processed.',
      );
    const problem = stored.status >= 400;
    return reply
      .code(stored.status)
      .header('idempotent-replayed', 'true')
      .type(problem ? 'application/problem+json' : 'application/json; charset=utf-8')
      .serializer((payload: unknown) => payload as string)
      .send(stored.response);
  };

  const onSend = async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const idem = request.idempotency;
    if (idem === null) return payload;
    request.idempotency = null;
    if (reply.statusCode >= 500) {
      await db.query('DELETE FROM idempotency_keys WHERE scope = $1 AND key = $2', [
        idem.scope,
        idem.key,
      ]);
      return payload;
    }
    const text = typeof payload === 'string' ? payload : '';
    let stored = text;
    try {
      stored = text === '' ? '' : JSON.stringify(redact(JSON.parse(text)));
    } catch {
      // Not JSON: stored as sent.
    }
    await db.query(
      'UPDATE idempotency_keys SET status = $3, response = $4 WHERE scope = $1 AND key = $2',
      [idem.scope, idem.key, reply.statusCode, stored],
    );
    return payload;
  };

  onRoutesWith(app, ['POST'], (route) => {
    route.preHandler = [...hookList(route.preHandler), preHandler];
    route.onSend = [...hookList(route.onSend), onSend];
  });
}
