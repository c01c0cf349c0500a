import { jsonColumn, type Queryable } from '../store/index.js';
import * as repo from './repo.js';
import { entryHash, GENESIS } from './service.js';

/** Rows hashed per query: memory stays flat however long the chain is. */
const BATCH = 2000;

export interface ChainLink {
  id: number;
  hash: string;
}

export interface ChainBreak {
  id: number;
  created_at: string;
  /** `hash`: the entry's content does not match its hash (edited); `link`: its previous hash
   * is not the hash of the entry before it (an entry deleted, inserted or reordered). */
  reason: 'hash' | 'link';
}

/** The outcome of walking the hash chain over a period. */
export interface ChainVerification {
  valid: boolean;
  /** The period asked for (ISO 8601), null where open. */
  from: string | null;
  to: string | null;
  /** Entries of the chain walked (every account's: the chain is one for the service). */
  entries_checked: number;
  first_broken: ChainBreak | null;
  /** The entry just before the period, whose hash the period's first entry must carry; null
   * when the period starts at the beginning of the chain. */
  anchor: ChainLink | null;
  /** The last entry walked: a later verification's anchor can be compared with it. */
  head: ChainLink | null;
}

/**
 * Verifies the entries of the chain written in [from, to): each entry's hash over its content
 * and the previous hash, and each link to the entry before it, starting from the entry just
 * before the period. Walks in id order, in batches.
 */
export async function verifyAuditPeriod(
  db: Queryable,
  period: { from?: Date | undefined; to?: Date | undefined } = {},
): Promise<ChainVerification> {
  const from = period.from?.toISOString() ?? null;
  const to = period.to?.toISOString() ?? null;
  const { first, last } = await repo.chainBounds(db, from, to);
  const result: ChainVerification = {
    valid: true,
    from,
    to,
    entries_checked: 0,
    first_broken: null,
    anchor: null,
    head: null,
  };
  if (first === null || last === null || first > last) return result;
  const anchorRow = await repo.entryBefore(db, first);
  result.anchor = anchorRow ?? null;
  let prev = anchorRow?.hash ?? GENESIS;
  let cursor = first;
  const end = last;
  for (;;) {
    const rows = await repo.chainRows(db, cursor, end, BATCH);
    for (const r of rows) {
      const createdAt = new Date(r.created_at).toISOString();
      result.entries_checked++;
      const expected = entryHash(
        r.prev_hash,
        r.account_id,
        r.actor,
        r.action,
        jsonColumn(r.data),
        r.ip,
        createdAt,
      );
      const reason = r.hash !== expected ? 'hash' : r.prev_hash !== prev ? 'link' : null;
      if (reason !== null && result.first_broken === null) {
        result.valid = false;
        result.first_broken = { id: Number(r.id), created_at: createdAt, reason };
      }
      prev = r.hash;
      result.head = { id: Number(r.id), hash: r.hash };
    }
    if (rows.length < BATCH) break;
    cursor = Number(rows[rows.length - 1]!.id) + 1;
  }
  return result;
}

/** Walks the whole chain; returns the id of the first entry that does not verify, or null. */
export async function verifyAuditChain(db: Queryable): Promise<number | null> {
  return (await verifyAuditPeriod(db)).first_broken?.id ?? null;
}
