import type { EnvironmentName } from './environment.js';
import {
  euVatCountry,
  EU_VAT,
  normalizeVatNumber,
  vatNumberProblem,
  type Seller,
} from './eu-vat.js';
import { bicProblem, creditorIdProblem, ibanProblem, normalizeIban } from '../lib/bank-account.js';

/**
 * A placeholder, not a name: the seller is the operator's legal entity, which only the operator
 * can give (SELLER_NAME). The doctor and the start-up line warn while it stands.
 */
export const DEFAULT_SELLER_NAME = 'Operator legal name not set (SELLER_NAME)';

/**
 * The operator as its invoices name it: SELLER_NAME, SELLER_ADDRESS (lines separated by `;`),
 * SELLER_COUNTRY (an EU member state) and SELLER_VAT_NUMBER (of that country's form). Without
 * a VAT number invoices charge no VAT (docs/billing.md). SELLER_IBAN and SELLER_BIC are the
 * account transfers are paid into: the IBAN's length and check digits are checked.
 * SELLER_SEPA_CREDITOR_ID, the SEPA creditor identifier, lets accounts give direct debit
 * mandates collected into SELLER_IBAN; its check digits are checked.
 */
export function parseSeller(
  str: (name: EnvironmentName) => string | undefined,
  problems: string[],
): Seller {
  const country = str('SELLER_COUNTRY')?.toUpperCase() ?? null;
  if (country !== null && euVatCountry(country) === undefined)
    problems.push(
      `SELLER_COUNTRY must be the code of an EU member state (${EU_VAT.map((c) => c.code).join(', ')}; got "${country}")`,
    );
  const raw = str('SELLER_VAT_NUMBER');
  const vatNumber = raw === undefined ? null : normalizeVatNumber(raw);
  if (vatNumber !== null) {
    if (country === null) problems.push('SELLER_VAT_NUMBER needs SELLER_COUNTRY');
    else if (euVatCountry(country) !== undefined) {
      const problem = vatNumberProblem(country, vatNumber);
      if (problem !== undefined) problems.push(`SELLER_VAT_NUMBER ${problem} (got "${raw}")`);
    }
  }
  const address = (str('SELLER_ADDRESS') ?? '')
    .split(/[;\n]/)
    .map((line) => line.trim())
    .filter((line) => line !== '');
  const rawIban = str('SELLER_IBAN');
  const iban = rawIban === undefined ? null : normalizeIban(rawIban);
  if (iban !== null) {
    const problem = ibanProblem(iban);
    if (problem !== undefined) problems.push(`SELLER_IBAN ${problem} (got "${rawIban}")`);
  }
  const rawBic = str('SELLER_BIC');
  const bic = rawBic === undefined ? null : rawBic.replace(/\s+/g, '').toUpperCase();
  if (bic !== null) {
    if (iban === null) problems.push('SELLER_BIC needs SELLER_IBAN');
    const problem = bicProblem(bic);
    if (problem !== undefined) problems.push(`SELLER_BIC ${problem} (got "${rawBic}")`);
  }
  const rawCreditorId = str('SELLER_SEPA_CREDITOR_ID');
  const creditorId =
    rawCreditorId === undefined ? null : rawCreditorId.replace(/\s+/g, '').toUpperCase();
  if (creditorId !== null) {
    if (iban === null) problems.push('SELLER_SEPA_CREDITOR_ID needs SELLER_IBAN');
    const problem = creditorIdProblem(creditorId);
    if (problem !== undefined)
      problems.push(`SELLER_SEPA_CREDITOR_ID ${problem} (got "${rawCreditorId}")`);
  }
  return Object.freeze({
    name: str('SELLER_NAME') ?? DEFAULT_SELLER_NAME,
    address: Object.freeze(address) as string[],
    country,
    vatNumber,
    iban,
    bic,
    ...(creditorId === null ? {} : { sepaCreditorId: creditorId }),
  });
}

/**
 * The SELLER_* settings an invoice needs that are not set: without a name, address and
 * country an invoice names no bookable seller; without a VAT number it charges no VAT; without
 * an IBAN it carries no transfer details. Empty when invoices are complete.
 */
export function sellerGaps(seller: Seller): string[] {
  const gaps: string[] = [];
  if (seller.name === DEFAULT_SELLER_NAME) gaps.push('SELLER_NAME');
  if (seller.address.length === 0) gaps.push('SELLER_ADDRESS');
  if (seller.country === null) gaps.push('SELLER_COUNTRY');
  if (seller.vatNumber === null) gaps.push('SELLER_VAT_NUMBER');
  if (seller.iban === null) gaps.push('SELLER_IBAN');
  return gaps;
}
