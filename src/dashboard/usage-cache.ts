import type { Principal } from '../auth/index.js';
import type { Clock } from '../lib/clock.js';
import type { UsageColumn, UsageRow, UsageService } from '../usage/index.js';
import { DAY, HOUR } from './view-models.js';

/** A bucket is final this long after it ended (the recorders flush within seconds). */
const SETTLE_MS = 10 * 60_000;
/** Cached closed buckets are read again after this long, so a late write shows within it. */
const TTL_MS = 10 * 60_000;
const MAX_ENTRIES = 500;

/**
 * The dashboard's reads of grouped usage: buckets that ended more than SETTLE_MS ago do not
 * change, so they are kept in memory (per account, shape and range; bounded, expiring) and only
 * the open end of the range is read from the database on each page view. 30 days of hourly rows
 * are summed once per TTL, not per page view.
 */
export class UsageViewCache {
  readonly #entries = new Map<string, { rows: UsageRow[]; expires: number }>();

  constructor(
    private readonly usage: UsageService,
    private readonly clock: Clock,
  ) {}

  async grouped(
    principal: Principal,
    range: { from: number; to: number },
    step: 'hour' | 'day',
    columns: readonly UsageColumn[],
  ): Promise<UsageRow[]> {
    const now = this.clock.now();
    const size = step === 'hour' ? HOUR : DAY;
    const settled = Math.floor((now - SETTLE_MS) / size) * size;
    const split = Math.max(range.from, Math.min(range.to, settled));
    const open =
      split < range.to
        ? this.usage.grouped(principal, { from: split, to: range.to }, step, columns)
        : Promise.resolve([]);
    if (split === range.from) return open;
    const key = `${principal.accountId}|${step}|${columns.join(',')}|${range.from}|${split}`;
    let entry = this.#entries.get(key);
    if (entry === undefined || entry.expires <= now) {
      const rows = await this.usage.grouped(
        principal,
        { from: range.from, to: split },
        step,
        columns,
      );
      entry = { rows, expires: now + TTL_MS };
      this.#entries.delete(key);
      this.#entries.set(key, entry);
      if (this.#entries.size > MAX_ENTRIES) {
        const oldest = this.#entries.keys().next().value;
        if (oldest !== undefined) this.#entries.delete(oldest);
      }
    }
    return [...entry.rows, ...(await open)];
  }
}
