/**
 * Runs a job's pass (`pass`, returning how much it did) one at a time: by hand (`runOnce`, a
 * caller during a pass waits for it and runs again) or every `intervalMs` after `start` until
 * `stop`, which waits (up to `graceMs`) for the pass in flight. `stopping` tells a pass to end early.
 */
export interface Poller {
  readonly stopping: boolean;
  readonly runOnce: () => Promise<number>;
  readonly start: (intervalMs: number) => void;
  readonly stop: (graceMs?: number) => Promise<void>;
}

export function createPoller(
  pass: () => Promise<number>,
  onError: (error: unknown) => void,
): Poller {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<number> | undefined;
  let stopping = false;

  const runOnce = (): Promise<number> => {
    const next = (running ?? Promise.resolve(0)).catch(() => 0).then(pass);
    running = next;
    return next;
  };

  return {
    get stopping() {
      return stopping;
    },
    runOnce,
    start: (intervalMs) => {
      stopping = false;
      const tick = (): void => {
        timer = setTimeout(() => {
          runOnce()
            .catch(onError)
            .finally(() => {
              if (!stopping) tick();
            });
        }, intervalMs);
        timer.unref();
      };
      tick();
    },
    stop: async (graceMs = 5_000) => {
      stopping = true;
      clearTimeout(timer);
      if (running === undefined) return;
      let wait: NodeJS.Timeout | undefined;
      await Promise.race([
        running.catch(() => 0),
        new Promise((resolve) => {
          wait = setTimeout(resolve, graceMs);
        }),
      ]);
      clearTimeout(wait);
    },
  };
}
