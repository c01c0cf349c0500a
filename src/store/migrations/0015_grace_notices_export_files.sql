-- When the "key about to lose its rotation grace" notice was queued for a rotated key, so each
-- key gets it once however many instances look.
ALTER TABLE api_keys ADD COLUMN grace_notice_at timestamptz;
CREATE INDEX api_keys_grace_ending ON api_keys (expires_at)
  WHERE replaced_by IS NOT NULL AND revoked_at IS NULL AND grace_notice_at IS NULL;

-- Files of webhook-destination exports, kept 7 days behind a signed, expiring download link
-- (GET /api/v1/exports/files/{run_id}); in the database so every instance can serve them.
CREATE TABLE export_files (
  run_id text PRIMARY KEY REFERENCES export_runs (id) ON DELETE CASCADE,
  account_id text NOT NULL,
  file_name text NOT NULL,
  content_type text NOT NULL,
  content bytea NOT NULL,
  bytes bigint NOT NULL,
  sha256 text NOT NULL,
  expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX export_files_expires ON export_files (expires_at);
