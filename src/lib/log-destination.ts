import { write, writeSync } from 'node:fs';
import type pino from 'pino';

/**
 * Characters gathered before a write (about 150 access lines: one system call per 150 requests
 * under load); a line waits at most FLUSH_EVERY_MS when traffic is low.
 */
const MIN_WRITE_CHARS = 32 * 1024;
const FLUSH_EVERY_MS = 250;
/** Lines waiting beyond this (the reader of standard output has stalled) are dropped, counted. */
const MAX_PENDING_CHARS = 64 * 1024 * 1024;
const RETRY_BUSY_MS = 10;

/**
 * Log lines written to a file descriptor asynchronously in batches: a line costs its
 * formatting and an array push, never a system call.
 *
 * pino's own asynchronous destination (sonic-boom) was the first choice and is what this
 * replaces: each of its writes measures the byte length of the whole pending batch
 * (`Buffer.byteLength` of a string growing to `maxWrite`), which flattens the string every time;
 * at 32 KiB batches that made an access line cost about 8 µs more than its formatting, as much
 * as the rest of a served lookup. Here a batch is joined once, when it is written.
 *
 * One write is in flight at a time, so lines keep their order. At process exit what is pending
 * is written synchronously (`flushSync`); a SIGKILL loses at most the unwritten batch. When the
 * reader stalls (a full pipe) lines wait, up to MAX_PENDING_CHARS; beyond that they are dropped
 * and the number dropped is written once the reader takes lines again.
 */
export class BatchedWriter implements pino.DestinationStream {
  #parts: string[] = [];
  #chars = 0;
  #writing = false;
  #dropped = 0;
  #closed = false;

  constructor(
    private readonly fd: number,
    private readonly minChars = MIN_WRITE_CHARS,
    private readonly maxPendingChars = MAX_PENDING_CHARS,
  ) {}

  write(line: string): void {
    if (this.#closed) return;
    if (this.#chars >= this.maxPendingChars) {
      this.#dropped++;
      return;
    }
    this.#parts.push(line);
    this.#chars += line.length;
    if (!this.#writing && this.#chars >= this.minChars) this.#start();
  }

  /** Starts writing what is pending, unless a write is in flight (it continues when done). */
  flush(): void {
    if (!this.#writing && this.#parts.length > 0) this.#start();
  }

  /** Writes everything pending now, blocking: for process exit. */
  flushSync(): void {
    const batch = this.#take();
    if (batch === undefined) return;
    let offset = 0;
    while (offset < batch.length) {
      try {
        offset += writeSync(this.fd, batch, offset, batch.length - offset);
      } catch (error) {
        if (!isBusy(error)) return;
      }
    }
  }

  /** Writes what is pending and takes no more lines. */
  close(): void {
    this.flushSync();
    this.#closed = true;
  }

  #take(): Buffer | undefined {
    if (this.#dropped > 0) {
      this.#parts.push(
        `${JSON.stringify({ level: 40, time: Date.now(), msg: 'log lines dropped: standard output did not take them', dropped: this.#dropped })}\n`,
      );
      this.#dropped = 0;
    }
    if (this.#parts.length === 0) return undefined;
    const batch = Buffer.from(this.#parts.join(''));
    this.#parts = [];
    this.#chars = 0;
    return batch;
  }

  #start(): void {
    const batch = this.#take();
    if (batch === undefined) return;
    this.#writing = true;
    this.#writeFrom(batch, 0);
  }

  #writeFrom(batch: Buffer, offset: number): void {
    write(this.fd, batch, offset, batch.length - offset, null, (error, written) => {
      if (error !== null) {
        if (isBusy(error)) {
          setTimeout(() => this.#writeFrom(batch, offset), RETRY_BUSY_MS).unref();
          return;
        }
        // The descriptor is gone (EPIPE, EBADF): nothing more can be written to it.
        this.#writing = false;
        this.#closed = true;
        this.#parts = [];
        this.#chars = 0;
        return;
      }
      const next = offset + written;
      if (next < batch.length) return this.#writeFrom(batch, next);
      this.#writing = false;
      if (this.#chars >= this.minChars) this.#start();
    });
  }
}

function isBusy(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'EAGAIN' || code === 'EBUSY';
}

/**
 * Standard output written asynchronously in batches (BatchedWriter), flushed every
 * FLUSH_EVERY_MS and, synchronously, when the process exits (also after an uncaught exception).
 */
export function bufferedStdout(): pino.DestinationStream {
  const destination = new BatchedWriter(1);
  const timer = setInterval(() => destination.flush(), FLUSH_EVERY_MS);
  timer.unref();
  process.once('exit', () => destination.flushSync());
  return destination;
}
