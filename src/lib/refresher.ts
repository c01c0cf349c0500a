import type { Logger } from './logger.js';

/**
 * Runs an in-memory view's re-read (`read`) on demand and on a timer: calls during a read get
 * one more read after it (never more than one waiting), so a burst of change notices costs at
 * most two reads and nobody is answered from a read that began before their change.
 */
export class Refresher {
  readonly #read: () => Promise<void>;
  readonly #logger: Pick<Logger, 'warn'>;
  readonly #failed: string;
  #refreshing: Promise<void> | undefined;
  #again: Promise<void> | undefined;
  #timer: NodeJS.Timeout | undefined;

  /** `failed`: the warning logged when a timed read fails (the view keeps serving what it has). */
  constructor(read: () => Promise<void>, logger: Pick<Logger, 'warn'>, failed: string) {
    this.#read = read;
    this.#logger = logger;
    this.#failed = failed;
  }

  refresh(): Promise<void> {
    if (this.#refreshing === undefined) {
      this.#refreshing = this.#read().finally(() => (this.#refreshing = undefined));
      return this.#refreshing;
    }
    this.#again ??= this.#refreshing
      .catch(() => undefined)
      .then(() => {
        this.#again = undefined;
        return this.refresh();
      });
    return this.#again;
  }

  /** Re-reads every `intervalMs` (the backstop when change notices are missed). */
  watch(intervalMs: number): void {
    this.stop();
    this.#timer = setInterval(() => {
      this.refresh().catch((error: unknown) => this.#logger.warn({ err: error }, this.#failed));
    }, intervalMs);
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
