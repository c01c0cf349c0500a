import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  countryName,
  decideVat,
  EU_VAT,
  normalizeVatNumber,
  vatCents,
  vatNumberProblem,
  type Seller,
} from './vat.js';

const seller: Seller = {
  name: 'S',
  address: [],
  country: 'NL',
  vatNumber: 'NL812345678B01',
};
const checked = { by: 'check_digits', at: '2026-11-01T00:00:00.000Z', reference: null } as const;
const buyer = (
  country: string,
  vatNumber: string | null = null,
  evidence: { vatCheck?: typeof checked; locationConfirmed?: boolean } = {},
) => ({ name: 'B', address: [] as string[], country, vatNumber, ...evidence });

describe('the EU VAT table', () => {
  it('has the 27 member states once each, with example numbers of their form that are refused', () => {
    assert.equal(EU_VAT.length, 27);
    assert.equal(new Set(EU_VAT.map((c) => c.code)).size, 27);
    for (const c of EU_VAT) {
      assert.ok(c.pattern.test(c.example.slice(c.prefix.length)), c.code);
      assert.match(vatNumberProblem(c.code, c.example) ?? '', /example|check digits/, c.code);
      assert.ok(c.rateBp >= 1700 && c.rateBp <= 2700, c.code);
    }
  });

  it('checks the prefix, the form and the check digits of each country', () => {
    assert.equal(vatNumberProblem('GR', 'EL123456783'), undefined);
    assert.match(vatNumberProblem('GR', 'GR123456783') ?? '', /must start with EL/);
    assert.match(vatNumberProblem('DE', 'DE12345678') ?? '', /not of the form/);
    assert.match(vatNumberProblem('DE', 'DE123456780') ?? '', /check digits/);
    assert.match(vatNumberProblem('DE', 'DE123456789') ?? '', /example/);
    assert.match(vatNumberProblem('AT', 'ATU00000000') ?? '', /check digits/);
    assert.equal(vatNumberProblem('ES', 'ESB12345674'), undefined);
    assert.equal(vatNumberProblem('IE', 'IE8Z49289F'), undefined);
    assert.equal(vatNumberProblem('MC', 'FR40303265045'), undefined);
    assert.equal(vatNumberProblem('US', 'EIN123456789'), undefined);
    assert.equal(normalizeVatNumber('de 123.456-789'), 'DE123456789');
  });

  it('knows country codes, and what is no country', () => {
    assert.equal(countryName('GR'), 'Greece');
    assert.equal(countryName('US'), 'United States');
    for (const code of ['XX', 'EU', 'ZZ', 'UK', 'de', 'DEU'])
      assert.equal(countryName(code), undefined);
  });
});

describe('decideVat', () => {
  const cases: [string, Seller, ReturnType<typeof buyer> | null, string, number][] = [
    ['same country, VAT number', seller, buyer('NL', 'NL001234567B01'), 'standard', 2100],
    ['same country, consumer', seller, buyer('NL'), 'standard', 2100],
    [
      'other member state, checked VAT number',
      seller,
      buyer('DE', 'DE136695976', { vatCheck: checked }),
      'reverse_charge',
      0,
    ],
    [
      'other member state, unverified VAT number',
      seller,
      buyer('DE', 'DE136695976'),
      'standard',
      1900,
    ],
    ['other member state, consumer', seller, buyer('FI'), 'standard', 2550],
    ['Monaco: inside French VAT', seller, buyer('MC'), 'standard', 2000],
    [
      'outside the EU, confirmed',
      seller,
      buyer('US', 'EIN1', { locationConfirmed: true }),
      'outside_eu',
      0,
    ],
    ['outside the EU, not confirmed', seller, buyer('US', 'EIN1'), 'standard', 2100],
    ['no billing details', seller, null, 'standard', 2100],
    ['seller not registered', { ...seller, vatNumber: null }, buyer('DE'), 'not_charged', 0],
  ];
  for (const [name, s, b, treatment, rateBp] of cases) {
    it(name, () => {
      const d = decideVat(s, b);
      assert.equal(d.treatment, treatment);
      assert.equal(d.rateBp, rateBp);
    });
  }

  it('rounds VAT half up to the cent, once per invoice', () => {
    assert.equal(vatCents(4900, 2550), 1250); // 1249.5
    assert.equal(vatCents(4900, 2100), 1029);
    assert.equal(vatCents(-100, 2100), 0);
  });
});
