/** Which treatment an invoice gets (docs/billing.md states the rule), on the EU's VAT data. */
import { euVatCountry, type Party, type Seller } from '../config/index.js';

export {
  countryName,
  euVatCountry,
  EU_VAT,
  normalizeVatNumber,
  vatNumberProblem,
  type EuVatCountry,
  type Party,
  type Seller,
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
 * treated as a consumer in the seller's country.
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
  const there = buyer === null ? home : euVatCountry(buyer.country);
  if (there === undefined) {
    return {
      treatment: 'outside_eu',
      rateBp: 0,
      rateCountry: null,
      note: 'No VAT is charged: the buyer is outside the EU, so the supply is outside the scope of EU VAT (Article 59, Directive 2006/112/EC).',
    };
  }
  if (there.code !== home.code && buyer?.vatNumber != null) {
    return {
      treatment: 'reverse_charge',
      rateBp: 0,
      rateCountry: null,
      note: `Reverse charge: VAT to be accounted for by the recipient ${buyer.vatNumber} (Article 196, Directive 2006/112/EC).`,
    };
  }
  const rate = `VAT at the standard rate of ${there.code === 'NL' ? 'the Netherlands' : there.name}, ${formatRate(there.rateBp)}`;
  return {
    treatment: 'standard',
    rateBp: there.rateBp,
    rateCountry: there.code,
    note:
      there.code === home.code
        ? `${rate}.`
        : `${rate}: the buyer's country, where the service is supplied to a buyer without a VAT number (Article 58, Directive 2006/112/EC).`,
  };
}

/** VAT on a net amount in cents, rounded half up to the cent (once per invoice). */
export function vatCents(netCents: number, rateBp: number): number {
  return Math.round((Math.max(0, netCents) * rateBp) / 10_000);
}

/** 2550 → "25.5 %", 2100 → "21 %". */
export function formatRate(rateBp: number): string {
  return `${String(rateBp / 100)} %`;
}
