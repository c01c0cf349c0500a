-- Uptime SLA (docs/sla.md). Every table is keyed by the 5-minute interval it measures
-- (interval_start, a multiple of 5 minutes since the epoch, UTC).

-- Requests of one account in one interval by what they count as: served (counted, not
-- failed), failed (500/502/503/504 or not answered within 30 s), refused for the account's own
-- reasons (402, 429). Instances add their in-memory counts in batches, so rows are summed.
CREATE TABLE sla_intervals (
  account_id text NOT NULL,
  interval_start timestamptz NOT NULL,
  served bigint NOT NULL DEFAULT 0,
  failed bigint NOT NULL DEFAULT 0,
  refused bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (account_id, interval_start)
);
CREATE INDEX sla_intervals_time ON sla_intervals (interval_start);

-- Each serving instance beats once a minute; an interval without any beat had nothing alive.
CREATE TABLE sla_heartbeats (
  interval_start timestamptz NOT NULL,
  instance_id text NOT NULL,
  beats integer NOT NULL,
  last_at timestamptz NOT NULL,
  PRIMARY KEY (interval_start, instance_id)
);

-- Results of `salary-api probe` (/ready and one lookup every 30 s), per prober and interval.
CREATE TABLE sla_probes (
  interval_start timestamptz NOT NULL,
  prober text NOT NULL,
  ok integer NOT NULL DEFAULT 0,
  failed integer NOT NULL DEFAULT 0,
  last_at timestamptz NOT NULL,
  last_error text,
  PRIMARY KEY (interval_start, prober)
);

-- One row per account and closed month: the computed uptime and the credit, written in the
-- transaction that writes the credit to the balance ledger; the key makes month close once.
CREATE TABLE sla_months (
  account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  month date NOT NULL,
  plan text NOT NULL,
  target_percent numeric NOT NULL,
  uptime_percent numeric NOT NULL,
  intervals integer NOT NULL,
  excluded_intervals integer NOT NULL,
  down_intervals integer NOT NULL,
  fee_cents bigint NOT NULL,
  credit_percent integer NOT NULL,
  credit_cents bigint NOT NULL,
  computed_at timestamptz NOT NULL,
  PRIMARY KEY (account_id, month)
);

-- Credit bands of an Enterprise contract when it sets its own (CLI `sla bands`):
-- [{"below": 99.95, "percent": 10}, ...]; without a row the plan's bands apply.
CREATE TABLE sla_contract_bands (
  account_id text PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
  bands jsonb NOT NULL,
  updated_at timestamptz NOT NULL
);

CREATE TABLE status_incidents (
  id text PRIMARY KEY,
  title text NOT NULL,
  component text NOT NULL,
  status text NOT NULL CHECK (status IN ('investigating', 'identified', 'monitoring', 'resolved')),
  created_at timestamptz NOT NULL,
  resolved_at timestamptz
);
CREATE INDEX status_incidents_time ON status_incidents (created_at);

CREATE TABLE status_incident_updates (
  id bigserial PRIMARY KEY,
  incident_id text NOT NULL REFERENCES status_incidents (id) ON DELETE CASCADE,
  status text NOT NULL,
  message text NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX status_incident_updates_incident ON status_incident_updates (incident_id, id);

-- Announced maintenance. Excluded from the SLA only when announced_at <= starts_at - 5 days,
-- and at most 4 hours of it per month (docs/sla.md).
CREATE TABLE status_maintenance (
  id text PRIMARY KEY,
  title text NOT NULL,
  starts_at timestamptz NOT NULL,
  ends_at timestamptz NOT NULL CHECK (ends_at > starts_at),
  announced_at timestamptz NOT NULL
);
CREATE INDEX status_maintenance_time ON status_maintenance (starts_at);
