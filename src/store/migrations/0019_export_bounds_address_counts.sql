-- At most one manual run queued or running per export. Where several were queued before this
-- bound, the oldest stays and the others are failed.
UPDATE export_runs r SET status = 'failed', next_attempt_at = NULL, claimed_by = NULL,
  claimed_until = NULL, finished_at = now(), updated_at = now(),
  error = 'not run: one manual run at a time per export'
WHERE r.trigger = 'manual' AND r.status IN ('queued', 'running')
  AND EXISTS (
    SELECT 1 FROM export_runs o
    WHERE o.export_id = r.export_id AND o.trigger = 'manual' AND o.status IN ('queued', 'running')
      AND (o.created_at, o.id) < (r.created_at, r.id)
  );
CREATE UNIQUE INDEX export_runs_one_manual ON export_runs (export_id)
  WHERE trigger = 'manual' AND status IN ('queued', 'running');

-- The bytes an account keeps in export files, oldest first (the per-account cap drops those).
CREATE INDEX export_files_account ON export_files (account_id, created_at);

-- Requests admitted per anonymous client address bucket (an IPv4 address or an IPv6 /64), per
-- limit rule and window, so a restarted process without Redis keeps counting where the last one
-- stopped. The bucket is stored only as a keyed hash (HMAC-SHA256 under a key derived from
-- SECRET_KEY), never as the address. Rows of ended windows are deleted as they are written.
CREATE TABLE limit_address_counts (
  bucket_hash text NOT NULL,
  rule text NOT NULL,
  window_start timestamptz NOT NULL,
  window_end timestamptz NOT NULL,
  units bigint NOT NULL,
  PRIMARY KEY (window_start, rule, bucket_hash)
);
CREATE INDEX limit_address_counts_end ON limit_address_counts (window_end);
