import type { Queryable } from './db.js';

export interface JobClaim {
  /** Job name, `feature.verb` (`billing.run`). */
  name: string;
  /** Who holds the lease (instance id), so only the holder releases it. */
  holder: string;
  /** Epoch ms. */
  now: number;
  /** The lease lapses after this long, so a crashed holder does not block the job for ever. */
  leaseMs: number;
  /** Scheduled runs: not again (by any instance) until this long after the last one ended. */
  everyMs?: number;
}

/**
 * Runs `fn` if this caller wins the job's lease, and returns its result; `undefined` when
 * another instance holds the lease or, for a scheduled run, the job ran less than `everyMs`
 * ago. One row per job in `job_leases`; the claim is a single atomic upsert.
 */
export async function runClaimed<T>(
  db: Queryable,
  claim: JobClaim,
  fn: () => Promise<T>,
): Promise<T | undefined> {
  const now = new Date(claim.now);
  const rows = await db.query<{ name: string }>(
    `INSERT INTO job_leases (name, holder, locked_until, next_run_at)
     VALUES ($1, $2, $3, $4)
     ON CONFLICT (name) DO UPDATE SET holder = EXCLUDED.holder, locked_until = EXCLUDED.locked_until
     WHERE (job_leases.locked_until IS NULL OR job_leases.locked_until <= $4)
       AND ($5::boolean = false OR job_leases.next_run_at <= $4)
     RETURNING name`,
    [
      claim.name,
      claim.holder,
      new Date(claim.now + claim.leaseMs),
      now,
      claim.everyMs !== undefined,
    ],
  );
  if (rows.length === 0) return undefined;
  let ok = false;
  try {
    const result = await fn();
    ok = true;
    return result;
  } finally {
    // A failed run may be retried at once; a successful one waits for its interval.
    const next = ok ? claim.now + (claim.everyMs ?? 0) : claim.now;
    await db
      .query(
        `UPDATE job_leases SET holder = NULL, locked_until = NULL, next_run_at = $3,
           last_finished_at = CASE WHEN $4::boolean THEN now() ELSE last_finished_at END
         WHERE name = $1 AND holder = $2`,
        [claim.name, claim.holder, new Date(next), ok],
      )
      .catch(() => undefined); // the lease lapses by itself
  }
}
