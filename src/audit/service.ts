import { sha256Hex } from '../lib/crypto.js';
import type { Db, Queryable } from '../store/index.js';
import * as repo from './repo.js';
import type { AuditRow } from './repo.js';

export const GENESIS = '0'.repeat(64);

export interface AuditEntry {
  accountId: string | null;
  /** Who acted: `account:<id>`, `key:<id>`, `operator`, `system`. */
  actor: string;
  /** `feature.verb`, e.g. `keys.create`, `sessions.create_failed`. */
  action: string;
  data?: Record<string, unknown>;
  ip?: string | null;
  at: Date;
}

/**
 * The tamper-evident audit log: each entry's hash covers its content and the previous entry's
 * hash, so editing or deleting an entry breaks every hash after it (`verifyAuditChain`).
 * Written in the caller's transaction, so an action and its audit entry commit together.
 */
export async function recordAudit(tx: Queryable, entry: AuditEntry): Promise<void> {
  await recordAuditBatch(tx, [entry]);
}

/**
 * Appends `entries` to the chain in this order, in the caller's transaction: one lock, one read
 * of the last hash and one INSERT for all of them (serial ids follow the VALUES order).
 */
export async function recordAuditBatch(
  tx: Queryable,
  entries: readonly AuditEntry[],
): Promise<void> {
  if (entries.length === 0) return;
  let prevHash = (await repo.lockChainHead(tx)) ?? GENESIS;
  const rows: repo.NewChainRow[] = [];
  for (const entry of entries) {
    const data = entry.data ?? {};
    const createdAt = entry.at.toISOString();
    const ip = entry.ip ?? null;
    const hash = entryHash(
      prevHash,
      entry.accountId,
      entry.actor,
      entry.action,
      data,
      ip,
      createdAt,
    );
    rows.push({
      accountId: entry.accountId,
      actor: entry.actor,
      action: entry.action,
      data,
      ip,
      createdAt,
      prevHash,
      hash,
    });
    prevHash = hash;
  }
  await repo.insertChainRows(tx, rows);
}

/** Most entries one batch writes (8 parameters each: well under PostgreSQL's 65,535). */
const MAX_BATCH = 500;

/**
 * Group commit for entries that are an action of their own (an issued OAuth token): an entry
 * arriving while a write is in flight waits for it, then goes with every other waiting entry in
 * one transaction (it waits one turn of the event loop before each). Each `record` resolves only once its entry is committed, and rejects when
 * that transaction fails, so nothing acknowledged is lost; the chain stays in arrival order.
 */
export function createAuditWriter(db: { transaction: Db['transaction'] }) {
  let queue: { entry: AuditEntry; resolve: () => void; reject: (error: unknown) => void }[] = [];
  let writing = false;

  async function drain(): Promise<void> {
    writing = true;
    while (queue.length > 0) {
      // One turn of the event loop first: requests whose work finished meanwhile (a signature
      // from the thread pool) join this batch. PGlite runs a transaction without giving the
      // event loop a turn, so without this every batch would hold one entry.
      await new Promise((resolve) => setImmediate(resolve));
      const batch = queue.slice(0, MAX_BATCH);
      queue = queue.slice(MAX_BATCH);
      try {
        await db.transaction((tx) =>
          recordAuditBatch(
            tx,
            batch.map((b) => b.entry),
          ),
        );
        for (const b of batch) b.resolve();
      } catch (error) {
        for (const b of batch) b.reject(error);
      }
    }
    writing = false;
  }

  return {
    record(entry: AuditEntry): Promise<void> {
      return new Promise((resolve, reject) => {
        queue.push({ entry, resolve, reject });
        if (!writing) void drain();
      });
    },
  };
}

export type AuditWriter = ReturnType<typeof createAuditWriter>;

export function entryHash(
  prevHash: string,
  accountId: string | null,
  actor: string,
  action: string,
  data: unknown,
  ip: string | null,
  createdAt: string,
): string {
  return sha256Hex(
    JSON.stringify([prevHash, accountId, actor, action, canonical(data), ip, createdAt]),
  );
}

/** JSON with sorted keys, so the hash does not depend on how the database orders jsonb keys. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>)
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([k, v]) => [k, canonical(v)]),
    );
  }
  return value;
}

export type { AuditRow } from './repo.js';

export function listAudit(db: Queryable, accountId: string, limit = 100): Promise<AuditRow[]> {
  return repo.newestEntries(db, accountId, limit);
}

/** The most entries one export returns: a longer period is asked for in parts. */
export const MAX_AUDIT_EXPORT = 100_000;

/**
 * The account's entries written in [from, to), oldest first, at most `limit` (one more than
 * asked tells the caller the period holds more).
 */
export function listAuditPeriod(
  db: Queryable,
  accountId: string,
  period: { from?: Date | undefined; to?: Date | undefined },
  limit = MAX_AUDIT_EXPORT,
  order: 'oldest' | 'newest' = 'oldest',
): Promise<AuditRow[]> {
  return repo.entriesInPeriod(db, accountId, period, limit, order);
}
