/**
 * A bounded set of strings, each remembered for the same fixed time. Entries all live equally
 * long, so insertion order is expiry order: when full, the oldest goes first, and a flood of
 * new entries costs O(1) each and never more than `max` entries of memory.
 */
export class ExpiringSet {
  readonly #until = new Map<string, number>();

  constructor(
    private readonly ttlMs: number,
    private readonly max: number,
  ) {}

  get size(): number {
    return this.#until.size;
  }

  /** Whether `value` was added less than ttlMs before `now`. */
  has(value: string, now: number): boolean {
    const until = this.#until.get(value);
    if (until === undefined) return false;
    if (until > now) return true;
    this.#until.delete(value);
    return false;
  }

  /** Adds `value` (or refreshes it); false when it was already there and current. */
  add(value: string, now: number): boolean {
    const fresh = !this.has(value, now);
    this.#until.delete(value);
    while (this.#until.size >= this.max) {
      const oldest = this.#until.keys().next();
      if (oldest.done === true) break;
      this.#until.delete(oldest.value);
    }
    this.#until.set(value, now + this.ttlMs);
    return fresh;
  }

  clear(): void {
    this.#until.clear();
  }
}
