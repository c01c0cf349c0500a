export {
  loadConfig,
  ConfigError,
  BUNDLED_RELEASE,
  releaseFilesFor,
  baseUrlOf,
  type Config,
} from './config.js';
export { resolveSecretKey, SECRET_KEY_FILE } from './secret-key.js';
export { sellerGaps } from './seller.js';
export {
  COUNTRIES,
  countryName,
  euVatCountry,
  EU_VAT,
  hasValidCheckDigits,
  normalizeVatNumber,
  vatNumberProblem,
  vatTerritory,
  type EuVatCountry,
  type Party,
  type Seller,
  type VatCheck,
  type VatTerritory,
} from './eu-vat.js';
export { LEGAL_DOCUMENTS, LEGAL_FILE_SETTINGS, type LegalDocument } from './legal.js';
