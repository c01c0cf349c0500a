/**
 * The EU's VAT reference data: the standard rate of each member state, the form of its VAT
 * numbers (and their check digits, by jsvat) and the territories inside and outside the EU VAT
 * area. The configuration checks the seller's settings with it; billing decides an invoice's
 * treatment with it (src/billing/vat.ts, docs/billing.md).
 */
import { checkVAT, countries as jsvatCountries } from 'jsvat';

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

/** Every code `countryName` knows, with its name, in the order of the names. */
export const COUNTRIES: readonly { code: string; name: string }[] = Object.freeze(
  Array.from({ length: 26 * 26 }, (_, i) =>
    String.fromCharCode(65 + Math.floor(i / 26), 65 + (i % 26)),
  )
    .flatMap((code) => {
      const name = countryName(code);
      return name === undefined ? [] : [{ code, name }];
    })
    .sort((a, b) => a.name.localeCompare(b.name, 'en')),
);

/** A VAT number as written on invoices: upper case, without spaces, dots and hyphens. */
export function normalizeVatNumber(raw: string): string {
  return raw.toUpperCase().replace(/[\s.-]/g, '');
}

/** The examples this service prints: of the right form, but nobody's number. */
const EXAMPLES = new Set(EU_VAT.map((country) => country.example));

/**
 * Why `vatNumber` (normalized) is not a VAT number of `country`, naming the allowed form;
 * undefined when it is. An EU number needs its country's prefix and form and its check digits
 * (jsvat's rules per member state), and is none of the examples this service prints. Outside
 * the EU any tax number of 2 to 20 letters and digits is kept. Monaco's businesses have French
 * numbers.
 */
export function vatNumberProblem(country: string, vatNumber: string): string | undefined {
  const eu = BY_CODE.get(country === MONACO ? 'FR' : country);
  if (eu === undefined) {
    return /^[A-Z0-9]{2,20}$/.test(vatNumber) ? undefined : 'must be 2 to 20 letters and digits';
  }
  if (!vatNumber.startsWith(eu.prefix))
    return `must start with ${eu.prefix}, the prefix of ${eu.name} (for example ${eu.example})`;
  if (!eu.pattern.test(vatNumber.slice(eu.prefix.length)))
    return `is not of the form of a VAT number of ${eu.name} (for example ${eu.example})`;
  if (EXAMPLES.has(vatNumber))
    return `is the example of the form, not a VAT number: give the number ${eu.name} issued to the company`;
  if (!hasValidCheckDigits(vatNumber))
    return `is not a VAT number of ${eu.name}: its check digits do not match (a typing error?)`;
  return undefined;
}

const MONACO = 'MC';

/** Whether an EU VAT number (normalized, with its prefix) has matching check digits. */
export function hasValidCheckDigits(vatNumber: string): boolean {
  return checkVAT(vatNumber, jsvatCountries).isValid;
}

/** Where a buyer is for VAT: in a member state's VAT territory, or outside the EU VAT area. */
export type VatTerritory =
  | { readonly inside: true; readonly country: EuVatCountry }
  | { readonly inside: false; readonly name: string };

/**
 * Parts of member states outside the EU VAT area (Article 6, Directive 2006/112/EC), by the
 * postal codes of their addresses: the last postal code of the country's form in the address.
 */
const OUTSIDE_PARTS: Readonly<
  Record<string, { postal: RegExp; parts: [RegExp, string][] } | undefined>
> = {
  ES: {
    postal: /\b(\d{5})\b/g,
    parts: [
      [/^3[58]/, 'the Canary Islands'],
      [/^51/, 'Ceuta'],
      [/^52/, 'Melilla'],
    ],
  },
  FI: { postal: /\b(?:AX-?)?(\d{5})\b/g, parts: [[/^22/, 'Åland']] },
  GR: { postal: /\b(\d{3} ?\d{2})\b/g, parts: [[/^630 ?86$/, 'Mount Athos']] },
  DE: {
    postal: /\b(\d{5})\b/g,
    parts: [
      [/^78266$/, 'Büsingen am Hochrhein'],
      [/^27498$/, 'Heligoland'],
    ],
  },
  IT: {
    postal: /\b(\d{5})\b/g,
    parts: [
      [/^23041$/, 'Livigno'],
      [/^22061$/, "Campione d'Italia"],
    ],
  },
  FR: { postal: /\b(\d{5})\b/g, parts: [[/^97[1-6]/, 'a French overseas department']] },
};

/** Territories with country codes of their own: outside the EU VAT area, or inside a state's. */
const TERRITORY_CODES: Readonly<Record<string, string | undefined>> = {
  AX: 'Åland',
  IC: 'the Canary Islands',
  EA: 'Ceuta and Melilla',
  GP: 'a French overseas department',
  MQ: 'a French overseas department',
  GF: 'a French overseas department',
  RE: 'a French overseas department',
  YT: 'a French overseas department',
};

/**
 * The VAT territory of an address: Monaco is inside France's, the Canary Islands, Åland, Mount
 * Athos and the other parts of Article 6 are outside the EU VAT area (by their own country code
 * or by the postal code in the address), any other country by its code.
 */
export function vatTerritory(country: string, address: readonly string[]): VatTerritory {
  const code = country === MONACO ? 'FR' : country;
  const eu = BY_CODE.get(code);
  if (eu === undefined)
    return { inside: false, name: TERRITORY_CODES[code] ?? countryName(code) ?? code };
  const rule = OUTSIDE_PARTS[code];
  if (rule !== undefined) {
    const postcodes = address.flatMap((line) =>
      [...line.matchAll(rule.postal)].map((m) => m[1] ?? ''),
    );
    const postcode = postcodes.at(-1);
    const part =
      postcode === undefined ? undefined : rule.parts.find(([pattern]) => pattern.test(postcode));
    if (part !== undefined) return { inside: false, name: part[1] };
  }
  return { inside: true, country: eu };
}

/** The check a VAT number passed: its check digits, or VIES's confirmation, and when. */
export interface VatCheck {
  by: 'check_digits' | 'vies';
  /** ISO 8601. */
  at: string;
  /** VIES's reference of the consultation, when it gave one. */
  reference: string | null;
}

export interface Party {
  name: string;
  /** Address lines, postal code and city included. */
  address: string[];
  /** ISO 3166-1 alpha-2. */
  country: string;
  vatNumber: string | null;
  /** The buyer's: the check its VAT number passed (none: not verified). */
  vatCheck?: VatCheck | null;
  /** The buyer's: whether the operator confirmed its location outside the EU VAT area. */
  locationConfirmed?: boolean;
}

/** The operator, as its configuration names it (SELLER_* settings). */
export interface Seller {
  name: string;
  address: string[];
  country: string | null;
  vatNumber: string | null;
  /** The account transfers are paid into (SELLER_IBAN); absent on invoices issued before. */
  iban?: string | null;
  /** Its bank's BIC (SELLER_BIC), optional within SEPA. */
  bic?: string | null;
  /** Its SEPA creditor identifier (SELLER_SEPA_CREDITOR_ID): set when it collects by direct debit. */
  sepaCreditorId?: string | null;
}
