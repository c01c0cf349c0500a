import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  creditorReference,
  findCreditorReference,
  ibanProblem,
  maskIban,
  normalizeIban,
} from './bank-account.js';

describe('creditor references (ISO 11649)', () => {
  it('computes the check digits of the standard’s example', () => {
    assert.equal(creditorReference('539007547034'), 'RF18539007547034');
    assert.equal(creditorReference('1042'), `RF${creditorReference('1042').slice(2, 4)}1042`);
  });

  it('finds a reference in remittance text, with spaces, and refuses wrong check digits', () => {
    assert.equal(findCreditorReference('Invoice RF18 5390 0754 7034 thanks'), '539007547034');
    assert.equal(findCreditorReference('rf18539007547034'), '539007547034');
    assert.equal(findCreditorReference('RF19539007547034'), undefined);
    assert.equal(findCreditorReference('no reference'), undefined);
    for (const n of [1, 7, 42, 1000, 987654])
      assert.equal(findCreditorReference(`paid ${creditorReference(String(n))}`), String(n));
  });
});

describe('IBANs', () => {
  it('accepts a right one in any spacing and masks it', () => {
    const iban = normalizeIban(' de89 3704 0044 0532 0130 00');
    assert.equal(iban, 'DE89370400440532013000');
    assert.equal(ibanProblem(iban), undefined);
    assert.equal(maskIban(iban), 'DE89 •••• •••• •••• ••30 00');
  });

  it('names what is wrong', () => {
    assert.match(ibanProblem('DE88370400440532013000')!, /wrong check digits/);
    assert.match(ibanProblem('DE8937040044053201300')!, /22 characters for DE/);
    assert.match(ibanProblem('US12345')!, /country that has IBANs/);
  });
});
