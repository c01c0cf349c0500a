-- Two-factor sign-in by TOTP (RFC 6238). `secret_sealed`: the shared secret encrypted under a
-- key derived from SECRET_KEY (lib/secret-box.ts). A row with `enabled_at` NULL is an enrolment
-- not confirmed yet. `last_step`: the 30-second step of the last code accepted; a code of that
-- step or an earlier one is refused (no replay).
CREATE TABLE account_totp (
  account_id text PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
  secret_sealed text NOT NULL,
  created_at timestamptz NOT NULL,
  enabled_at timestamptz,
  last_step bigint
);

-- Single-use recovery codes, stored as SHA-256 hashes (each code has 50 random bits).
CREATE TABLE totp_recovery_codes (
  account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  code_hash text NOT NULL,
  used_at timestamptz,
  PRIMARY KEY (account_id, code_hash)
);

-- The half-signed-in state between a correct password and the code: a short-lived,
-- single-use token (its hash here) that is not a session and opens nothing else.
CREATE TABLE totp_challenges (
  id text PRIMARY KEY,
  token_hash text NOT NULL UNIQUE,
  account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  ip text,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  used_at timestamptz
);
CREATE INDEX totp_challenges_account ON totp_challenges (account_id);
