import { Refresher } from '../lib/refresher.js';
import type { Db } from '../store/index.js';
import { endpointsChangedSince, liveEndpoints, type CustomEndpointRow } from './repo.js';

// Re-read changes this far back on every read: a transaction that committed late, with an
// earlier updated_at than one already seen, is still picked up.
const OVERLAP_MS = 5_000;

/**
 * Every live custom endpoint in memory, by account and slug: a request to one is decided
 * without a database round trip. A change made here applies at once and is announced (the
 * change bus), on which the other instances re-read at once; the poll is the backstop.
 */
export class CustomEndpointRegistry {
  readonly #byAccount = new Map<string, Map<string, CustomEndpointRow>>();
  readonly #slugById = new Map<string, { accountId: string; slug: string }>();
  #since = new Date(0).toISOString();

  constructor(private readonly deps: { db: Db }) {}

  async load(): Promise<void> {
    for (const row of await liveEndpoints(this.deps.db)) this.apply(row);
  }

  /** Everything again from the database (after a rolled-back transaction applied a change). */
  async reload(): Promise<void> {
    const rows = await liveEndpoints(this.deps.db);
    this.#byAccount.clear();
    this.#slugById.clear();
    for (const row of rows) this.apply(row);
  }

  /** The account's endpoint published under `slug`, if any. */
  find(accountId: string, slug: string): CustomEndpointRow | undefined {
    return this.#byAccount.get(accountId)?.get(slug);
  }

  /** The account's endpoints, by slug. */
  list(accountId: string): CustomEndpointRow[] {
    return [...(this.#byAccount.get(accountId)?.values() ?? [])].sort((a, b) =>
      a.slug.localeCompare(b.slug),
    );
  }

  /** A row as read or written: replaces the endpoint of its id (a deleted row removes it). */
  apply(row: CustomEndpointRow): void {
    const previous = this.#slugById.get(row.id);
    if (previous !== undefined) {
      const slugs = this.#byAccount.get(previous.accountId);
      if (slugs?.get(previous.slug)?.id === row.id) slugs.delete(previous.slug);
      this.#slugById.delete(row.id);
    }
    if (row.updatedAt > this.#since) this.#since = row.updatedAt;
    if (row.deletedAt !== null) return;
    let slugs = this.#byAccount.get(row.accountId);
    if (slugs === undefined)
      this.#byAccount.set(row.accountId, (slugs = new Map<string, CustomEndpointRow>()));
    slugs.set(row.slug, row);
    this.#slugById.set(row.id, { accountId: row.accountId, slug: row.slug });
  }

  /** Reads what changed; a call during a read is answered by one more read after it. */
  readonly #refresher = new Refresher(() => this.#refresh());

  refresh(): Promise<void> {
    return this.#refresher.refresh();
  }

  async #refresh(): Promise<void> {
    const since = new Date(Date.parse(this.#since) - OVERLAP_MS).toISOString();
    for (const row of await endpointsChangedSince(this.deps.db, since)) this.apply(row);
  }
}
