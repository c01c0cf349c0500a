-- Webhooks: endpoints (secrets encrypted with SECRET_KEY), the delivery outbox and its attempts.
-- Deliveries are written in the transaction that records their event (a data release load).
CREATE TABLE webhook_endpoints (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  url text NOT NULL,
  events text[] NOT NULL,
  enabled boolean NOT NULL DEFAULT true,
  disabled_reason text,
  secret_enc text NOT NULL,
  -- After a rotation the previous secret also signs until it expires (24 hours).
  previous_secret_enc text,
  previous_secret_expires_at timestamptz,
  failing_since timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX webhook_endpoints_account ON webhook_endpoints (account_id, created_at);

CREATE TABLE webhook_deliveries (
  id text PRIMARY KEY,
  endpoint_id text NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  event_id text NOT NULL REFERENCES events (id),
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed')),
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz,
  claimed_by text,
  claimed_until timestamptz,
  last_status_code integer,
  last_error text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  completed_at timestamptz
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, created_at DESC);

CREATE TABLE webhook_attempts (
  id bigserial PRIMARY KEY,
  delivery_id text NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
  attempt integer NOT NULL,
  started_at timestamptz NOT NULL,
  duration_ms integer NOT NULL,
  status_code integer,
  ok boolean NOT NULL,
  error text
);
CREATE INDEX webhook_attempts_delivery ON webhook_attempts (delivery_id, attempt);
