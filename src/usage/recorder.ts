import type { Logger } from '../lib/logger.js';
import { HOUR_MS, windowStart } from '../limits/index.js';
import type { Db } from '../store/index.js';
import { addUsage, type UsageRow } from './repo.js';

const SEP = '\u0000';

/**
 * Counts every API request in memory (account, key, endpoint, status, UTC hour) and writes
 * the counts in batches: no write on the request path. A failed write keeps the counts for
 * the next attempt; `flush()` on shutdown writes what is left.
 */
export class UsageRecorder {
  #counts = new Map<string, number>();
  #timer: NodeJS.Timeout | undefined;
  #flushing: Promise<void> | undefined;

  constructor(
    private readonly db: Db,
    private readonly logger: Logger,
    /** Also written with each flush (e.g. keys' last-used times). */
    private readonly alsoOnFlush: (db: Db) => Promise<void> = async () => undefined,
  ) {}

  record(
    accountId: string | null,
    keyId: string | null,
    endpoint: string,
    status: number,
    at: number,
  ): void {
    const key = [accountId ?? '', keyId ?? '', endpoint, status, windowStart(at, HOUR_MS)].join(
      SEP,
    );
    this.#counts.set(key, (this.#counts.get(key) ?? 0) + 1);
  }

  /** Counts of one account not yet written, so reports from this instance are exact. */
  pending(accountId: string): UsageRow[] {
    const rows: UsageRow[] = [];
    for (const [key, count] of this.#counts) {
      const row = toRow(key, count);
      if (row.accountId === accountId) rows.push(row);
    }
    if (this.#flushing !== undefined)
      rows.push(...this.#inFlight.filter((r) => r.accountId === accountId));
    return rows;
  }

  #inFlight: UsageRow[] = [];

  flush(): Promise<void> {
    this.#flushing ??= this.#flush().finally(() => (this.#flushing = undefined));
    return this.#flushing;
  }

  async #flush(): Promise<void> {
    const batch = this.#counts;
    this.#counts = new Map();
    this.#inFlight = [...batch].map(([key, count]) => toRow(key, count));
    try {
      await this.db.transaction(async (tx) => {
        await addUsage(tx, this.#inFlight);
      });
      this.#inFlight = [];
      await this.alsoOnFlush(this.db);
    } catch (error) {
      for (const row of this.#inFlight) {
        const key = [row.accountId, row.keyId, row.endpoint, row.status, row.hour].join(SEP);
        this.#counts.set(key, (this.#counts.get(key) ?? 0) + row.count);
      }
      this.#inFlight = [];
      throw error;
    }
  }

  start(intervalMs: number): void {
    this.stop();
    this.#timer = setInterval(() => {
      this.flush().catch((error: unknown) =>
        this.logger.warn({ err: error }, 'usage flush failed; kept for the next one'),
      );
    }, intervalMs);
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }
}

function toRow(key: string, count: number): UsageRow {
  const [accountId = '', keyId = '', endpoint = '', status = '0', hour = '0'] = key.split(SEP);
  return { accountId, keyId, endpoint, status: Number(status), hour: Number(hour), count };
}
