/**
 * The 27 EU member states the API covers. `eurostatCode` differs from the ISO code only for
 * Greece (Eurostat writes EL). `currencies` lists the legal tender by first year it applied,
 * so a record for a year can say which local currency it is in.
 */
export interface Country {
  readonly code: string;
  readonly eurostatCode: string;
  readonly name: string;
  readonly nativeName: string;
  readonly currencies: readonly { readonly from: number; readonly currency: string }[];
}

const euro = [{ from: 1999, currency: 'EUR' }] as const;

export const COUNTRIES: readonly Country[] = Object.freeze([
  { code: 'AT', eurostatCode: 'AT', name: 'Austria', nativeName: 'Österreich', currencies: euro },
  {
    code: 'BE',
    eurostatCode: 'BE',
    name: 'Belgium',
    nativeName: 'België / Belgique',
    currencies: euro,
  },
  {
    code: 'BG',
    eurostatCode: 'BG',
    name: 'Bulgaria',
    nativeName: 'България',
    currencies: [
      { from: 1999, currency: 'BGN' },
      { from: 2026, currency: 'EUR' },
    ],
  },
  {
    code: 'HR',
    eurostatCode: 'HR',
    name: 'Croatia',
    nativeName: 'Hrvatska',
    currencies: [
      { from: 1994, currency: 'HRK' },
      { from: 2023, currency: 'EUR' },
    ],
  },
  {
    code: 'CY',
    eurostatCode: 'CY',
    name: 'Cyprus',
    nativeName: 'Κύπρος',
    currencies: [{ from: 2008, currency: 'EUR' }],
  },
  {
    code: 'CZ',
    eurostatCode: 'CZ',
    name: 'Czechia',
    nativeName: 'Česko',
    currencies: [{ from: 1993, currency: 'CZK' }],
  },
  {
    code: 'DK',
    eurostatCode: 'DK',
    name: 'Denmark',
    nativeName: 'Danmark',
    currencies: [{ from: 1875, currency: 'DKK' }],
  },
  {
    code: 'EE',
    eurostatCode: 'EE',
    name: 'Estonia',
    nativeName: 'Eesti',
    currencies: [{ from: 2011, currency: 'EUR' }],
  },
  { code: 'FI', eurostatCode: 'FI', name: 'Finland', nativeName: 'Suomi', currencies: euro },
  { code: 'FR', eurostatCode: 'FR', name: 'France', nativeName: 'France', currencies: euro },
  { code: 'DE', eurostatCode: 'DE', name: 'Germany', nativeName: 'Deutschland', currencies: euro },
  {
    code: 'GR',
    eurostatCode: 'EL',
    name: 'Greece',
    nativeName: 'Ελλάδα',
    currencies: [{ from: 2001, currency: 'EUR' }],
  },
  {
    code: 'HU',
    eurostatCode: 'HU',
    name: 'Hungary',
    nativeName: 'Magyarország',
    currencies: [{ from: 1946, currency: 'HUF' }],
  },
  {
    code: 'IE',
    eurostatCode: 'IE',
    name: 'Ireland',
    nativeName: 'Éire / Ireland',
    currencies: euro,
  },
  { code: 'IT', eurostatCode: 'IT', name: 'Italy', nativeName: 'Italia', currencies: euro },
  {
    code: 'LV',
    eurostatCode: 'LV',
    name: 'Latvia',
    nativeName: 'Latvija',
    currencies: [{ from: 2014, currency: 'EUR' }],
  },
  {
    code: 'LT',
    eurostatCode: 'LT',
    name: 'Lithuania',
    nativeName: 'Lietuva',
    currencies: [
      { from: 1993, currency: 'LTL' },
      { from: 2015, currency: 'EUR' },
    ],
  },
  {
    code: 'LU',
    eurostatCode: 'LU',
    name: 'Luxembourg',
    nativeName: 'Lëtzebuerg',
    currencies: euro,
  },
  {
    code: 'MT',
    eurostatCode: 'MT',
    name: 'Malta',
    nativeName: 'Malta',
    currencies: [{ from: 2008, currency: 'EUR' }],
  },
  {
    code: 'NL',
    eurostatCode: 'NL',
    name: 'Netherlands',
    nativeName: 'Nederland',
    currencies: euro,
  },
  {
    code: 'PL',
    eurostatCode: 'PL',
    name: 'Poland',
    nativeName: 'Polska',
    currencies: [{ from: 1995, currency: 'PLN' }],
  },
  { code: 'PT', eurostatCode: 'PT', name: 'Portugal', nativeName: 'Portugal', currencies: euro },
  {
    code: 'RO',
    eurostatCode: 'RO',
    name: 'Romania',
    nativeName: 'România',
    currencies: [{ from: 2005, currency: 'RON' }],
  },
  {
    code: 'SK',
    eurostatCode: 'SK',
    name: 'Slovakia',
    nativeName: 'Slovensko',
    currencies: [{ from: 2009, currency: 'EUR' }],
  },
  {
    code: 'SI',
    eurostatCode: 'SI',
    name: 'Slovenia',
    nativeName: 'Slovenija',
    currencies: [{ from: 2007, currency: 'EUR' }],
  },
  { code: 'ES', eurostatCode: 'ES', name: 'Spain', nativeName: 'España', currencies: euro },
  {
    code: 'SE',
    eurostatCode: 'SE',
    name: 'Sweden',
    nativeName: 'Sverige',
    currencies: [{ from: 1873, currency: 'SEK' }],
  },
]);

export const COUNTRY_CODES: readonly string[] = Object.freeze(COUNTRIES.map((c) => c.code).sort());

/** The currency a country used in a given year (the latest entry whose `from` is not after it). */
export function currencyInYear(country: Country, year: number): string {
  let current = country.currencies[0]?.currency ?? 'EUR';
  for (const entry of country.currencies) if (entry.from <= year) current = entry.currency;
  return current;
}

/** The currency a country uses today, as listed in the catalogue. */
export function currentCurrency(country: Country): string {
  return country.currencies[country.currencies.length - 1]?.currency ?? 'EUR';
}
