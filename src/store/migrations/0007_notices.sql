-- E-mail notices: account contacts and opt-out, the notice outbox, support requests.
-- A notice is written in the transaction of what caused it and sent by the `notices.send` job.
ALTER TABLE accounts ADD COLUMN name text;
ALTER TABLE accounts ADD COLUMN billing_email text;
ALTER TABLE accounts ADD COLUMN technical_email text;
-- Opts out of every notice that is not about billing or security.
ALTER TABLE accounts ADD COLUMN notices_opt_out boolean NOT NULL DEFAULT false;
-- Enterprise accounts: the dedicated account manager, set by the operator.
ALTER TABLE accounts ADD COLUMN manager_name text;
ALTER TABLE accounts ADD COLUMN manager_email text;

-- The address a session was started from, to tell a sign-in from a new address.
ALTER TABLE sessions ADD COLUMN ip text;
CREATE INDEX sessions_account_ip ON sessions (account_id, ip);

CREATE TABLE notices (
  id text PRIMARY KEY,
  account_id text REFERENCES accounts (id) ON DELETE CASCADE,
  kind text NOT NULL,
  data jsonb NOT NULL,
  -- Set for mail to fixed addresses (support); otherwise the account's contact for the kind.
  recipients text[],
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'failed', 'skipped')),
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz,
  claimed_by text,
  claimed_until timestamptz,
  last_error text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  sent_at timestamptz
);
CREATE INDEX notices_due ON notices (next_attempt_at) WHERE status = 'pending';
CREATE INDEX notices_account ON notices (account_id, created_at DESC);

CREATE TABLE support_requests (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  subject text NOT NULL,
  message text NOT NULL,
  severity text NOT NULL,
  priority text NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX support_requests_account ON support_requests (account_id, created_at DESC);
