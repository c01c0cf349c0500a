import type { Config } from '../config/index.js';
import { createApi } from './api.js';
import { createCore, type ProcessDeps } from './core.js';
import { createWorker } from './worker.js';

/** What a process runs: the HTTP API, the background jobs, or both (the embedded default). */
export type Role = 'all' | 'api' | 'worker';

/**
 * A server process of both roles over one database: the API answering requests and the worker
 * running the jobs (`salary-api serve`, and every test that builds the app).
 */
export async function createServer(config: Config, deps: ProcessDeps) {
  const core = await createCore(config, deps);
  const worker = await createWorker(core, deps);
  const api = await createApi(core);
  await core.listen();
  worker.start();
  return {
    app: api.app,
    services: core.services,
    recorder: api.recorder,
    webhooks: core.webhooks,
    worker: worker.webhookWorker,
    notices: worker.notices,
    exports: core.exports,
    exportWorker: worker.exportWorker,
    jobs: worker.jobs,
    releases: core.releases,
    data: core.data,
    oauth: api.oauth,
    metrics: core.metrics,
    sla: core.sla,
    heartbeat: api.heartbeat,
    licenses: core.licenses,
    quotaEndpoints: api.quotaEndpoints,
    listen: () => api.listen(),
    drain: () => api.drain(),
    /** Stops the jobs (reverse order), then the API (its counts written), then the rest. */
    async close(): Promise<void> {
      await worker.stop();
      await api.close();
      await core.close();
    },
  };
}

/** One role of a process on PostgreSQL: `serve --role api` or `serve --role worker`. */
export async function createRole(config: Config, deps: ProcessDeps, role: 'api' | 'worker') {
  const core = await createCore(config, deps);
  if (role === 'worker') {
    const worker = await createWorker(core, deps);
    await core.listen();
    worker.start();
    return {
      listen: async () => undefined,
      drain: async () => undefined,
      async close(): Promise<void> {
        await worker.stop();
        await core.close();
      },
    };
  }
  const api = await createApi(core);
  await core.listen();
  return {
    listen: () => api.listen(),
    drain: () => api.drain(),
    async close(): Promise<void> {
      await api.close();
      await core.close();
    },
  };
}
