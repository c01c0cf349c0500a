-- When the account's e-mail address was shown to reach its holder (a mailed link was followed,
-- or the operator created the account). Paid plans and API keys need it. Accounts on a paid plan
-- before this column existed keep what they have: they count as verified from now on.
ALTER TABLE accounts ADD COLUMN email_verified_at timestamptz;
UPDATE accounts SET email_verified_at = now() WHERE plan <> 'free';

-- Single-use tokens mailed for e-mail verification and password reset. The mailed token is the
-- id with an HMAC of it (a key derived from SECRET_KEY), so nothing stored here, nor in the
-- notice outbox, is enough to use one. `email`: the address the token was mailed to; a token
-- is refused once the account's address is another.
CREATE TABLE account_tokens (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  purpose text NOT NULL,
  email text NOT NULL,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  used_at timestamptz
);
CREATE INDEX account_tokens_account ON account_tokens (account_id, purpose);
