import type { Logger } from '../lib/logger.js';
import type { ReleaseRow, ReleaseService } from '../releases/index.js';
import { SalaryIndex } from './salary-index.js';

/** Older releases held in memory at once, beside the active one (least recently used goes). */
export const VINTAGE_CACHE_SIZE = 2;

/**
 * Holds the in-memory index of the active release and keeps it fresh: `refresh()` asks the
 * database for the kept releases' ids (one small query) and rebuilds only when the active one
 * changed, so a release loaded by the CLI or another instance is picked up without a restart.
 * Older kept releases (vintages) are read from the database when first asked for and held in a
 * small least-recently-used cache, so memory stays bounded however many releases are kept.
 */
export class SalaryDataStore {
  #index: SalaryIndex | undefined;
  #kept: readonly ReleaseRow[] = [];
  #keptKey = '';
  #refreshing: Promise<boolean> | undefined;
  readonly #vintages = new Map<number, Promise<SalaryIndex>>();
  /** The vintages of `#vintages` already read, by release id. */
  readonly #held = new Map<number, SalaryIndex>();
  /** The release id last asked for: the most recently used, already last in `#vintages`. */
  #lastAsked: number | undefined;

  constructor(
    private readonly releases: ReleaseService,
    private readonly logger: Logger,
    private readonly vintageCacheSize = VINTAGE_CACHE_SIZE,
  ) {}

  get index(): SalaryIndex | undefined {
    return this.#index;
  }

  /** The kept releases, newest loaded first (the first is the active one). */
  get kept(): readonly ReleaseRow[] {
    return this.#kept;
  }

  /** Rebuilds the index if another release became active; true when it changed. */
  refresh(): Promise<boolean> {
    this.#refreshing ??= this.#refresh().finally(() => (this.#refreshing = undefined));
    return this.#refreshing;
  }

  async #refresh(): Promise<boolean> {
    const ids = await this.releases.keptIds();
    const key = ids.join(',');
    if (ids[0] === undefined) return false;
    if (key !== this.#keptKey) {
      this.#kept = await this.releases.list();
      this.#keptKey = this.#kept.map((r) => r.id).join(',');
      for (const id of this.#vintages.keys()) if (!ids.includes(id)) this.#forget(id);
    }
    if (ids[0] === this.#index?.release.id) return false;
    const active = await this.releases.active();
    if (active === undefined) return false;
    this.#index = new SalaryIndex(active.release, active.records);
    this.#forget(active.release.id);
    this.logger.info(
      { release: active.release.version, records: active.records.length },
      'salary data release active',
    );
    return true;
  }

  /**
   * The index of a kept release: the active one as held, an older one from the cache or read
   * from the database (once, however many requests ask for it meanwhile).
   */
  vintage(release: ReleaseRow): Promise<SalaryIndex> {
    if (release.id === this.#index?.release.id) return Promise.resolve(this.#index);
    let index = this.#vintages.get(release.id);
    if (index !== undefined) {
      this.#touch(release.id, index);
      return index;
    }
    index = this.releases.records(release).then((records) => {
      const read = new SalaryIndex(release, records);
      if (this.#vintages.get(release.id) === index) this.#held.set(release.id, read);
      return read;
    });
    index.catch(() => {
      if (this.#vintages.get(release.id) === index) this.#forget(release.id);
    });
    this.#vintages.set(release.id, index);
    this.#lastAsked = release.id;
    while (this.#vintages.size > this.vintageCacheSize) {
      const oldest = this.#vintages.keys().next().value;
      if (oldest === undefined) break;
      this.#forget(oldest);
    }
    return index;
  }

  /**
   * The index of a kept release when it is in memory (the active one, or an older one already
   * read), without waiting: a lookup pinned to a release held is answered as synchronously as
   * one of the active release. Undefined when it has still to be read (see `vintage`).
   */
  held(release: ReleaseRow): SalaryIndex | undefined {
    if (release.id === this.#index?.release.id) return this.#index;
    const index = this.#held.get(release.id);
    if (index !== undefined) this.#touch(release.id, this.#vintages.get(release.id)!);
    return index;
  }

  /**
   * Marks a cached vintage as the most recently used. A Map keeps insertion order, so that is
   * a delete and a set; done only when another release was asked for since, because each one
   * makes the Map rebuild its table, and under a stream of lookups pinned to one release that
   * was the bulk of the process's garbage that outlives the young generation.
   */
  #touch(id: number, index: Promise<SalaryIndex>): void {
    if (this.#lastAsked === id) return;
    this.#vintages.delete(id);
    this.#vintages.set(id, index);
    this.#lastAsked = id;
  }

  #forget(id: number): void {
    this.#vintages.delete(id);
    this.#held.delete(id);
    if (this.#lastAsked === id) this.#lastAsked = undefined;
  }
}
