import { HOUR_MS, windowStart } from '../limits/index.js';
import type { Db } from '../store/index.js';
import type { AddressCounts } from './address-counts.js';
import { addUsage, type UsageRow } from './repo.js';

/** Request counts by account ('' for anonymous), key (''), endpoint, status and UTC hour. */
type Hours = Map<number, number>;
type ByStatus = Map<number, Hours>;
type ByEndpoint = Map<string, ByStatus>;
type ByKey = Map<string, ByEndpoint>;
type Counts = Map<string, ByKey>;

/** The map under `key`, made when missing. */
function child<K, V extends Map<unknown, unknown>>(map: Map<K, V>, key: K): V {
  let value = map.get(key);
  if (value === undefined) map.set(key, (value = new Map() as V));
  return value;
}

function add(
  counts: Counts,
  accountId: string,
  keyId: string,
  endpoint: string,
  status: number,
  hour: number,
  count: number,
): void {
  const hours = child(child(child(child(counts, accountId), keyId), endpoint), status);
  hours.set(hour, (hours.get(hour) ?? 0) + count);
}

function* rowsOf(accountId: string, byKey: ByKey): Generator<UsageRow> {
  for (const [keyId, byEndpoint] of byKey)
    for (const [endpoint, byStatus] of byEndpoint)
      for (const [status, hours] of byStatus)
        for (const [hour, count] of hours)
          yield { accountId, keyId, endpoint, status, hour, count };
}

/**
 * Counts every API request in memory (account, key, endpoint, status, UTC hour) and writes
 * the counts in batches: no write on the request path. Counting builds no string: nested maps
 * keyed by the values themselves. A failed write keeps the counts for the next attempt;
 * `flush()` on shutdown writes what is left.
 */
export class UsageRecorder {
  #counts: Counts = new Map();
  #flushing: Promise<void> | undefined;

  constructor(
    private readonly db: Db,
    /** Also written with each flush (e.g. keys' last-used times). */
    private readonly alsoOnFlush: (db: Db) => Promise<void> = async () => undefined,
    /** The anonymous callers' limit counts, written in the usage's transaction. */
    private readonly addresses?: AddressCounts,
  ) {}

  record(
    accountId: string | null,
    keyId: string | null,
    endpoint: string,
    status: number,
    at: number,
  ): void {
    const hour = windowStart(at, HOUR_MS);
    add(this.#counts, accountId ?? '', keyId ?? '', endpoint, status, hour, 1);
  }

  /** Counts of one account not yet written, so reports from this instance are exact. */
  pending(accountId: string): UsageRow[] {
    const byKey = this.#counts.get(accountId);
    const rows: UsageRow[] = byKey === undefined ? [] : [...rowsOf(accountId, byKey)];
    if (this.#flushing !== undefined)
      rows.push(...this.#inFlight.filter((r) => r.accountId === accountId));
    return rows;
  }

  #inFlight: UsageRow[] = [];

  #flushedAt = Date.now();

  /** Wall-clock time (ms) of the last successful write of the counts, or of the start. */
  get flushedAt(): number {
    return this.#flushedAt;
  }

  flush(): Promise<void> {
    this.#flushing ??= this.#flush().finally(() => (this.#flushing = undefined));
    return this.#flushing;
  }

  async #flush(): Promise<void> {
    const batch = this.#counts;
    this.#counts = new Map();
    this.#inFlight = [...batch].flatMap(([accountId, byKey]) => [...rowsOf(accountId, byKey)]);
    const addresses = this.addresses?.batch();
    try {
      await this.db.transaction(async (tx) => {
        await addUsage(tx, this.#inFlight);
        await addresses?.write(tx);
      });
      addresses?.commit();
      this.#inFlight = [];
      this.#flushedAt = Date.now();
      await this.alsoOnFlush(this.db);
    } catch (error) {
      for (const r of this.#inFlight)
        add(this.#counts, r.accountId, r.keyId, r.endpoint, r.status, r.hour, r.count);
      this.#inFlight = [];
      throw error;
    }
  }
}
