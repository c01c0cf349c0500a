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
      for (const id of this.#vintages.keys()) if (!ids.includes(id)) this.#vintages.delete(id);
    }
    if (ids[0] === this.#index?.release.id) return false;
    const active = await this.releases.active();
    if (active === undefined) return false;
    this.#index = new SalaryIndex(active.release, active.records);
    this.#vintages.delete(active.release.id);
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
      this.#vintages.delete(release.id);
      this.#vintages.set(release.id, index);
      return index;
    }
    index = this.releases.records(release).then((records) => new SalaryIndex(release, records));
    index.catch(() => this.#vintages.delete(release.id));
    this.#vintages.set(release.id, index);
    while (this.#vintages.size > this.vintageCacheSize) {
      const oldest = this.#vintages.keys().next().value;
      if (oldest === undefined) break;
      this.#vintages.delete(oldest);
    }
    return index;
  }
}
