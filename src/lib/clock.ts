/** The time source of everything that depends on "now": windows, cycles, timestamps. */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

export const systemClock: Clock = Object.freeze({ now: () => Date.now() });

/** A clock that stands still until moved; tests use it to cross windows without sleeping. */
export class ManualClock implements Clock {
  #now: number;

  constructor(start: number | string | Date) {
    this.#now = new Date(start).getTime();
    if (Number.isNaN(this.#now)) throw new RangeError(`invalid start time: ${String(start)}`);
  }

  now(): number {
    return this.#now;
  }

  set(at: number | string | Date): void {
    this.#now = new Date(at).getTime();
  }

  advance(ms: number): void {
    this.#now += ms;
  }
}
