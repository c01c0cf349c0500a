import type { Logger } from '../lib/logger.js';
import type { ReleaseService } from '../releases/index.js';
import { SalaryIndex } from './salary-index.js';

/**
 * Holds the in-memory index of the active release and keeps it fresh: `refresh()` asks the
 * database for the active release id (one tiny query) and rebuilds only when it changed, so a
 * release loaded by the CLI or another instance is picked up without a restart.
 */
export class SalaryDataStore {
  #index: SalaryIndex | undefined;
  #timer: NodeJS.Timeout | undefined;
  #refreshing: Promise<boolean> | undefined;

  constructor(
    private readonly releases: ReleaseService,
    private readonly logger: Logger,
  ) {}

  get index(): SalaryIndex | undefined {
    return this.#index;
  }

  /** Rebuilds the index if another release became active; true when it changed. */
  refresh(): Promise<boolean> {
    this.#refreshing ??= this.#refresh().finally(() => (this.#refreshing = undefined));
    return this.#refreshing;
  }

  async #refresh(): Promise<boolean> {
    const activeId = await this.releases.activeId();
    if (activeId === undefined || activeId === this.#index?.release.id) return false;
    const active = await this.releases.active();
    if (active === undefined) return false;
    this.#index = new SalaryIndex(active.release, active.records);
    this.logger.info(
      { release: active.release.version, records: active.records.length },
      'salary data release active',
    );
    return true;
  }

  /** Polls every `intervalMs`; a failing database keeps the current index serving. */
  watch(intervalMs: number): void {
    this.stop();
    this.#timer = setInterval(() => {
      this.refresh().catch((error: unknown) =>
        this.logger.warn({ err: error }, 'release refresh failed; serving the loaded release'),
      );
    }, intervalMs);
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
