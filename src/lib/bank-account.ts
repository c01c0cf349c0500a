import {
  electronicFormatIBAN,
  getCountrySpecifications,
  isSEPACountry,
  isValidBIC,
  validateIBAN,
  ValidationErrorsIBAN,
} from 'ibantools';

/** An IBAN as banks exchange it: upper case, without spaces or separators. */
export function normalizeIban(raw: string): string {
  return electronicFormatIBAN(raw.trim()) ?? '';
}

/**
 * Why `iban` (normalized) is not a usable IBAN in the SEPA area, or undefined when it is:
 * its country must be known, its length that country's, and its check digits right (mod 97).
 */
export function ibanProblem(iban: string): string | undefined {
  const country = iban.slice(0, 2);
  const spec = getCountrySpecifications()[country];
  if (!/^[A-Z]{2}\d{2}/.test(iban) || spec?.chars === undefined || spec.chars === null)
    return 'must start with the code of a country that has IBANs and two check digits (for example DE89370400440532013000)';
  if (!isSEPACountry(country)) return `must be an IBAN of a SEPA country (${country} is not one)`;
  if (iban.length !== spec.chars)
    return `must have ${spec.chars} characters for ${country} (got ${iban.length})`;
  const { errorCodes } = validateIBAN(iban);
  if (errorCodes.includes(ValidationErrorsIBAN.WrongIBANChecksum))
    return 'has wrong check digits (ISO 13616, mod 97)';
  if (errorCodes.length > 0) return `is not of the form of an IBAN of ${country}`;
  return undefined;
}

/** Why `bic` (upper case, no spaces) is not a BIC (ISO 9362, 8 or 11 characters). */
export function bicProblem(bic: string): string | undefined {
  return isValidBIC(bic)
    ? undefined
    : 'must be a BIC of 8 or 11 characters (ISO 9362, for example DEUTDEFF or DEUTDEFF500)';
}

/** The IBAN as shown to people: in groups of four. */
export function friendlyIban(iban: string): string {
  return iban.replace(/(.{4})(?=.)/g, '$1 ');
}

/** The IBAN with all but its country, check digits and last four characters hidden. */
export function maskIban(iban: string): string {
  return friendlyIban(
    `${iban.slice(0, 4)}${'•'.repeat(Math.max(0, iban.length - 8))}${iban.slice(-4)}`,
  );
}

const ALNUM_VALUE = (c: string): string => (/\d/.test(c) ? c : String(c.charCodeAt(0) - 55));

/** The ISO 7064 mod 97-10 remainder of an alphanumeric string (letters A=10 … Z=35). */
function mod97(s: string): number {
  let rest = 0;
  for (const c of s) for (const d of ALNUM_VALUE(c)) rest = (rest * 10 + Number(d)) % 97;
  return rest;
}

/**
 * The ISO 11649 structured creditor reference of `body` (1 to 21 letters and digits): `RF`,
 * two check digits and the body, for example RF18539007547034.
 */
export function creditorReference(body: string): string {
  const b = body.toUpperCase();
  if (!/^[A-Z0-9]{1,21}$/.test(b)) throw new RangeError(`not a creditor reference body: ${body}`);
  const check = 98 - mod97(`${b}RF00`);
  return `RF${String(check).padStart(2, '0')}${b}`;
}

/**
 * The body of an ISO 11649 reference found in `text` (spaces inside allowed), when one with
 * right check digits is there; undefined otherwise.
 */
export function findCreditorReference(text: string): string | undefined {
  const compact = text.toUpperCase().replace(/[\s-]+/g, '');
  for (const m of compact.matchAll(/RF(\d{2})([A-Z0-9]{1,21})/g)) {
    // The body may run into the following text: try the longest body that checks first.
    const digits = m[1]!;
    const rest = m[2]!;
    for (let end = rest.length; end > 0; end--) {
      const body = rest.slice(0, end);
      if (mod97(`${body}RF${digits}`) === 1) return body;
    }
  }
  return undefined;
}

/**
 * Why `id` (upper case, no spaces) is not a SEPA creditor identifier, or undefined when it is:
 * country code, two check digits, a three-character business code and the national
 * identifier; the check digits are ISO 7064 mod 97-10 over the national identifier, the
 * country code and the check digits, the business code left out (EPC262-08).
 */
export function creditorIdProblem(id: string): string | undefined {
  const m = /^([A-Z]{2})(\d{2})([A-Z0-9]{3})([A-Z0-9]{1,28})$/.exec(id);
  if (m === null)
    return 'must be a SEPA creditor identifier: country code, two check digits, a three-character business code and the national identifier (for example DE98ZZZ09999999999)';
  const [, country, check, , national] = m;
  if (!isSEPACountry(country!)) return `must be of a SEPA country (${country} is not one)`;
  if (mod97(`${national}${country}${check}`) !== 1)
    return 'has wrong check digits (ISO 7064 mod 97-10)';
  return undefined;
}
