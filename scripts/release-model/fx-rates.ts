import { type Country, currencyInYear } from '../../src/catalog/countries.js';
import type { Inputs } from './inputs.js';

/**
 * Currencies the ECB file does not carry because they were pegged at their irrevocable euro
 * conversion rate before being replaced: the litas (Lithuania, euro from 2015-01-01) at
 * 3.45280 LTL per EUR (Council Regulation (EU) No 851/2014). docs/data.md §6.
 */
const FIXED_CONVERSION_RATES: Readonly<Record<string, number>> = { LTL: 3.4528 };

/**
 * Step 5: the local currency of a record and its ECB annual average rate (units per EUR).
 * Years after the last year in the ECB file (2026) repeat its latest rate; that latest year
 * (2025) is itself a partial-year average. docs/data.md §6.
 */
export function fxFor(
  inputs: Inputs,
  country: Country,
  year: number,
): { currency: string; rate: number } {
  const currency = currencyInYear(country, year);
  if (currency === 'EUR') return { currency, rate: 1 };
  const fixed = FIXED_CONVERSION_RATES[currency];
  if (fixed !== undefined) return { currency, rate: fixed };
  const years = [...inputs.fx.keys()].filter((y) => y <= year && inputs.fx.get(y)?.has(currency));
  const from = Math.max(...years);
  const rate = inputs.fx.get(from)?.get(currency)?.rate;
  if (rate === undefined || (from !== year && !isLatestYear(inputs, from))) {
    throw new Error(`ECB: no ${currency} rate for ${year}`);
  }
  return { currency, rate };
}

function isLatestYear(inputs: Inputs, year: number): boolean {
  return year === Math.max(...inputs.fx.keys());
}
