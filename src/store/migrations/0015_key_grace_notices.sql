-- When the "key about to lose its rotation grace" notice was queued for a rotated key, so each
-- key gets it once however many instances look.
ALTER TABLE api_keys ADD COLUMN grace_notice_at timestamptz;
CREATE INDEX api_keys_grace_ending ON api_keys (expires_at)
  WHERE replaced_by IS NOT NULL AND revoked_at IS NULL AND grace_notice_at IS NULL;
