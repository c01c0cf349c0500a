-- The evidence behind an invoice's VAT treatment. A buyer's VAT number is checked when the
-- billing details are set: by its check digits, or with the EU's VIES service when the operator
-- enabled it. The check that passed (`check_digits` or `vies`), when, and VIES's reference are
-- kept with the details; none while VIES could not answer (invoices then carry VAT). A location
-- outside the EU VAT area counts once the operator confirmed it.
ALTER TABLE billing_details ADD COLUMN vat_checked_by text;
ALTER TABLE billing_details ADD COLUMN vat_checked_at timestamptz;
ALTER TABLE billing_details ADD COLUMN vat_check_reference text;
ALTER TABLE billing_details ADD COLUMN location_confirmed_at timestamptz;

-- VIES's answers, so that a number is asked about once a week at most.
CREATE TABLE vat_number_checks (
  vat_number text PRIMARY KEY,
  valid boolean NOT NULL,
  reference text,
  checked_at timestamptz NOT NULL
);
