import { EU_VAT, euVatCountry, hasValidCheckDigits, type VatCheck } from '../config/index.js';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import type { Queryable } from '../store/index.js';
import * as repo from './repo.js';

/** What a verifier says of a VAT number; 'unavailable' when it could not tell (VIES down). */
export type VatAnswer = { valid: boolean; reference: string | null } | 'unavailable';

/**
 * Verifies EU VAT numbers (normalized, with their prefix, already of the right form). Two
 * implementations: the check digits, in process (the default), and the EU's VIES service
 * over HTTP, which the operator enables with VIES_URL.
 */
export interface VatNumberVerifier {
  readonly method: VatCheck['by'];
  verify(vatNumber: string): Promise<VatAnswer>;
}

export const checkDigitsVerifier: VatNumberVerifier = {
  method: 'check_digits',
  verify: (vatNumber) =>
    Promise.resolve({ valid: hasValidCheckDigits(vatNumber), reference: null }),
};

const VIES_TIMEOUT_MS = 10_000;

/**
 * The EU's VIES REST service (`POST <url>/check-vat-number`, the JSON shape of
 * `https://ec.europa.eu/taxation_customs/vies/rest-api`). An answer without a boolean `valid`
 * (a member state's service unavailable, an error, a timeout) is 'unavailable', never invalid.
 */
export function viesVerifier(url: string, timeoutMs = VIES_TIMEOUT_MS): VatNumberVerifier {
  const endpoint = `${url.replace(/\/$/, '')}/check-vat-number`;
  return {
    method: 'vies',
    async verify(vatNumber) {
      const countryCode = vatNumber.slice(0, 2);
      try {
        const response = await fetch(endpoint, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json' },
          body: JSON.stringify({ countryCode, vatNumber: vatNumber.slice(2) }),
          signal: AbortSignal.timeout(timeoutMs),
        });
        if (!response.ok) return 'unavailable';
        const body = (await response.json()) as { valid?: unknown; requestIdentifier?: unknown };
        if (typeof body.valid !== 'boolean') return 'unavailable';
        const reference =
          typeof body.requestIdentifier === 'string' && body.requestIdentifier !== ''
            ? body.requestIdentifier
            : null;
        return { valid: body.valid, reference };
      } catch {
        return 'unavailable';
      }
    },
  };
}

/** How long VIES's answer about a number is reused. */
export const VIES_CACHE_MS = 7 * 86_400_000;

/**
 * Checks a buyer's VAT number: the check that passed, 'invalid', or 'unavailable' (VIES did
 * not answer; the number stays unverified and invoices carry VAT until it is). VIES's answers
 * are kept a week in the database, so a number is asked about once whatever the instance.
 */
export async function checkVatNumber(
  db: Queryable,
  verifier: VatNumberVerifier,
  vatNumber: string,
  now: number,
): Promise<VatCheck | 'invalid' | 'unavailable'> {
  const at = new Date(now).toISOString();
  if (verifier.method === 'check_digits') {
    const answer = await verifier.verify(vatNumber);
    if (answer === 'unavailable' || !answer.valid)
      return answer === 'unavailable' ? answer : 'invalid';
    return { by: 'check_digits', at, reference: null };
  }
  const cached = await repo.cachedVatCheck(db, vatNumber, now - VIES_CACHE_MS);
  if (cached !== undefined)
    return cached.valid
      ? { by: 'vies', at: new Date(cached.checkedAt).toISOString(), reference: cached.reference }
      : 'invalid';
  const answer = await verifier.verify(vatNumber);
  if (answer === 'unavailable') return answer;
  await repo.cacheVatCheck(db, vatNumber, answer, now);
  return answer.valid ? { by: 'vies', at, reference: answer.reference } : 'invalid';
}

/** Whether a number is checked at all: EU numbers only (a tax number elsewhere has no check). */
export function isEuVatNumber(vatNumber: string): boolean {
  const prefix = vatNumber.slice(0, 2);
  return euVatCountry(prefix === 'EL' ? 'GR' : prefix) !== undefined;
}

/**
 * Verifies again the numbers VIES could not answer for when they were given, a few at a time,
 * before the billing run issues invoices: a number verified now is reverse charged from the
 * next invoice on.
 */
export async function verifyPendingVatNumbers(deps: {
  db: Queryable;
  clock: Clock;
  verifier: VatNumberVerifier;
  logger: Logger;
}): Promise<number> {
  const { db, clock, verifier, logger } = deps;
  let verified = 0;
  const prefixes = EU_VAT.map((country) => country.prefix);
  for (const { accountId, vatNumber } of await repo.unverifiedVatNumbers(db, prefixes, 50)) {
    const check = await checkVatNumber(db, verifier, vatNumber, clock.now());
    if (check === 'unavailable') return verified;
    if (check === 'invalid') {
      logger.warn({ account_id: accountId }, 'a buyer’s VAT number is not valid; VAT is charged');
      continue;
    }
    await repo.setVatCheck(db, accountId, vatNumber, check);
    verified++;
  }
  return verified;
}
