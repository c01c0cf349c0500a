import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import type { Db } from '../store/index.js';
import { intervalStart } from './measure.js';
import { addHeartbeats, otherInstanceSince, type Beat } from './repo.js';

/** Beats kept while the database does not answer: a day of them, then the oldest go. */
const MAX_BUFFERED = 24 * 12;

/**
 * The instance's heartbeat: once a minute it records that this instance is serving. When
 * PostgreSQL is briefly away the beats are kept and written late, so a database blip is not
 * counted as a total outage; only a gap without any living instance is.
 *
 * An instance that counts quotas in its own memory (no REDIS_URL) is meant to be the database's
 * only one: with `countersInProcess`, each written beat also looks for another instance beating
 * since this one started, and the first one seen is logged as an error (each would let an
 * account spend its limits once more).
 */
export class Heartbeat {
  #pending = new Map<number, Beat>();
  #writing: Promise<void> | undefined;
  readonly #startedAt: number;
  #otherSeen = false;

  constructor(
    private readonly deps: {
      db: Db;
      clock: Clock;
      logger: Logger;
      instanceId: string;
      countersInProcess?: boolean;
    },
  ) {
    this.#startedAt = deps.clock.now();
  }

  /** Records one beat now and writes every beat not yet written. */
  beat(): Promise<void> {
    const at = this.deps.clock.now();
    const start = intervalStart(at);
    const b = this.#pending.get(start);
    if (b === undefined) this.#pending.set(start, { start, beats: 1, lastAt: at });
    else this.#pending.set(start, { start, beats: b.beats + 1, lastAt: at });
    while (this.#pending.size > MAX_BUFFERED) {
      const oldest = this.#pending.keys().next().value as number;
      this.#pending.delete(oldest);
    }
    return this.write();
  }

  /** How many intervals' beats wait for the database. */
  get buffered(): number {
    return this.#pending.size;
  }

  write(): Promise<void> {
    this.#writing ??= this.#write().finally(() => (this.#writing = undefined));
    return this.#writing;
  }

  async #write(): Promise<void> {
    const batch = [...this.#pending.values()];
    if (batch.length === 0) return;
    this.#pending = new Map();
    try {
      await addHeartbeats(this.deps.db, this.deps.instanceId, batch);
    } catch (error) {
      for (const b of batch) {
        const now = this.#pending.get(b.start);
        this.#pending.set(
          b.start,
          now === undefined
            ? b
            : {
                start: b.start,
                beats: b.beats + now.beats,
                lastAt: Math.max(b.lastAt, now.lastAt),
              },
        );
      }
      // Oldest first again, so that the cap drops the oldest.
      this.#pending = new Map([...this.#pending].sort((a, b) => a[0] - b[0]));
      throw error;
    }
    // Written: the beats are kept no longer, whatever this look finds (it is tried again).
    if (this.deps.countersInProcess === true && !this.#otherSeen)
      await this.#lookForOthers().catch(() => undefined);
  }

  async #lookForOthers(): Promise<void> {
    const other = await otherInstanceSince(this.deps.db, this.deps.instanceId, this.#startedAt);
    if (other === null) return;
    this.#otherSeen = true;
    this.deps.logger.error(
      { otherInstance: other },
      'another instance serves this database, and REDIS_URL is not set: each instance counts quotas in its own memory, so an account can spend its limits once per instance; set REDIS_URL on every instance',
    );
  }
}
