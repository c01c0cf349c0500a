import { readFileSync } from 'node:fs';

const SAMPLE_EVERY_MS = 500;

/** Resident set size of a process in bytes, from /proc/<pid>/status; undefined once it is gone. */
export function readRss(pid: number): number | undefined {
  try {
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match?.[1] === undefined ? undefined : Number(match[1]) * 1024;
  } catch {
    return undefined;
  }
}

/** Samples a process's RSS every 500 ms until stopped; keeps the maximum. */
export class RssSampler {
  #max = 0;
  readonly #timer: NodeJS.Timeout;

  constructor(private readonly pid: number) {
    this.#sample();
    this.#timer = setInterval(() => this.#sample(), SAMPLE_EVERY_MS);
  }

  #sample(): void {
    this.#max = Math.max(this.#max, readRss(this.pid) ?? 0);
  }

  /** Takes a last sample, stops, and returns the maximum in bytes. */
  stop(): number {
    clearInterval(this.#timer);
    this.#sample();
    return this.#max;
  }
}
