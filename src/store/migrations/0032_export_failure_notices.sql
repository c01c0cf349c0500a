-- export.failed to a webhook destination is an outbox of its own on the job queue (lib/queue.ts,
-- `exports.notify-failure`), like every other outbox: one row per failed run of a webhook
-- destination, keyed by the run. Notices still due move here; the run's own columns go.
CREATE TABLE export_failure_notices (
  id text PRIMARY KEY REFERENCES export_runs (id) ON DELETE CASCADE,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'failed')),
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz,
  claimed_by text,
  claimed_until timestamptz,
  updated_at timestamptz NOT NULL
);
CREATE INDEX export_failure_notices_due ON export_failure_notices (next_attempt_at)
  WHERE status = 'pending';
INSERT INTO export_failure_notices (id, attempts, next_attempt_at, updated_at)
  SELECT id, failure_notice_attempts, failure_notice_at, now() FROM export_runs
  WHERE failure_notice_at IS NOT NULL;
DROP INDEX export_runs_failure_notice;
ALTER TABLE export_runs DROP COLUMN failure_notice_at;
ALTER TABLE export_runs DROP COLUMN failure_notice_attempts;
