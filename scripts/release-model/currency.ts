import { COUNTRIES, currencyInYear } from '../../src/catalog/countries.js';

/**
 * The model works in each country's own money (docs/data.md §2): the euro for the euro area
 * (Croatia's kuna and Lithuania's litas at their irrevocable conversion rates, so a series has no
 * break at adoption), the lev for Bulgaria (pegged to the euro at its conversion rate
 * throughout), the national currency elsewhere. EUR figures of non-euro countries are the
 * model's amounts at the ECB annual average rate of the year, so exchange-rate swings show in
 * EUR and never in the local series.
 */

export type FxRate = (currency: string, year: number) => number;
/** Irrevocable conversion rates (units per EUR) from sources/eu_council_euro_conversion_rates. */
export type FixedRates = ReadonlyMap<string, number>;

/** Currency the model's amounts of a country are in. */
export function modelCurrency(iso: string): string {
  if (iso === 'BG') return 'BGN';
  const country = COUNTRIES.find((c) => c.code === iso);
  if (!country) throw new Error(`unknown country ${iso}`);
  return currencyInYear(country, 2100);
}

/** Factor that turns an amount in `currency` of `year` into the model currency of `iso`. */
export function toModelCurrency(
  iso: string,
  currency: string,
  year: number,
  fx: FxRate,
  fixed: FixedRates,
): number {
  const model = modelCurrency(iso);
  if (currency === model) return 1;
  const fixedFrom = fixed.get(currency);
  const fixedTo = fixed.get(model);
  if (model === 'EUR' && fixedFrom !== undefined) return 1 / fixedFrom;
  if (currency === 'EUR' && fixedTo !== undefined) return fixedTo;
  if (currency === 'EUR') return fx(model, year);
  throw new Error(`${iso}: cannot convert ${currency} to ${model}`);
}

/** EUR per unit of the model currency of `iso` in `year`. */
export function eurPerModelUnit(iso: string, year: number, fx: FxRate, fixed: FixedRates): number {
  const model = modelCurrency(iso);
  if (model === 'EUR') return 1;
  const rate = fixed.get(model) ?? fx(model, year);
  return 1 / rate;
}

/** Local currency of a record in its year and its units per EUR (1 for the euro). */
export function localCurrency(
  iso: string,
  year: number,
  fx: FxRate,
  fixed: FixedRates,
): { currency: string; rate: number } {
  const country = COUNTRIES.find((c) => c.code === iso);
  if (!country) throw new Error(`unknown country ${iso}`);
  const currency = currencyInYear(country, year);
  if (currency === 'EUR') return { currency, rate: 1 };
  // A pegged or replaced currency (lev, litas) at its fixed rate; the kuna floated, so its
  // ECB rate of the year.
  if (currency === 'BGN' || currency === 'LTL')
    return { currency, rate: fixed.get(currency) ?? NaN };
  return { currency, rate: fx(currency, year) };
}
