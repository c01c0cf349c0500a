/**
 * The EU's VAT reference data: the standard rate of each member state and the form of its VAT
 * numbers. The configuration checks the seller's settings with it; billing decides an
 * invoice's treatment with it (src/billing/vat.ts, docs/billing.md).
 */

export interface EuVatCountry {
  /** ISO 3166-1 alpha-2. */
  readonly code: string;
  /** The prefix of its VAT numbers: the ISO code, except Greece (EL). */
  readonly prefix: string;
  readonly name: string;
  /** Standard rate in basis points (2100 = 21 %). */
  readonly rateBp: number;
  /** The number after the prefix (upper case, no spaces, dots or hyphens). */
  readonly pattern: RegExp;
  /** A number of the right form, shown when one is refused. */
  readonly example: string;
}

const c = (
  code: string,
  name: string,
  rateBp: number,
  pattern: RegExp,
  example: string,
  prefix = code,
): EuVatCountry => Object.freeze({ code, prefix, name, rateBp, pattern, example });

/** The 27 member states' standard VAT rates in force from 1 August 2025. */
export const EU_VAT: readonly EuVatCountry[] = Object.freeze([
  c('AT', 'Austria', 2000, /^U\d{8}$/, 'ATU12345678'),
  c('BE', 'Belgium', 2100, /^[01]\d{9}$/, 'BE0123456789'),
  c('BG', 'Bulgaria', 2000, /^\d{9,10}$/, 'BG123456789'),
  c('HR', 'Croatia', 2500, /^\d{11}$/, 'HR12345678901'),
  c('CY', 'Cyprus', 1900, /^\d{8}[A-Z]$/, 'CY12345678X'),
  c('CZ', 'Czechia', 2100, /^\d{8,10}$/, 'CZ12345678'),
  c('DK', 'Denmark', 2500, /^\d{8}$/, 'DK12345678'),
  c('EE', 'Estonia', 2400, /^\d{9}$/, 'EE123456789'),
  c('FI', 'Finland', 2550, /^\d{8}$/, 'FI12345678'),
  c('FR', 'France', 2000, /^[0-9A-HJ-NP-Z]{2}\d{9}$/, 'FR12345678901'),
  c('DE', 'Germany', 1900, /^\d{9}$/, 'DE123456789'),
  c('GR', 'Greece', 2400, /^\d{9}$/, 'EL123456789', 'EL'),
  c('HU', 'Hungary', 2700, /^\d{8}$/, 'HU12345678'),
  c('IE', 'Ireland', 2300, /^(\d{7}[A-W][A-I]?|\d[A-Z+*]\d{5}[A-W])$/, 'IE1234567T'),
  c('IT', 'Italy', 2200, /^\d{11}$/, 'IT12345678901'),
  c('LV', 'Latvia', 2100, /^\d{11}$/, 'LV12345678901'),
  c('LT', 'Lithuania', 2100, /^(\d{9}|\d{12})$/, 'LT123456789'),
  c('LU', 'Luxembourg', 1700, /^\d{8}$/, 'LU12345678'),
  c('MT', 'Malta', 1800, /^\d{8}$/, 'MT12345678'),
  c('NL', 'Netherlands', 2100, /^\d{9}B\d{2}$/, 'NL123456789B01'),
  c('PL', 'Poland', 2300, /^\d{10}$/, 'PL1234567890'),
  c('PT', 'Portugal', 2300, /^\d{9}$/, 'PT123456789'),
  c('RO', 'Romania', 2100, /^[1-9]\d{1,9}$/, 'RO1234567890'),
  c('SK', 'Slovakia', 2300, /^\d{10}$/, 'SK1234567890'),
  c('SI', 'Slovenia', 2200, /^\d{8}$/, 'SI12345678'),
  c('ES', 'Spain', 2100, /^[A-Z0-9]\d{7}[A-Z0-9]$/, 'ESB12345678'),
  c('SE', 'Sweden', 2500, /^\d{10}01$/, 'SE123456789701'),
]);

const BY_CODE = new Map(EU_VAT.map((country) => [country.code, country]));

export function euVatCountry(code: string): EuVatCountry | undefined {
  return BY_CODE.get(code);
}

const REGION_NAMES = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });
/** Codes Intl names that are no country (groupings, reserved and unknown regions). */
const NOT_COUNTRIES = new Set(['EU', 'EZ', 'UN', 'ZZ', 'UK', 'QO', 'XA', 'XB', 'AA']);

/** The English name of an ISO 3166-1 alpha-2 country code; undefined when it is none. */
export function countryName(code: string): string | undefined {
  if (!/^[A-Z]{2}$/.test(code) || NOT_COUNTRIES.has(code)) return undefined;
  return BY_CODE.get(code)?.name ?? REGION_NAMES.of(code);
}

/** A VAT number as written on invoices: upper case, without spaces, dots and hyphens. */
export function normalizeVatNumber(raw: string): string {
  return raw.toUpperCase().replace(/[\s.-]/g, '');
}

/**
 * Why `vatNumber` (normalized) is not a VAT number of `country`, naming the allowed form;
 * undefined when it is. Outside the EU any tax number of 2 to 20 letters and digits is kept.
 */
export function vatNumberProblem(country: string, vatNumber: string): string | undefined {
  const eu = BY_CODE.get(country);
  if (eu === undefined) {
    return /^[A-Z0-9]{2,20}$/.test(vatNumber) ? undefined : 'must be 2 to 20 letters and digits';
  }
  if (!vatNumber.startsWith(eu.prefix))
    return `must start with ${eu.prefix}, the prefix of ${eu.name} (for example ${eu.example})`;
  return eu.pattern.test(vatNumber.slice(eu.prefix.length))
    ? undefined
    : `is not of the form of a VAT number of ${eu.name} (for example ${eu.example})`;
}

export interface Party {
  name: string;
  /** Address lines, postal code and city included. */
  address: string[];
  /** ISO 3166-1 alpha-2. */
  country: string;
  vatNumber: string | null;
}

/** The operator, as its configuration names it (SELLER_* settings). */
export interface Seller {
  name: string;
  address: string[];
  country: string | null;
  vatNumber: string | null;
}
