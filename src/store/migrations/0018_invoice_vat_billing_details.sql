-- The account's billing details: who its invoices are made out to. One row per account; a
-- company name, address lines (postal code and city included), an ISO country code and an
-- optional VAT number (normalized: upper case, no spaces).
CREATE TABLE billing_details (
  account_id text PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
  company_name text NOT NULL,
  address_lines text[] NOT NULL,
  country text NOT NULL,
  vat_number text,
  updated_at timestamptz NOT NULL
);

-- An invoice keeps the seller and buyer as they were when it was issued (JSON: name, address,
-- country, vat_number; buyer null when the account had no billing details) and its VAT: the
-- treatment, the rate in basis points, the member state whose rate applies, the sentence it
-- prints, the VAT amount and the total with VAT. Invoices issued before carry no VAT.
ALTER TABLE invoices ADD COLUMN seller jsonb;
ALTER TABLE invoices ADD COLUMN buyer jsonb;
ALTER TABLE invoices ADD COLUMN vat_treatment text NOT NULL DEFAULT 'not_charged';
ALTER TABLE invoices ADD COLUMN vat_rate_bp integer NOT NULL DEFAULT 0;
ALTER TABLE invoices ADD COLUMN vat_country text;
ALTER TABLE invoices ADD COLUMN vat_note text;
ALTER TABLE invoices ADD COLUMN vat_cents bigint NOT NULL DEFAULT 0;
ALTER TABLE invoices ADD COLUMN total_cents bigint;
UPDATE invoices SET total_cents = subtotal_cents;
ALTER TABLE invoices ALTER COLUMN total_cents SET NOT NULL;
