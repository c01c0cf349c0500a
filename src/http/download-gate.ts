import { AppError } from '../errors/index.js';

/** Large files (over 500 rows, any file format) generated at once per account and per process. */
export const DOWNLOADS_PER_ACCOUNT = 2;
export const DOWNLOADS_PER_PROCESS = 4;
/**
 * How long a large file still to be written waits for one of the process's places: longer than
 * writing one takes, and well under the 30 s after which the SLA counts an answer as failed.
 */
export const DOWNLOAD_WAIT_MS = 15_000;
/** Requests that may wait for a place at once; beyond, the answer is 503 at once. */
export const DOWNLOADS_WAITING = 16;
/** What a refused download is told: a large file takes a few seconds. */
const RETRY_AFTER_SECONDS = 5;

interface Waiter {
  readonly bucket: string;
  readonly admit: (release: () => void) => void;
}

/**
 * Caps the large downloads being generated at the same time: each is seconds of CPU, and the
 * process must stay responsive for everything else (the lookups, /health). An account has at
 * most DOWNLOADS_PER_ACCOUNT files written or waiting (beyond: 429). When the process's places
 * are taken, a request waits for the next one to free, first come first served, so accounts
 * that keep the places busy cannot starve another: it is admitted before any request of theirs
 * that came after it. Only when no place frees within DOWNLOAD_WAIT_MS, or DOWNLOADS_WAITING
 * already wait, is the answer 503. Refusals carry Retry-After and spend no quota. `enter`
 * resolves to the release to call once the file is sent or abandoned.
 */
export class DownloadGate {
  readonly #byAccount = new Map<string, number>();
  readonly #waiting: Waiter[] = [];
  #running = 0;

  constructor(
    private readonly perAccount = DOWNLOADS_PER_ACCOUNT,
    private readonly perProcess = DOWNLOADS_PER_PROCESS,
    private readonly waitMs = DOWNLOAD_WAIT_MS,
    private readonly maxWaiting = DOWNLOADS_WAITING,
  ) {}

  /** Large files being generated now, for tests and diagnostics. */
  get running(): number {
    return this.#running;
  }

  /** Requests waiting for a place now, for tests and diagnostics. */
  get waiting(): number {
    return this.#waiting.length;
  }

  enter(bucket: string): Promise<() => void> {
    const mine = this.#byAccount.get(bucket) ?? 0;
    if (mine >= this.perAccount) {
      return Promise.reject(
        refusal(
          'TOO_MANY_DOWNLOADS',
          `At most ${this.perAccount} large files are generated at once per account; retry when one has finished.`,
        ),
      );
    }
    if (this.#running < this.perProcess) {
      this.#byAccount.set(bucket, mine + 1);
      this.#running++;
      return Promise.resolve(this.#release(bucket));
    }
    if (this.#waiting.length >= this.maxWaiting) return Promise.reject(busy());
    this.#byAccount.set(bucket, mine + 1);
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        bucket,
        admit: (release) => {
          clearTimeout(timer);
          resolve(release);
        },
      };
      const timer = setTimeout(() => {
        const at = this.#waiting.indexOf(waiter);
        if (at >= 0) this.#waiting.splice(at, 1);
        this.#leaveAccount(bucket);
        reject(busy());
      }, this.waitMs);
      this.#waiting.push(waiter);
    });
  }

  /** Gives the place back, to the first request waiting for one if any. */
  #release(bucket: string): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#leaveAccount(bucket);
      const next = this.#waiting.shift();
      if (next === undefined) this.#running--;
      else next.admit(this.#release(next.bucket));
    };
  }

  #leaveAccount(bucket: string): void {
    const left = (this.#byAccount.get(bucket) ?? 1) - 1;
    if (left === 0) this.#byAccount.delete(bucket);
    else this.#byAccount.set(bucket, left);
  }
}

function refusal(code: 'TOO_MANY_DOWNLOADS' | 'DOWNLOADS_BUSY', detail: string): AppError {
  return new AppError(code, detail, {
    headers: { 'retry-after': RETRY_AFTER_SECONDS },
    extensions: { retry_after: RETRY_AFTER_SECONDS },
  });
}

function busy(): AppError {
  return refusal(
    'DOWNLOADS_BUSY',
    'This instance is generating as many large files as it takes at once, and none finished in time for this one; retry shortly.',
  );
}
