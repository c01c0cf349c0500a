import assert from 'node:assert/strict';
import { tracingChannel } from 'node:diagnostics_channel';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { after, before, describe, it } from 'node:test';
import { DAY_MS, MemoryRateLimiter, type RateLimiter } from '../../src/limits/index.js';
import { FORMATS } from '../../src/plans/index.js';
import { ENTERPRISE_CONTRACT, accountOnPlan } from '../helpers/accounts.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { listenHttp, type HttpCall } from '../helpers/http.js';
import { capturedLogger } from '../helpers/log-lines.js';
import { prefixedRedisLimiter, redisAvailable } from '../helpers/redis.js';

const POSITION = '/api/v1/salary/position?country=DE&job=software-engineer&level=senior';
const LIMIT = 2;
// Ten o'clock UTC two days ahead: Redis expires each counter at its window's end.
const NOW = new Date(Math.ceil(Date.now() / DAY_MS) * DAY_MS + 2 * DAY_MS + 10 * 3_600_000);

/** What a handler left on its reply when it returned: the answer it was building, if any. */
interface HandlerEnd {
  contentType: unknown;
  disposition: unknown;
}

/**
 * Fastify's handler tracing channel (docs: Hooks, diagnostics channel): when each request's
 * handler has returned (its promise settled), with the reply as the handler left it. A handler
 * that goes on after the 429 is still running when the client has the 429 in hand; waiting
 * for its end is what lets a test see what it did afterwards.
 */
function handlerEnds() {
  type Message = { request: FastifyRequest; reply: FastifyReply };
  const ended = new Map<string, HandlerEnd>();
  const waiting = new Map<string, (end: HandlerEnd) => void>();
  const record = (message: unknown) => {
    const { request, reply } = message as Message;
    const end = {
      contentType: reply.getHeader('content-type'),
      disposition: reply.getHeader('content-disposition'),
    };
    ended.set(request.id, end);
    waiting.get(request.id)?.(end);
  };
  const channel = tracingChannel('fastify.request.handler');
  const ignore = () => undefined;
  const handlers = {
    start: ignore,
    end: (message: unknown) => {
      if ((message as { async?: boolean }).async !== true) record(message);
    },
    asyncStart: ignore,
    asyncEnd: record,
    error: ignore,
  };
  channel.subscribe(handlers);
  return {
    of(requestId: string): Promise<HandlerEnd> {
      const end = ended.get(requestId);
      if (end !== undefined) return Promise.resolve(end);
      return new Promise((resolve) => waiting.set(requestId, resolve));
    },
    close: () => channel.unsubscribe(handlers),
  };
}

function refusedPositions(
  name: string,
  makeLimiter: () => Promise<{ limiter: RateLimiter; close: () => Promise<void> }>,
  skip: string | false = false,
) {
  describe(`a pay position past the quota (${name})`, { skip }, () => {
    let t: TestApp;
    let call: HttpCall;
    let key: string;
    let closeLimiter: () => Promise<void>;
    let ends: ReturnType<typeof handlerEnds>;
    const { logger, lines } = capturedLogger('warn');

    before(async () => {
      const { limiter, close } = await makeLimiter();
      closeLimiter = close;
      ends = handlerEnds();
      t = await buildTestApp({ logger, limiter, now: NOW.toISOString() });
      ({ call } = await listenHttp(t));
      key = (await accountOnPlan(t, 'enterprise', { ...ENTERPRISE_CONTRACT, request_limit: LIMIT }))
        .apiKey!;
      for (let i = 0; i < LIMIT; i++) {
        const res = await call('GET', `${POSITION}&salary=50000`, { token: key });
        assert.equal(res.status, 200, res.body);
      }
    });
    after(async () => {
      ends.close();
      await t.close();
      await closeLimiter();
    });

    for (const format of FORMATS) {
      it(`as ${format}: the 429 alone; the handler stops there, sends nothing more and logs nothing`, async () => {
        lines.length = 0;
        const res = await call('GET', `${POSITION}&salary=50000&format=${format}`, {
          token: key,
        });
        assert.equal(res.status, 429, res.body);
        assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
        assert.equal(res.json().code, 'RATE_LIMITED');
        assert.ok(Number(res.headers.get('retry-after')) > 0);
        assert.equal(res.headers.get('content-disposition'), null);

        const requestId = res.headers.get('x-request-id');
        assert.ok(requestId !== null);
        const end = await ends.of(requestId);
        assert.deepEqual(
          lines.map((l) => l.msg),
          [],
          `nothing logged at warn or above (no second send):\n${JSON.stringify(lines)}`,
        );
        assert.match(String(end.contentType), /^application\/problem\+json/, 'no file rendered');
        assert.equal(end.disposition, undefined, 'no file named');
      });
    }
  });
}

refusedPositions('in-process limiter', async () => ({
  limiter: new MemoryRateLimiter(),
  close: async () => undefined,
}));

refusedPositions(
  'Redis limiter',
  prefixedRedisLimiter,
  (await redisAvailable()) ? false : 'no Redis',
);
