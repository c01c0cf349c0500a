import type { Db } from '../store/index.js';
import { intervalStart, statusClass, type IntervalCounts } from './measure.js';
import { addCounts, type CountRow } from './repo.js';

/**
 * Counts each account's API requests per 5-minute interval by how they count for the SLA
 * (served, failed, refused), in memory, and adds them to the database in batches as usage is:
 * no write on the request path. A failed write keeps the counts for the next attempt.
 */
export class SlaCounter {
  #counts = new Map<string, Map<number, IntervalCounts>>();
  #flushing: Promise<void> | undefined;

  constructor(private readonly db: Db) {}

  /** One answered request; `ms` is the server's own time on it (30 s or more counts as failed). */
  count(accountId: string | null, status: number, at: number, ms = 0): void {
    if (accountId === null) return;
    const kind = statusClass(status, ms);
    if (kind === undefined) return;
    let byInterval = this.#counts.get(accountId);
    if (byInterval === undefined)
      this.#counts.set(accountId, (byInterval = new Map<number, IntervalCounts>()));
    const start = intervalStart(at);
    let c = byInterval.get(start);
    if (c === undefined) byInterval.set(start, (c = { served: 0, failed: 0, refused: 0 }));
    c[kind]++;
  }

  /** This instance's counts of one account not yet written, so its report is exact. */
  pending(accountId: string): ReadonlyMap<number, IntervalCounts> {
    return this.#counts.get(accountId) ?? new Map();
  }

  flush(): Promise<void> {
    this.#flushing ??= this.#flush().finally(() => (this.#flushing = undefined));
    return this.#flushing;
  }

  async #flush(): Promise<void> {
    const batch = this.#counts;
    if (batch.size === 0) return;
    this.#counts = new Map();
    const rows: CountRow[] = [];
    for (const [accountId, byInterval] of batch)
      for (const [start, c] of byInterval) rows.push({ accountId, start, ...c });
    try {
      await addCounts(this.db, rows);
    } catch (error) {
      for (const r of rows) {
        let byInterval = this.#counts.get(r.accountId);
        if (byInterval === undefined)
          this.#counts.set(r.accountId, (byInterval = new Map<number, IntervalCounts>()));
        const c = byInterval.get(r.start) ?? { served: 0, failed: 0, refused: 0 };
        byInterval.set(r.start, {
          served: c.served + r.served,
          failed: c.failed + r.failed,
          refused: c.refused + r.refused,
        });
      }
      throw error;
    }
  }
}
