import { createHmac, hkdfSync } from 'node:crypto';
import type { Clock } from '../lib/clock.js';
import type { MemoryRateLimiter } from '../limits/index.js';
import type { Queryable } from '../store/index.js';
import { addAddressCounts, openAddressCounts, type AddressCountRow } from './repo.js';

/** The limiter's buckets of anonymous callers (see auth/client-address.ts). */
const ADDRESS_BUCKET = 'addr:';

interface Written {
  hash: string;
  windowStart: number;
  windowEnd: number;
  count: number;
}

/** What one flush writes; `commit` records it as written once the transaction is. */
export interface AddressBatch {
  write(tx: Queryable): Promise<void>;
  commit(): void;
}

/**
 * The in-process limiter's counts of anonymous client address buckets, kept across a restart
 * without Redis: written with each usage flush (what each bucket admitted since the last one,
 * added up, so several instances on one PostgreSQL sum their shares as usage does), and read
 * back at start, each count raising its bucket's counter the first time the bucket is seen.
 * A bucket is stored only as its keyed hash (HMAC-SHA256 under a key derived from SECRET_KEY),
 * never as the address; rows of ended windows are deleted as they are written.
 */
export class AddressCounts {
  readonly #key: Buffer;
  /** Per bucket and rule (`bucket \0 rule`): the count written (or read at start) last. */
  readonly #written = new Map<string, Written>();
  /** Counts read at start, by `hash \0 rule \0 window start`, until their bucket is seen. */
  readonly #seeds = new Map<string, number>();
  #seedsUntil = 0;

  constructor(
    private readonly deps: { clock: Clock; limiter: MemoryRateLimiter; secretKey: string },
  ) {
    this.#key = Buffer.from(
      hkdfSync('sha256', deps.secretKey, 'salary-api', 'limit-address-buckets', 32),
    );
  }

  hashOf(bucket: string): string {
    return createHmac('sha256', this.#key).update(bucket).digest('base64url');
  }

  /**
   * Reads the counts of windows not yet ended and has the limiter start each bucket's counter
   * from its count; returns how many were read.
   */
  async seed(db: Queryable): Promise<number> {
    const now = this.deps.clock.now();
    const rows = await openAddressCounts(db, now);
    for (const r of rows) {
      this.#seeds.set(`${r.hash}\0${r.rule}\0${r.windowStart}`, r.units);
      this.#seedsUntil = Math.max(this.#seedsUntil, r.windowEnd);
    }
    this.deps.limiter.startFrom((bucket, rule, windowStart) => {
      if (this.#seeds.size === 0 || !bucket.startsWith(ADDRESS_BUCKET)) return 0;
      if (windowStart >= this.#seedsUntil) {
        this.#seeds.clear();
        return 0;
      }
      const hash = this.hashOf(bucket);
      const key = `${hash}\0${rule.name}\0${windowStart}`;
      const count = this.#seeds.get(key);
      if (count === undefined) return 0;
      this.#seeds.delete(key);
      // Already written: the next flush adds only what is admitted from here on.
      const windowEnd = windowStart + rule.windowMs;
      this.#written.set(`${bucket}\0${rule.name}`, { hash, windowStart, windowEnd, count });
      return count;
    });
    return rows.length;
  }

  /** What the address buckets admitted since the last flush, to write with the usage. */
  batch(): AddressBatch {
    const now = this.deps.clock.now();
    const changed = new Map<string, Written>();
    const rows: AddressCountRow[] = [];
    for (const c of this.deps.limiter.counters(ADDRESS_BUCKET)) {
      const key = `${c.bucket}\0${c.rule}`;
      const last = this.#written.get(key);
      const base = last?.windowStart === c.windowStart ? last.count : 0;
      if (c.count === base) continue;
      const hash = last?.hash ?? this.hashOf(c.bucket);
      changed.set(key, {
        hash,
        windowStart: c.windowStart,
        windowEnd: c.windowEnd,
        count: c.count,
      });
      rows.push({
        hash,
        rule: c.rule,
        windowStart: c.windowStart,
        windowEnd: c.windowEnd,
        units: c.count - base,
      });
    }
    return {
      write: (tx) => addAddressCounts(tx, rows, now),
      commit: () => {
        for (const [key, written] of changed) this.#written.set(key, written);
        for (const [key, { windowEnd }] of this.#written)
          if (windowEnd <= now) this.#written.delete(key);
      },
    };
  }
}
