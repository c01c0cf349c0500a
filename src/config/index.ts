export { loadConfig, ConfigError, BUNDLED_RELEASE, baseUrlOf, type Config } from './config.js';
export { resolveSecretKey, SECRET_KEY_FILE } from './secret-key.js';
export {
  countryName,
  euVatCountry,
  EU_VAT,
  normalizeVatNumber,
  vatNumberProblem,
  type EuVatCountry,
  type Party,
  type Seller,
} from './eu-vat.js';
