import type { Logger } from './logger.js';

/** A background job of the worker role: started once, stopped once (its work finished). */
export interface Job {
  /** `feature.verb`, as logs and metrics name it. */
  readonly name: string;
  start(): void;
  stop(): Promise<void>;
}

/**
 * A job that runs `run` every `everyMs` (not at start); a failed run is logged and tried again at
 * the next interval, and a run never overlaps the one before. `stop` waits for a run in progress.
 */
export function intervalJob(
  name: string,
  everyMs: number,
  run: () => Promise<unknown>,
  logger: Logger,
): Job {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  const tick = (): void => {
    if (running !== undefined) return;
    running = run()
      .then(
        () => undefined,
        (error: unknown) =>
          logger.warn({ err: error, job: name }, `${name} failed; retried next interval`),
      )
      .finally(() => (running = undefined));
  };
  return {
    name,
    start() {
      timer ??= setInterval(tick, everyMs);
      timer.unref();
    },
    async stop() {
      clearInterval(timer);
      timer = undefined;
      await running;
    },
  };
}

/** Starts `jobs` in order; the function returned stops them in the reverse order. */
export function startJobs(jobs: readonly Job[], logger: Logger): () => Promise<void> {
  const started: Job[] = [];
  for (const job of jobs) {
    job.start();
    started.push(job);
  }
  if (started.length > 0) logger.debug({ jobs: started.map((j) => j.name) }, 'jobs started');
  return async () => {
    for (const job of started.reverse()) await job.stop();
  };
}
