import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { loadConfig } from '../../src/config/index.js';
import { ManualClock } from '../../src/lib/clock.js';
import { setPasswordHashCost } from '../../src/lib/crypto.js';
import type { Job } from '../../src/lib/job.js';
import type { RateLimiter } from '../../src/limits/index.js';
import type { Api } from '../../src/main/api.js';
import type { Core } from '../../src/main/core.js';
import { startServer } from '../../src/main/serve.js';
import type { Worker } from '../../src/main/worker.js';
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
  services: Core['accounts'];
  recorder: Api['usage']['recorder'];
  webhooks: Core['webhooks']['service'];
  worker: Worker['webhookWorker'];
  notices: Worker['notices'];
  exportWorker: Worker['exportWorker'];
  releases: Core['data']['releases'];
  data: Core['data']['store'];
  oauth: Api['oauth'];
  sla: Core['sla'];
  heartbeat: Api['heartbeat'];
  licenses: Core['licenses'];
  quotaEndpoints: Api['quotaEndpoints'];
  /** Every job of the process by name (a test may pause one: stop, then start again). */
  job(name: string): Job;
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
  const server = await startServer(config, {
    clock,
    db,
    logger: options.logger ?? pino({ level: 'silent' }),
    ...(options.webhookSender === undefined ? {} : { webhookSender: options.webhookSender }),
    ...(options.limiter === undefined ? {} : { limiter: options.limiter }),
  });
  const { core, api, worker } = server;
  if (api === undefined || worker === undefined) throw new Error('role all runs both roles');
  options.routes?.(api.app, clock);
  await api.app.ready();
  const jobs = [...core.jobs, ...api.jobs, ...worker.jobs];
  return {
    app: api.app,
    services: core.accounts,
    recorder: api.usage.recorder,
    webhooks: core.webhooks.service,
    worker: worker.webhookWorker,
    notices: worker.notices,
    exportWorker: worker.exportWorker,
    releases: core.data.releases,
    data: core.data.store,
    oauth: api.oauth,
    sla: core.sla,
    heartbeat: api.heartbeat,
    licenses: core.licenses,
    quotaEndpoints: api.quotaEndpoints,
    job(name) {
      const job = jobs.find((j) => j.name === name);
      if (job === undefined) throw new Error(`no job ${name}`);
      return job;
    },
    clock,
    db,
    listen: () => api.listen(),
    async close() {
      await server.close();
      await owned?.cleanup();
    },
  };
}
