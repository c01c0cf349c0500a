import type { Config } from '../config/index.js';
import { startJobs } from '../lib/job.js';
import { createApi } from './api.js';
import { createCore, type ProcessDeps } from './core.js';
import { createWorker } from './worker.js';

/** What a process runs: the HTTP API, the background jobs, or both (the embedded default). */
export type Role = 'all' | 'api' | 'worker';

/**
 * A `serve` process (and every test that builds the app): the core, then the API role, the
 * worker role or both over it. Their jobs start in that order; `close` stops them in the
 * reverse one: the worker's, then the API's (the server first, then its last counts written),
 * then the core's (the shared store last).
 */
export async function startServer(config: Config, deps: ProcessDeps, role: Role = 'all') {
  const core = await createCore(config, deps);
  const api = role === 'worker' ? undefined : await createApi(core);
  const worker = role === 'api' ? undefined : await createWorker(core, deps);
  const close = startJobs(
    [...core.jobs, ...(api?.jobs ?? []), ...(worker?.jobs ?? [])],
    core.base.logger,
  );
  return {
    core,
    api,
    worker,
    /** Listens as the API role (nothing for the worker role alone). */
    listen: async (): Promise<string | undefined> => api?.listen(),
    /** The first step of a graceful stop: requests already sent are read and answered. */
    drain: async (): Promise<void> => api?.drain(),
    close,
  };
}

export type Server = Awaited<ReturnType<typeof startServer>>;
