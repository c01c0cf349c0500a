/**
 * The operator as a VAT-registered seller in the Netherlands (the SELLER_* settings): its
 * invoices carry VAT by the rule of docs/billing.md (21 % to a buyer without billing details).
 */
export const DUTCH_SELLER = {
  SELLER_NAME: 'Salary Data Europe B.V.',
  SELLER_ADDRESS: 'Keizersgracht 1; 1015 CJ Amsterdam',
  SELLER_COUNTRY: 'NL',
  SELLER_VAT_NUMBER: 'NL 8123.4567.8B01',
};
