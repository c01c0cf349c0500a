import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import type { Db } from '../store/index.js';
import { intervalStart } from './measure.js';
import { addHeartbeats, type Beat } from './repo.js';

/** Beats kept while the database does not answer: a day of them, then the oldest go. */
const MAX_BUFFERED = 24 * 12;

/**
 * The instance's heartbeat: once a minute it records that this instance is serving. When
 * PostgreSQL is briefly away the beats are kept and written late, so a database blip is not
 * counted as a total outage; only a gap without any living instance is.
 */
export class Heartbeat {
  #pending = new Map<number, Beat>();
  #timer: NodeJS.Timeout | undefined;
  #writing: Promise<void> | undefined;

  constructor(
    private readonly deps: { db: Db; clock: Clock; logger: Logger; instanceId: string },
  ) {}

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
  }

  start(everyMs: number): void {
    this.stop();
    const tick = () =>
      this.beat().catch((error: unknown) =>
        this.deps.logger.warn(
          { err: error, buffered: this.buffered },
          'heartbeat not written; kept and written with the next one',
        ),
      );
    void tick();
    this.#timer = setInterval(() => void tick(), everyMs);
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
