-- When the account was deleted by its holder or the operator: its personal data erased, its
-- credentials revoked, its address free for a new sign-up. The row stays (anonymised) because
-- invoices, the ledger and the audit log, kept for tax law and security, refer to it.
ALTER TABLE accounts ADD COLUMN deleted_at timestamptz;
