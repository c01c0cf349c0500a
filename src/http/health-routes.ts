import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { jsonAnswer } from './openapi-responses.js';

export interface ReadinessCheck {
  name: string;
  check(): Promise<void>;
}

const CHECK_TIMEOUT_MS = 2000;

function withTimeout(promise: Promise<void>, ms: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    promise.then(resolve, reject).finally(() => clearTimeout(timer));
  });
}

/** The readiness of an instance on PostgreSQL and Redis, serving the bundled release. */
const READY_EXAMPLE = {
  status: 'ready',
  checks: { database: 'ok', redis: 'ok', data: 'ok' },
  release: '2026.11.8',
};

/** GET /health: the process is alive. GET /ready: every dependency answers and data is loaded. */
export const healthRoutes: FastifyPluginAsyncTypebox<{
  checks: readonly ReadinessCheck[];
  /** The data release being served, null while none is loaded. */
  release: () => string | null;
}> = async (app, opts) => {
  const Status = Type.Object({
    status: Type.String(),
    checks: Type.Optional(Type.Record(Type.String(), Type.String())),
    release: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  });
  app.get(
    '/health',
    {
      schema: {
        tags: ['Operations'],
        operationId: 'health',
        summary: 'Liveness',
        description: 'Answers 200 while the process runs; no dependency is checked.',
        response: { 200: jsonAnswer(Status, { status: 'ok' }) },
      },
    },
    async () => ({ status: 'ok' }),
  );
  app.get(
    '/ready',
    {
      schema: {
        tags: ['Operations'],
        operationId: 'ready',
        summary: 'Readiness: database and Redis reachable, a data release loaded',
        description:
          'Answers 200 when every dependency answers within 2 s and a data release is loaded; otherwise 503 with Retry-After and the failing check named.',
        response: { 200: jsonAnswer(Status, READY_EXAMPLE), 503: Status },
      },
    },
    async (_request, reply) => {
      const results: Record<string, string> = {};
      let ok = true;
      await Promise.all(
        opts.checks.map(async (readiness) => {
          const name = readiness.name;
          try {
            await withTimeout(readiness.check(), CHECK_TIMEOUT_MS);
            results[name] = 'ok';
          } catch (error) {
            ok = false;
            results[name] = `unavailable: ${(error as Error).message}`;
          }
        }),
      );
      const release = opts.release();
      results.data = release === null ? 'no release loaded' : 'ok';
      if (release === null) ok = false;
      if (!ok) reply.code(503).header('retry-after', '5');
      return { status: ok ? 'ready' : 'not ready', checks: results, release };
    },
  );
};
