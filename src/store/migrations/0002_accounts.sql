-- Accounts, sessions, API keys, subscriptions, billing, usage, idempotency, audit log.
CREATE TABLE accounts (
  id text PRIMARY KEY,
  email text NOT NULL,
  password_hash text NOT NULL,
  plan text NOT NULL DEFAULT 'free',
  status text NOT NULL DEFAULT 'active',
  contract jsonb,
  allowlist text[] NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE UNIQUE INDEX accounts_email ON accounts (lower(email));
CREATE INDEX accounts_updated_at ON accounts (updated_at);

CREATE TABLE sessions (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  token_hash text NOT NULL UNIQUE,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  revoked_at timestamptz
);

CREATE TABLE api_keys (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  name text NOT NULL,
  prefix text NOT NULL,
  key_hash text NOT NULL UNIQUE,
  scopes text[],
  allowlist text[] NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL,
  last_used_at timestamptz,
  expires_at timestamptz,
  revoked_at timestamptz,
  replaced_by text,
  updated_at timestamptz NOT NULL
);
CREATE INDEX api_keys_account ON api_keys (account_id);
CREATE INDEX api_keys_updated_at ON api_keys (updated_at);

CREATE TABLE subscriptions (
  account_id text PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
  plan text NOT NULL,
  status text NOT NULL,
  anchor_at timestamptz NOT NULL,
  period_start timestamptz NOT NULL,
  period_end timestamptz NOT NULL,
  pending_plan text,
  cancel_at_period_end boolean NOT NULL DEFAULT false,
  past_due_since timestamptz,
  updated_at timestamptz NOT NULL
);

CREATE TABLE invoices (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  number bigserial UNIQUE,
  status text NOT NULL,
  period_start timestamptz NOT NULL,
  period_end timestamptz NOT NULL,
  subtotal_cents bigint NOT NULL,
  balance_applied_cents bigint NOT NULL,
  amount_due_cents bigint NOT NULL,
  created_at timestamptz NOT NULL,
  due_at timestamptz NOT NULL,
  paid_at timestamptz,
  -- set for a renewal invoice issued in advance: the plan it charges for
  renewal_plan text
);
CREATE INDEX invoices_account ON invoices (account_id, created_at);

CREATE TABLE invoice_lines (
  id bigserial PRIMARY KEY,
  invoice_id text NOT NULL REFERENCES invoices (id) ON DELETE CASCADE,
  kind text NOT NULL,
  description text NOT NULL,
  amount_cents bigint NOT NULL,
  period_start timestamptz NOT NULL,
  period_end timestamptz NOT NULL
);

-- Positive amounts are credit owed to the account; the balance is their sum.
CREATE TABLE balance_ledger (
  id bigserial PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  amount_cents bigint NOT NULL,
  reason text NOT NULL,
  invoice_id text REFERENCES invoices (id),
  created_at timestamptz NOT NULL
);
CREATE INDEX balance_ledger_account ON balance_ledger (account_id);

CREATE TABLE usage_hourly (
  account_id text NOT NULL,
  key_id text NOT NULL,
  endpoint text NOT NULL,
  status integer NOT NULL,
  hour timestamptz NOT NULL,
  count bigint NOT NULL,
  PRIMARY KEY (account_id, hour, key_id, endpoint, status)
);

CREATE TABLE idempotency_keys (
  scope text NOT NULL,
  key text NOT NULL,
  request_hash text NOT NULL,
  status integer NOT NULL,
  response text NOT NULL,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (scope, key)
);

CREATE TABLE audit_log (
  id bigserial PRIMARY KEY,
  account_id text,
  actor text NOT NULL,
  action text NOT NULL,
  data jsonb NOT NULL,
  ip text,
  created_at timestamptz NOT NULL,
  prev_hash text NOT NULL,
  hash text NOT NULL
);
CREATE INDEX audit_log_account ON audit_log (account_id, id);
