import { createHmac, hkdfSync } from 'node:crypto';
import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  RouteHandlerMethod,
  RouteOptions,
} from 'fastify';
import { AppError } from '../errors/index.js';
import type { Clock } from '../lib/clock.js';
import { createSecretBox } from '../lib/secret-box.js';
import type { Db, Queryable } from '../store/index.js';
import * as repo from './idempotency-repo.js';
import type { StoredRow } from './idempotency-repo.js';
import { hookList, onRoutesWith } from './route-hooks.js';

const KEY = /^[\x21-\x7e]{1,255}$/;
export const IDEMPOTENCY_TTL_MS = 24 * 3_600_000;
/**
 * How long an attempt may keep its transaction waiting before PostgreSQL ends it and a retry
 * takes over. An attempt whose process died is over at once: its connection closes.
 */
export const IDEMPOTENCY_LEASE_MS = 30_000;
/** Seconds a client should wait before retrying a key whose first attempt is still running. */
const IN_PROGRESS_RETRY_AFTER = '1';

/**
 * `Idempotency-Key` on every POST: the first response (2xx or 4xx) is stored for 24 hours
 * and a retry with the same key and body gets it again (`Idempotent-Replayed: true`) instead
 * of a second create. The same key with another body is 409; one still running is 409 with
 * Retry-After.
 *
 * The key's row, the handler's writes and the stored response are one transaction, so a crash
 * at any point leaves either all of them (a retry replays the response) or none (a retry runs
 * afresh): a resource is never created without its response being kept. The response is kept
 * sealed (secrets included, so a retry gets the secret the crash swallowed); the request is
 * kept as an HMAC under SECRET_KEY, never as a plain digest of a body holding a password.
 */
export function registerIdempotency(
  app: FastifyInstance,
  deps: {
    db: Db;
    clock: Clock;
    secretKey: string;
    /**
     * After a handler's writes were rolled back: in-memory state the handler updated before
     * the commit (the credential cache) is re-read from the database.
     */
    afterRollback?: () => void;
  },
): void {
  const { db, clock } = deps;
  const box = createSecretBox(deps.secretKey, 'idempotency-responses');
  const digestKey = Buffer.from(
    hkdfSync('sha256', deps.secretKey, 'salary-api', 'idempotency-requests', 32),
  );
  app.decorateRequest('idempotency', null);

  const preHandler = async (request: FastifyRequest, reply: FastifyReply) => {
    const header = request.headers['idempotency-key'];
    if (header === undefined) return;
    if (typeof header !== 'string' || !KEY.test(header)) {
      throw AppError.invalidParams([
        { name: 'Idempotency-Key', reason: 'must be 1–255 printable ASCII characters' },
      ]);
    }
    // Per credential, not per account: a narrower key of the same account must not replay (and
    // so obtain) what a broader key or a session was answered.
    const principal = request.principal;
    const scope =
      principal?.accountId == null
        ? `addr:${request.ip}`
        : `${principal.accountId}:${principal.keyId ?? principal.sessionId ?? 'operator'}`;
    const hash = createHmac('sha256', digestKey)
      .update(`${request.method} ${request.url}\n${JSON.stringify(request.body ?? null)}`)
      .digest('hex');
    const tx = await db.begin({ idleTimeoutMs: IDEMPOTENCY_LEASE_MS });
    let stored: StoredRow | undefined;
    try {
      stored = await claim(tx, scope, header, hash, clock.now());
    } catch (error) {
      await tx.rollback();
      throw error;
    }
    if (stored === undefined) {
      request.idempotency = { scope, key: header, tx };
      return;
    }
    await tx.rollback();
    if (stored.request_hash !== hash) {
      throw new AppError(
        'IDEMPOTENCY_KEY_REUSED',
        'This Idempotency-Key was used with a different request.',
      );
    }
    if (stored.status === 0) throw inProgress();
    const problem = stored.status >= 400;
    return reply
      .code(stored.status)
      .header('idempotent-replayed', 'true')
      .type(problem ? 'application/problem+json' : 'application/json; charset=utf-8')
      .serializer((payload: unknown) => payload as string)
      .send(stored.response.startsWith('v1.') ? box.open(stored.response) : stored.response);
  };

  const onSend = async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const idem = request.idempotency;
    if (idem === null) return payload;
    request.idempotency = null;
    // A 5xx undoes the handler's writes with the key's row: a retry runs afresh.
    if (reply.statusCode >= 500) {
      await idem.tx.rollback();
      deps.afterRollback?.();
      return payload;
    }
    const text = typeof payload === 'string' ? payload : '';
    try {
      await repo.storeAnswer(idem.tx, idem.scope, idem.key, reply.statusCode, box.seal(text));
      await idem.tx.commit();
    } catch (error) {
      // Nothing committed: the client gets the error (503 for a database fault), not a
      // response describing writes that were rolled back.
      await idem.tx.rollback();
      deps.afterRollback?.();
      throw error;
    }
    return payload;
  };

  // A request that ends without a response (the client went away) rolls back.
  const onResponse = async (request: FastifyRequest) => {
    const idem = request.idempotency;
    request.idempotency = null;
    await idem?.tx.rollback();
  };

  onRoutesWith(app, ['POST'], (route) => {
    if (route.config?.idempotency === false) return;
    route.preHandler = [...hookList(route.preHandler), preHandler];
    route.onSend = [...hookList(route.onSend), onSend];
    route.onResponse = [...hookList(route.onResponse), onResponse];
    route.onRequestAbort = [...hookList(route.onRequestAbort), onResponse];
    route.handler = insideTransaction(route.handler);
  });
}

/** The handler, run inside the request's idempotency transaction when it has one. */
function insideTransaction(handler: RouteOptions['handler']): RouteHandlerMethod {
  return function (this: FastifyInstance, request, reply) {
    const tx = request.idempotency?.tx;
    return tx === undefined
      ? handler.call(this, request, reply)
      : tx.run(() => handler.call(this, request, reply));
  };
}

function inProgress(): AppError {
  return new AppError('CONFLICT', 'A request with this Idempotency-Key is still being processed.', {
    headers: { 'retry-after': IN_PROGRESS_RETRY_AFTER },
    extensions: { retry_after: Number(IN_PROGRESS_RETRY_AFTER) },
  });
}

/**
 * Takes the key for this attempt inside `tx`: undefined when this attempt runs the handler,
 * else the row a finished attempt committed. A transaction-scoped advisory lock stands for the
 * running attempt; it ends with that attempt's transaction, however the attempt ends (the lease
 * bounds an attempt whose holder stopped talking to the database).
 */
async function claim(
  tx: Queryable,
  scope: string,
  key: string,
  hash: string,
  now: number,
): Promise<StoredRow | undefined> {
  if (!(await repo.tryLockKey(tx, scope, key))) throw inProgress();
  // Expired, or a placeholder a dead attempt of an earlier version left committed.
  await repo.deleteStale(
    tx,
    scope,
    key,
    new Date(now - IDEMPOTENCY_TTL_MS),
    new Date(now - IDEMPOTENCY_LEASE_MS),
  );
  if (await repo.insertPlaceholder(tx, scope, key, hash, new Date(now))) return undefined;
  return (await repo.findStored(tx, scope, key)) ?? { request_hash: hash, status: 0, response: '' };
}

/** Deletes the rows older than 24 hours; any instance may run it, at any interval. */
export function purgeIdempotencyKeys(db: Db, now: number): Promise<number> {
  return repo.purgeBefore(db, new Date(now - IDEMPOTENCY_TTL_MS));
}
