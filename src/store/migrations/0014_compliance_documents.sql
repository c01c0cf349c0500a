-- Compliance documents (SOC 2 reports, penetration-test summaries) the operator publishes to
-- Enterprise accounts. One row per version: a new version of a series (same `series`) is a new
-- row, `version` counting up. The original PDF is kept here, never served as it is: every
-- download is stamped for its recipient. `account_id` set: the document is for that account
-- only (every other account gets 404). Withdrawn rows stay (the audit log names them).
CREATE TABLE compliance_documents (
  id text PRIMARY KEY,
  series text NOT NULL,
  version integer NOT NULL,
  title text NOT NULL,
  description text,
  period_start date NOT NULL,
  period_end date NOT NULL,
  account_id text REFERENCES accounts (id) ON DELETE CASCADE,
  file_name text NOT NULL,
  content bytea NOT NULL,
  sha256 text NOT NULL,
  size_bytes integer NOT NULL,
  page_count integer NOT NULL,
  added_at timestamptz NOT NULL,
  withdrawn_at timestamptz,
  withdrawn_reason text,
  UNIQUE (series, version),
  CHECK (period_end >= period_start)
);
CREATE INDEX compliance_documents_series ON compliance_documents (series, version DESC);

-- The access review and audit-log export select entries of a period; the chain is verified
-- from the entry before the period's first.
CREATE INDEX audit_log_created_at ON audit_log (created_at);
