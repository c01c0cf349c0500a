-- Enterprise custom endpoints: saved queries an account publishes at /api/v1/custom/{slug}.
-- Deleted rows stay (deleted_at) so every instance's "changed since" read sees the deletion.
CREATE TABLE custom_endpoints (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  slug text NOT NULL,
  description text NOT NULL DEFAULT '',
  query jsonb NOT NULL,
  parameters jsonb NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  deleted_at timestamptz
);
CREATE UNIQUE INDEX custom_endpoints_live_slug ON custom_endpoints (account_id, slug)
  WHERE deleted_at IS NULL;
CREATE INDEX custom_endpoints_updated ON custom_endpoints (updated_at);

-- Data licences recorded by the operator with the contract; white-label ones neutralise output.
CREATE TABLE account_licenses (
  account_id text PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
  licensee text NOT NULL,
  attribution text NOT NULL,
  white_label boolean NOT NULL,
  permitted_use text,
  term_end date,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);

-- A licensee's own host names (TLS at the proxy): the docs page and OpenAPI info carry its name.
CREATE TABLE account_hosts (
  host text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL
);
