import type { Logger } from './logger.js';

/**
 * What a process runs beside answering requests: started once, stopped once (its work
 * finished). A role is a list of jobs, started in order and stopped in the reverse order.
 */
export interface Job {
  /** `feature.verb`, as logs and metrics name it. */
  readonly name: string;
  start(): void;
  stop(): Promise<void>;
}

export interface IntervalJobOptions {
  /** Also run once at start, not only after the first interval. */
  readonly atStart?: boolean;
  /** Run at stop, once the run in progress finished (the last write of what is buffered). */
  readonly atStop?: () => Promise<unknown>;
}

/**
 * A job that runs `run` every `everyMs` (not at start unless told; never when `everyMs` is 0,
 * as tests that run by hand configure it); a failed run is logged and tried again at the next
 * interval, and a run never overlaps the one before. `stop` waits for a run in progress, then
 * runs `atStop`.
 */
export function intervalJob(
  name: string,
  everyMs: number,
  run: () => Promise<unknown>,
  logger: Logger,
  options: IntervalJobOptions = {},
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
      if (timer !== undefined || everyMs <= 0) return;
      timer = setInterval(tick, everyMs);
      timer.unref();
      if (options.atStart === true) tick();
    },
    async stop() {
      clearInterval(timer);
      timer = undefined;
      await running;
      await options.atStop?.();
    },
  };
}

/**
 * A job whose passes a poller runs (a queue of the worker role): polled every `everyMs` when
 * that is above 0, otherwise run by hand only (`runOnce`); stopping waits for the pass in flight.
 */
export function pollerJob(
  name: string,
  everyMs: number,
  poller: { start(everyMs: number): void; stop(): Promise<void> },
): Job {
  return {
    name,
    start: () => {
      if (everyMs > 0) poller.start(everyMs);
    },
    stop: () => poller.stop(),
  };
}

/**
 * A part the jobs listed after it use (a connection, a thread pool): nothing to start, closed
 * when they have stopped.
 */
export function closing(name: string, close: () => Promise<unknown> | void): Job {
  return {
    name,
    start: () => undefined,
    stop: async () => {
      await close();
    },
  };
}

/**
 * Starts `jobs` in order; the function returned stops them in the reverse order, each once
 * however often it is called. A job that fails to stop does not keep the others running: the
 * first failure is thrown once every job was stopped.
 */
export function startJobs(jobs: readonly Job[], logger: Logger): () => Promise<void> {
  const started: Job[] = [];
  for (const job of jobs) {
    job.start();
    started.push(job);
  }
  if (started.length > 0) logger.debug({ jobs: started.map((j) => j.name) }, 'jobs started');
  let stopping: Promise<void> | undefined;
  const stopAll = async (): Promise<void> => {
    let failure: { error: unknown } | undefined;
    for (const job of started.reverse()) {
      try {
        await job.stop();
      } catch (error) {
        logger.error({ err: error, job: job.name }, `${job.name} did not stop cleanly`);
        failure ??= { error };
      }
    }
    if (failure !== undefined) throw failure.error;
  };
  return () => (stopping ??= stopAll());
}
