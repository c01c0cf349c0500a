/** Which treatment an invoice gets (docs/billing.md states the rule), on the EU's VAT data. */
import {
  euVatCountry,
  vatTerritory,
  type EuVatCountry,
  type Party,
  type Seller,
  type VatCheck,
} from '../config/index.js';

export {
  COUNTRIES,
  countryName,
  euVatCountry,
  EU_VAT,
  normalizeVatNumber,
  vatNumberProblem,
  vatTerritory,
  type EuVatCountry,
  type Party,
  type Seller,
  type VatCheck,
} from '../config/index.js';

export type VatTreatment =
  /** The rate of a member state is charged (the seller's, or a consumer's country). */
  | 'standard'
  /** A business in another member state accounts for the VAT itself. */
  | 'reverse_charge'
  /** The buyer is outside the EU: the supply is outside the scope of EU VAT. */
  | 'outside_eu'
  /** The seller charges no VAT (no VAT registration configured). */
  | 'not_charged';

export interface VatDecision {
  treatment: VatTreatment;
  /** Basis points; 0 unless standard. */
  rateBp: number;
  /** The member state whose rate applies; null unless standard. */
  rateCountry: string | null;
  /** The sentence the invoice prints about VAT. */
  note: string;
}

/**
 * The VAT an invoice from `seller` to `buyer` carries. A buyer without billing details is
 * treated as a consumer in the seller's country. Nothing is zero-rated on the buyer's word
 * alone: the reverse charge needs a VAT number that passed a check (its check digits, or VIES
 * when the operator enabled it), named on the invoice; a location outside the EU VAT area (a
 * country outside the EU, or a part of a member state outside it, such as the Canary Islands)
 * needs the operator's confirmation. Until then VAT is charged: the buyer's country's rate for
 * a member state, the seller's for a location outside.
 */
export function decideVat(seller: Seller, buyer: Party | null): VatDecision {
  const home = seller.country === null ? undefined : euVatCountry(seller.country);
  if (seller.vatNumber === null || home === undefined) {
    return {
      treatment: 'not_charged',
      rateBp: 0,
      rateCountry: null,
      note: 'No VAT is charged: the seller is not registered for VAT.',
    };
  }
  const where =
    buyer === null
      ? { inside: true as const, country: home }
      : vatTerritory(buyer.country, buyer.address);
  if (!where.inside) {
    if (buyer?.locationConfirmed === true)
      return {
        treatment: 'outside_eu',
        rateBp: 0,
        rateCountry: null,
        note: `No VAT is charged: the buyer is in ${where.name}, outside the EU VAT area (as the seller confirmed), so the supply is outside the scope of EU VAT (Articles 6 and 59, Directive 2006/112/EC).`,
      };
    return standard(
      home,
      `the buyer's address in ${where.name} is outside the EU VAT area, which the seller has not confirmed yet; until then VAT is charged as in the seller's country`,
    );
  }
  const there = where.country;
  if (there.code !== home.code && buyer?.vatNumber != null) {
    const check = buyer.vatCheck ?? null;
    if (check === null)
      return standard(
        there,
        `the buyer's country: its VAT number ${buyer.vatNumber} is not verified yet (VIES did not answer), and VAT is charged until it is (Article 58, Directive 2006/112/EC)`,
      );
    return {
      treatment: 'reverse_charge',
      rateBp: 0,
      rateCountry: null,
      note: `Reverse charge: VAT to be accounted for by the recipient ${buyer.vatNumber} (Article 196, Directive 2006/112/EC). ${checkSentence(check)}`,
    };
  }
  return standard(
    there,
    there.code === home.code
      ? undefined
      : "the buyer's country, where the service is supplied to a buyer without a VAT number (Article 58, Directive 2006/112/EC)",
  );
}

function standard(country: EuVatCountry, why: string | undefined): VatDecision {
  const rate = `VAT at the standard rate of ${country.code === 'NL' ? 'the Netherlands' : country.name}, ${formatRate(country.rateBp)}`;
  return {
    treatment: 'standard',
    rateBp: country.rateBp,
    rateCountry: country.code,
    note: why === undefined ? `${rate}.` : `${rate}: ${why}.`,
  };
}

/** Which check the buyer's VAT number passed, as the invoice states it. */
function checkSentence(check: VatCheck): string {
  const day = check.at.slice(0, 10);
  return check.by === 'vies'
    ? `The VAT number was confirmed valid by VIES on ${day}${check.reference === null ? '' : ` (consultation ${check.reference})`}.`
    : `The VAT number was checked on ${day} for its form and check digits (not with VIES).`;
}

/** VAT on a net amount in cents, rounded half up to the cent (once per invoice). */
export function vatCents(netCents: number, rateBp: number): number {
  return Math.round((Math.max(0, netCents) * rateBp) / 10_000);
}

/** 2550 → "25.5 %", 2100 → "21 %". */
export function formatRate(rateBp: number): string {
  return `${String(rateBp / 100)} %`;
}
