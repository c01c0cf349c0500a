import { AppError } from '../errors/index.js';

/** Large files (over 500 rows, any file format) generated at once per account and per process. */
export const DOWNLOADS_PER_ACCOUNT = 2;
export const DOWNLOADS_PER_PROCESS = 4;
/** What a refused download is told: a large file takes a few seconds. */
const RETRY_AFTER_SECONDS = 5;

/**
 * Caps the large downloads being generated at the same time: each is seconds of CPU, and the
 * process must stay responsive for everything else (the lookups, /health). Over the account's
 * share the answer is 429, over the process's 503, both with Retry-After; the caller spends no
 * quota on either. `enter` returns the release to call once the file is sent or abandoned.
 */
export class DownloadGate {
  readonly #byAccount = new Map<string, number>();
  #running = 0;

  constructor(
    private readonly perAccount = DOWNLOADS_PER_ACCOUNT,
    private readonly perProcess = DOWNLOADS_PER_PROCESS,
  ) {}

  /** Large files being generated now, for tests and diagnostics. */
  get running(): number {
    return this.#running;
  }

  enter(bucket: string): () => void {
    const mine = this.#byAccount.get(bucket) ?? 0;
    const retry = {
      headers: { 'retry-after': RETRY_AFTER_SECONDS },
      extensions: { retry_after: RETRY_AFTER_SECONDS },
    };
    if (mine >= this.perAccount) {
      throw new AppError(
        'TOO_MANY_DOWNLOADS',
        `At most ${this.perAccount} large files are generated at once per account; retry when one has finished.`,
        retry,
      );
    }
    if (this.#running >= this.perProcess) {
      throw new AppError(
        'DOWNLOADS_BUSY',
        'This instance is generating as many large files as it takes at once; retry shortly.',
        retry,
      );
    }
    this.#byAccount.set(bucket, mine + 1);
    this.#running++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#running--;
      const left = (this.#byAccount.get(bucket) ?? 1) - 1;
      if (left === 0) this.#byAccount.delete(bucket);
      else this.#byAccount.set(bucket, left);
    };
  }
}
