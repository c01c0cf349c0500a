import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { loadConfig } from '../../src/config/index.js';
import { ManualClock } from '../../src/lib/clock.js';
import { setPasswordHashCost } from '../../src/lib/crypto.js';
import type { RateLimiter } from '../../src/limits/index.js';
import { createServer } from '../../src/main/wire.js';
import type { Db } from '../../src/store/index.js';
import type { WebhookSender } from '../../src/webhooks/index.js';
import { memoryPglite } from './db.js';

export const TEST_SECRET_KEY = 'test-secret-key-0123456789abcdefghijklmnop';

// Passwords hashed in a test's process cost scrypt at N = 2^10 (1 MiB, a few ms) instead of 2^15
// (32 MiB, about 90 ms of CPU): tests sign up thousands of accounts. Hashes keep their format,
// and each names its N, so a hash made by a CLI process verifies here and the other way round.
setPasswordHashCost(1024);

export interface TestApp {
  app: FastifyInstance;
  services: Awaited<ReturnType<typeof createServer>>['services'];
  recorder: Awaited<ReturnType<typeof createServer>>['recorder'];
  webhooks: Awaited<ReturnType<typeof createServer>>['webhooks'];
  worker: Awaited<ReturnType<typeof createServer>>['worker'];
  notices: Awaited<ReturnType<typeof createServer>>['notices'];
  exportWorker: Awaited<ReturnType<typeof createServer>>['exportWorker'];
  releases: Awaited<ReturnType<typeof createServer>>['releases'];
  data: Awaited<ReturnType<typeof createServer>>['data'];
  oauth: Awaited<ReturnType<typeof createServer>>['oauth'];
  sla: Awaited<ReturnType<typeof createServer>>['sla'];
  heartbeat: Awaited<ReturnType<typeof createServer>>['heartbeat'];
  licenses: Awaited<ReturnType<typeof createServer>>['licenses'];
  quotaEndpoints: Awaited<ReturnType<typeof createServer>>['quotaEndpoints'];
  clock: ManualClock;
  db: Db;
  /** Listens as `serve` does: the API on PORT and HOST, the metrics on METRICS_PORT when set. */
  listen(): Promise<string>;
  close(): Promise<void>;
}

/**
 * The real API wired as `serve` wires it, on a private PGlite copy (in memory) and a manual clock,
 * called in-process with `app.inject`. `env` adds configuration variables.
 */
export async function buildTestApp(
  options: {
    env?: Record<string, string>;
    now?: string;
    db?: Db;
    logger?: pino.Logger;
    webhookSender?: WebhookSender;
    /** The limiter the app spends quota on (an in-process one of its own when omitted). */
    limiter?: RateLimiter;
    /** Adds routes of the test's own before the app is ready (they pass its onRoute hooks). */
    routes?: (app: FastifyInstance, clock: ManualClock) => void;
  } = {},
): Promise<TestApp> {
  const clock = new ManualClock(options.now ?? '2026-11-22T10:15:00Z');
  const owned = options.db === undefined ? await memoryPglite() : undefined;
  const db = options.db ?? owned!.db;
  const config = loadConfig({
    LOG_LEVEL: 'silent',
    ACCESS_LOG: 'false',
    SECRET_KEY: TEST_SECRET_KEY,
    // Tests run the webhook worker by hand (`worker.runOnce()`) after moving the clock.
    WEBHOOK_POLL_SECONDS: '0',
    // And the notice worker (`notices.runOnce()`).
    NOTICE_POLL_SECONDS: '0',
    EXPORT_POLL_SECONDS: '0',
    ...options.env,
  });
  const server = await createServer(config, {
    clock,
    db,
    logger: options.logger ?? pino({ level: 'silent' }),
    ...(options.webhookSender === undefined ? {} : { webhookSender: options.webhookSender }),
    ...(options.limiter === undefined ? {} : { limiter: options.limiter }),
  });
  options.routes?.(server.app, clock);
  await server.app.ready();
  return {
    app: server.app,
    services: server.services,
    recorder: server.recorder,
    webhooks: server.webhooks,
    worker: server.worker,
    notices: server.notices,
    exportWorker: server.exportWorker,
    releases: server.releases,
    data: server.data,
    oauth: server.oauth,
    sla: server.sla,
    heartbeat: server.heartbeat,
    licenses: server.licenses,
    quotaEndpoints: server.quotaEndpoints,
    clock,
    db,
    listen: () => server.listen(),
    async close() {
      await server.close();
      await owned?.cleanup();
    },
  };
}
