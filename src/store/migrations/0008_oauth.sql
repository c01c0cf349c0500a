-- OAuth 2.0 client credentials: clients, the server's signing keys (private parts encrypted
-- with SECRET_KEY), revoked access tokens and used private_key_jwt assertion ids.
CREATE TABLE oauth_clients (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  name text NOT NULL,
  auth_method text NOT NULL,
  -- SHA-256 of the secret (secret methods); after a rotation the previous one for 24 hours.
  secret_hash text,
  previous_secret_hash text,
  previous_secret_expires_at timestamptz,
  jwks jsonb,
  scopes text[] NOT NULL,
  allowlist text[] NOT NULL DEFAULT '{}',
  dpop_bound boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  deleted_at timestamptz
);
CREATE INDEX oauth_clients_account ON oauth_clients (account_id, created_at);
CREATE INDEX oauth_clients_updated ON oauth_clients (updated_at);

CREATE TABLE oauth_signing_keys (
  kid text PRIMARY KEY,
  alg text NOT NULL,
  public_jwk jsonb NOT NULL,
  private_enc text NOT NULL,
  created_at timestamptz NOT NULL,
  -- A newer key signs from then on; this one stays published until its last token expires.
  retired_at timestamptz,
  -- Withdrawn: no longer published, its tokens refused at once.
  withdrawn_at timestamptz
);

CREATE TABLE oauth_revocations (
  jti text PRIMARY KEY,
  client_id text NOT NULL,
  expires_at timestamptz NOT NULL,
  revoked_at timestamptz NOT NULL
);
CREATE INDEX oauth_revocations_revoked ON oauth_revocations (revoked_at);

CREATE TABLE oauth_assertion_jtis (
  client_id text NOT NULL,
  jti text NOT NULL,
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (client_id, jti)
);
