import type { Queryable } from '../store/index.js';

export interface GraceEndingKey {
  id: string;
  account_id: string;
  name: string;
  prefix: string;
  replaced_by: string;
  expires_at: Date | string;
}

/**
 * Marks, and returns, the rotated keys whose grace ends in (now, until] and that were used after
 * their rotation (`graceMs` before their expiry), and whose notice is not queued yet.
 */
export function markGraceEnding(
  tx: Queryable,
  now: Date,
  until: Date,
  graceMs: number,
): Promise<GraceEndingKey[]> {
  return tx.query<GraceEndingKey>(
    `UPDATE api_keys SET grace_notice_at = $1
     WHERE replaced_by IS NOT NULL AND revoked_at IS NULL AND grace_notice_at IS NULL
       AND expires_at > $1 AND expires_at <= $2
       AND last_used_at >= expires_at - $3 * interval '1 millisecond'
     RETURNING id, account_id, name, prefix, replaced_by, expires_at`,
    [now.toISOString(), until.toISOString(), graceMs],
  );
}
