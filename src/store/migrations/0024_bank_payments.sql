-- Credits read from the operator's bank statements (camt.053, camt.054), one row per booked
-- credit, keyed by the reference the bank gave it: importing a statement again finds each
-- credit already there and changes nothing. `outcome` is what the credit did: paid an invoice
-- (`paid`), paid part of it (`partial`), paid it with an excess credited to the account's
-- balance (`overpaid`), or matched nothing and waits for the operator (`unmatched`).
CREATE TABLE bank_payments (
  bank_reference text PRIMARY KEY,
  message text NOT NULL,
  statement_id text,
  amount_cents bigint NOT NULL,
  currency text NOT NULL,
  booked_on text,
  debtor_name text,
  remittance text NOT NULL,
  invoice_id text REFERENCES invoices (id) ON DELETE SET NULL,
  outcome text NOT NULL CHECK (outcome IN ('paid', 'partial', 'overpaid', 'unmatched')),
  credited_cents bigint NOT NULL DEFAULT 0,
  note text,
  imported_at timestamptz NOT NULL
);
CREATE INDEX bank_payments_unmatched ON bank_payments (imported_at) WHERE outcome = 'unmatched';
