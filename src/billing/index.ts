export { addMonthsAnchored, cycleAt, type BillingCycle, type Period } from './cycle.js';
export { prorate, unusedFraction, upgradeCharge } from './proration.js';
export { applyBalance, type BalanceApplication } from './balance.js';
export {
  createSubscriptionService,
  subscriptionView,
  planOf,
  operatorPrincipal,
  type SubscriptionService,
  type PublicSubscription,
} from './service.js';
export { runBilling, ADVANCE_INVOICE_MS, GRACE_MS, type BillingRunResult } from './run.js';
export {
  bankTransferCollector,
  publicInvoice,
  PAYMENT_TERMS_MS,
  type PaymentCollector,
  type PublicInvoice,
} from './invoicing.js';
export { listInvoices, findInvoice, balanceOf, ledger } from './repo.js';
// The SLA's automatic credits go to the same ledger (src/sla).
export { addLedgerEntry } from './repo.js';
export {
  checkDigitsVerifier,
  viesVerifier,
  VIES_CACHE_MS,
  type VatAnswer,
  type VatNumberVerifier,
} from './vat-check.js';
export {
  confirmBuyerLocation,
  createBillingDetails,
  detailsProblems,
  MAX_ADDRESS_LINES,
  type BillingDetailsInput,
  type BillingDetailsService,
  type PublicBillingDetails,
} from './details.js';
export { epcQrSvg } from './transfer.js';
export {
  COUNTRIES,
  countryName,
  decideVat,
  formatRate,
  EU_VAT,
  vatNumberProblem,
  type Party,
  type Seller,
  type VatDecision,
  type VatTreatment,
} from './vat.js';
export {
  billingRoutes,
  billingSchemas,
  BillingDetailsBodySchema,
  MandateBodySchema,
} from './routes.js';
