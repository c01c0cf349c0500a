-- A webhook-destination export's file is stored as it is produced, in parts of at most 256 KiB
-- (never held whole): the parts of the attempt that wrote it (export_files.parts_attempt), in
-- order. Parts of an attempt that did not finish are deleted by the next pass of the worker.
ALTER TABLE export_files ALTER COLUMN content DROP NOT NULL;
ALTER TABLE export_files ADD COLUMN parts_attempt integer;
CREATE TABLE export_file_parts (
  run_id text NOT NULL REFERENCES export_runs (id) ON DELETE CASCADE,
  attempt integer NOT NULL,
  seq integer NOT NULL,
  content bytea NOT NULL,
  PRIMARY KEY (run_id, attempt, seq)
);

-- export.failed to a webhook destination is retried as its other deliveries are: when it is
-- next due (null: nothing to send) and how many attempts were made.
ALTER TABLE export_runs ADD COLUMN failure_notice_at timestamptz;
ALTER TABLE export_runs ADD COLUMN failure_notice_attempts integer NOT NULL DEFAULT 0;
CREATE INDEX export_runs_failure_notice ON export_runs (failure_notice_at)
  WHERE failure_notice_at IS NOT NULL;
