import { enqueueNotice } from '../notices/index.js';
import type { Db } from '../store/index.js';
import { markGraceEnding } from './grace-repo.js';
import { ROTATION_GRACE_MS } from './service.js';

/** How long before a rotated key stops working its account is told. */
export const GRACE_NOTICE_LEAD_MS = 4 * 3_600_000;

/**
 * The `keys.notify_grace` job: queues the "key about to lose its rotation grace" notice for
 * every rotated key whose grace ends within GRACE_NOTICE_LEAD_MS and that was still used after
 * its rotation (a key no client uses any more needs no warning). The key is marked in the same
 * transaction, so each gets the notice once however many instances run the job.
 * Returns how many notices were queued.
 */
export async function queueGraceNotices(db: Db, now: Date): Promise<number> {
  return db.transaction(async (tx) => {
    const due = await markGraceEnding(
      tx,
      now,
      new Date(now.getTime() + GRACE_NOTICE_LEAD_MS),
      ROTATION_GRACE_MS,
    );
    for (const k of due) {
      await enqueueNotice(
        tx,
        {
          accountId: k.account_id,
          kind: 'keys.rotation_grace_ending',
          data: {
            key_id: k.id,
            key_name: k.name,
            key_prefix: k.prefix,
            new_key_id: k.replaced_by,
            expires_at: new Date(k.expires_at).toISOString(),
          },
        },
        now,
      );
    }
    return due.length;
  });
}
