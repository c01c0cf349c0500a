import type { Queryable } from '../store/index.js';

/** A key's stored first answer: status 0 while its first attempt runs. */
export interface StoredRow {
  request_hash: string;
  status: number;
  response: string;
}

/** Takes the attempt's transaction-scoped lock on (scope, key); false when another holds it. */
export async function tryLockKey(tx: Queryable, scope: string, key: string): Promise<boolean> {
  const [lock] = await tx.query<{ held: boolean }>(
    'SELECT pg_try_advisory_xact_lock(hashtextextended($1, 0)) AS held',
    [`idempotency\n${scope}\n${key}`],
  );
  return lock?.held === true;
}

/** Deletes the key's row when it expired, or is a placeholder older than the lease. */
export async function deleteStale(
  tx: Queryable,
  scope: string,
  key: string,
  expiredBefore: Date,
  placeholderBefore: Date,
): Promise<void> {
  await tx.query(
    `DELETE FROM idempotency_keys WHERE scope = $1 AND key = $2
     AND (created_at < $3 OR (status = 0 AND created_at < $4))`,
    [scope, key, expiredBefore.toISOString(), placeholderBefore.toISOString()],
  );
}

/** Inserts the placeholder of a first attempt; false when the key has a row already. */
export async function insertPlaceholder(
  tx: Queryable,
  scope: string,
  key: string,
  hash: string,
  at: Date,
): Promise<boolean> {
  const inserted = await tx.query(
    `INSERT INTO idempotency_keys (scope, key, request_hash, status, response, created_at)
     VALUES ($1, $2, $3, 0, '', $4) ON CONFLICT (scope, key) DO NOTHING RETURNING key`,
    [scope, key, hash, at.toISOString()],
  );
  return inserted.length === 1;
}

export async function findStored(
  tx: Queryable,
  scope: string,
  key: string,
): Promise<StoredRow | undefined> {
  const rows = await tx.query<StoredRow>(
    'SELECT request_hash, status, response FROM idempotency_keys WHERE scope = $1 AND key = $2',
    [scope, key],
  );
  return rows[0];
}

/** Stores the first attempt's answer (sealed) in its placeholder. */
export async function storeAnswer(
  tx: Queryable,
  scope: string,
  key: string,
  status: number,
  sealed: string,
): Promise<void> {
  await tx.query(
    'UPDATE idempotency_keys SET status = $3, response = $4 WHERE scope = $1 AND key = $2',
    [scope, key, status, sealed],
  );
}

/** Deletes the rows created before `before`; how many. */
export async function purgeBefore(db: Queryable, before: Date): Promise<number> {
  const rows = await db.query('DELETE FROM idempotency_keys WHERE created_at < $1 RETURNING key', [
    before.toISOString(),
  ]);
  return rows.length;
}
