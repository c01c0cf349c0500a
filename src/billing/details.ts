import { recordAudit } from '../audit/index.js';
import { actorOf, type Principal } from '../auth/index.js';
import { AppError, type InvalidParam } from '../errors/index.js';
import type { Clock } from '../lib/clock.js';
import type { Db } from '../store/index.js';
import * as repo from './repo.js';
import { checkVatNumber, isEuVatNumber, type VatNumberVerifier } from './vat-check.js';
import { countryName, euVatCountry, normalizeVatNumber, vatNumberProblem } from './vat.js';

/** Billing details as the API reads and writes them. */
export interface PublicBillingDetails {
  company_name: string;
  address_lines: string[];
  country: string;
  vat_number: string | null;
  /** The check the VAT number passed (null: none given, or not verified yet: VAT is charged). */
  vat_number_check: { by: 'check_digits' | 'vies'; at: string; reference: string | null } | null;
  /** When the operator confirmed a location outside the EU VAT area. */
  location_confirmed_at: string | null;
  updated_at: string;
}

export interface BillingDetailsInput {
  company_name: string;
  address_lines: string[];
  country: string;
  vat_number?: string | null;
}

export const MAX_ADDRESS_LINES = 4;

function publicDetails(d: repo.BillingDetailsRow): PublicBillingDetails {
  return {
    company_name: d.companyName,
    address_lines: d.addressLines,
    country: d.country,
    vat_number: d.vatNumber,
    vat_number_check: d.vatCheck,
    location_confirmed_at:
      d.locationConfirmedAt === null ? null : new Date(d.locationConfirmedAt).toISOString(),
    updated_at: new Date(d.updatedAt).toISOString(),
  };
}

/**
 * The checks the schema cannot make: the country is an ISO code, the VAT number has the form
 * of that country's numbers (with its prefix). Each problem names the field and what is allowed.
 */
export function detailsProblems(input: BillingDetailsInput): {
  problems: InvalidParam[];
  value: Pick<repo.BillingDetailsRow, 'companyName' | 'addressLines' | 'country' | 'vatNumber'>;
} {
  const problems: InvalidParam[] = [];
  const companyName = input.company_name.trim();
  const addressLines = input.address_lines.map((l) => l.trim()).filter((l) => l !== '');
  const country = input.country.trim().toUpperCase();
  if (companyName === '') problems.push({ name: 'company_name', reason: 'must not be blank' });
  if (addressLines.length === 0)
    problems.push({
      name: 'address_lines',
      reason: 'needs at least one line (street, postal code and city)',
    });
  if (countryName(country) === undefined)
    problems.push({
      name: 'country',
      reason: 'must be an ISO 3166-1 alpha-2 country code, for example DE (Greece is GR)',
    });
  const raw = input.vat_number?.trim() ?? '';
  const vatNumber = raw === '' ? null : normalizeVatNumber(raw);
  if (vatNumber !== null && countryName(country) !== undefined) {
    const problem = vatNumberProblem(country, vatNumber);
    const eu = euVatCountry(country === 'MC' ? 'FR' : country);
    if (problem !== undefined)
      problems.push({
        name: 'vat_number',
        reason: problem,
        ...(eu === undefined ? {} : { allowed: [eu.example] }),
      });
  }
  return { problems, value: { companyName, addressLines, country, vatNumber } };
}

/** The account's billing details: who its invoices are made out to from now on. */
export function createBillingDetails(deps: { db: Db; clock: Clock; vat: VatNumberVerifier }) {
  const { db, clock } = deps;
  return {
    async get(accountId: string): Promise<PublicBillingDetails | null> {
      const d = await repo.findBillingDetails(db, accountId);
      return d === undefined ? null : publicDetails(d);
    },

    /** Replaces the details; invoices already issued keep the details they were issued with. */
    async set(
      principal: Principal,
      input: BillingDetailsInput,
      ip: string | null,
    ): Promise<PublicBillingDetails> {
      const accountId = principal.accountId;
      if (accountId === null) throw new AppError('UNAUTHENTICATED', 'Sign in first.');
      const { problems, value } = detailsProblems(input);
      if (problems.length > 0) throw AppError.invalidParams(problems);
      const now = clock.now();
      // Checked before the transaction: VIES may take seconds, or not answer (then unverified).
      const check =
        value.vatNumber === null || !isEuVatNumber(value.vatNumber)
          ? null
          : await checkVatNumber(db, deps.vat, value.vatNumber, now);
      if (check === 'invalid')
        throw AppError.invalidParams([
          {
            name: 'vat_number',
            reason: 'is not a valid VAT number: VIES, the EU’s register, does not know it',
          },
        ]);
      const saved = await db.transaction(async (tx) => {
        const before = await repo.findBillingDetails(tx, accountId);
        // The operator's confirmation of a location holds for the address it was given for.
        const sameAddress =
          before !== undefined &&
          before.country === value.country &&
          before.addressLines.join('\n') === value.addressLines.join('\n');
        const row = await repo.saveBillingDetails(tx, {
          accountId,
          ...value,
          vatCheck: check === 'unavailable' ? null : check,
          locationConfirmedAt: sameAddress ? before.locationConfirmedAt : null,
          updatedAt: now,
        });
        await recordAudit(tx, {
          accountId,
          actor: actorOf(principal),
          action: 'billing.details_set',
          data: {
            country: value.country,
            vat_number: value.vatNumber,
            vat_number_checked_by: row.vatCheck?.by ?? null,
          },
          ip,
          at: new Date(now),
        });
        return row;
      });
      return publicDetails(saved);
    },
  };
}

/**
 * The operator confirms that an account's billing address outside the EU VAT area is where the
 * buyer is (`salary-api billing confirm-location`): its invoices from then on carry no VAT.
 */
export async function confirmBuyerLocation(
  db: Db,
  clock: Clock,
  accountId: string,
): Promise<boolean> {
  const now = clock.now();
  return db.transaction(async (tx) => {
    if (!(await repo.confirmLocation(tx, accountId, now))) return false;
    await recordAudit(tx, {
      accountId,
      actor: 'operator',
      action: 'billing.location_confirmed',
      data: {},
      ip: null,
      at: new Date(now),
    });
    return true;
  });
}

export type BillingDetailsService = ReturnType<typeof createBillingDetails>;
