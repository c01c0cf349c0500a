-- SEPA Direct Debit mandates an account gave (Core or B2B), and the collections made under
-- them. The debtor's IBAN is stored sealed with SECRET_KEY (`iban_sealed`) beside a masked
-- form to show; `reference` is the unique mandate reference (UMR) the pain.008 files name.
CREATE TABLE sepa_mandates (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  reference text NOT NULL UNIQUE,
  scheme text NOT NULL CHECK (scheme IN ('core', 'b2b')),
  iban_sealed text NOT NULL,
  iban_masked text NOT NULL,
  account_holder text NOT NULL,
  creditor_id text NOT NULL,
  creditor_name text NOT NULL,
  mandate_text text NOT NULL,
  signed_at timestamptz NOT NULL,
  revoked_at timestamptz
);
-- At most one mandate in force per account.
CREATE UNIQUE INDEX sepa_mandates_active ON sepa_mandates (account_id) WHERE revoked_at IS NULL;

-- One row per invoice sent for collection in a pain.008 batch. `pending` until the bank
-- returns or rejects it (`returned`, with the ISO 20022 reason code); at most one pending
-- collection per invoice, so a second batch never collects an invoice twice.
CREATE TABLE sepa_collections (
  end_to_end_id text PRIMARY KEY,
  invoice_id text NOT NULL REFERENCES invoices (id) ON DELETE CASCADE,
  mandate_id text NOT NULL REFERENCES sepa_mandates (id) ON DELETE CASCADE,
  batch_id text NOT NULL,
  scheme text NOT NULL,
  sequence_type text NOT NULL CHECK (sequence_type IN ('FRST', 'RCUR')),
  amount_cents bigint NOT NULL,
  collection_date text NOT NULL,
  status text NOT NULL CHECK (status IN ('pending', 'returned')),
  reason_code text,
  created_at timestamptz NOT NULL,
  returned_at timestamptz
);
CREATE UNIQUE INDEX sepa_collections_pending ON sepa_collections (invoice_id) WHERE status = 'pending';
CREATE INDEX sepa_collections_mandate ON sepa_collections (mandate_id);
