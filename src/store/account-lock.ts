import type { Queryable } from './db.js';

/**
 * Holds one account's row until the transaction ends, so that concurrent changes of the
 * account's own resources (keys, webhooks, OAuth clients, custom endpoints) and their per-plan
 * counts are serialised.
 */
export async function lockAccount(tx: Queryable, accountId: string): Promise<void> {
  await tx.query('SELECT id FROM accounts WHERE id = $1 FOR UPDATE', [accountId]);
}
