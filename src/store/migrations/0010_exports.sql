-- Scheduled bulk exports (Enterprise) and their runs. Destination secrets (SFTP password or
-- private key, the webhook signing secret) are sealed with SECRET_KEY in secret_enc.
-- A scheduled occurrence is one run row, unique per (export, scheduled_at): however many
-- instances enqueue it, it exists once, and runs are claimed like the webhook outbox.
CREATE TABLE exports (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  name text NOT NULL,
  schedule text NOT NULL,
  timezone text NOT NULL,
  query jsonb NOT NULL,
  format text NOT NULL,
  compression text,
  destination jsonb NOT NULL,
  secret_enc text,
  next_run_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX exports_account ON exports (account_id, created_at);
CREATE INDEX exports_due ON exports (next_run_at);

CREATE TABLE export_runs (
  id text PRIMARY KEY,
  export_id text NOT NULL REFERENCES exports (id) ON DELETE CASCADE,
  account_id text NOT NULL,
  trigger text NOT NULL CHECK (trigger IN ('schedule', 'manual')),
  scheduled_at timestamptz NOT NULL,
  status text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'succeeded', 'failed')),
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz,
  claimed_by text,
  claimed_until timestamptz,
  started_at timestamptz,
  finished_at timestamptz,
  rows integer,
  bytes bigint,
  sha256 text,
  file_name text,
  error text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE UNIQUE INDEX export_runs_occurrence ON export_runs (export_id, scheduled_at)
  WHERE trigger = 'schedule';
CREATE INDEX export_runs_due ON export_runs (next_attempt_at) WHERE status IN ('queued', 'running');
CREATE INDEX export_runs_export ON export_runs (export_id, scheduled_at DESC);
