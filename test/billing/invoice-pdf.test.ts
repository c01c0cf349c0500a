// Invoices a business can book: billing details over the API, VAT by the seller's and the
// buyer's countries, and the invoice PDF read back by text extraction.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { accountOnPlan } from '../helpers/accounts.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { pageTexts, pdftotext } from '../helpers/pdf.js';
import { DUTCH_SELLER } from '../helpers/seller.js';

const DEVELOPER = 4900;
/** The euro sign as the text extraction reads it back (WinAnsi 0x80). */
const EURO = '[€\\x80]';

describe('invoices with billing details and VAT', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({ env: DUTCH_SELLER });
  });
  after(() => t.close());

  const call = (
    session: string,
    method: 'GET' | 'PUT' | 'POST',
    url: string,
    body?: unknown,
    accept?: string,
  ) =>
    t.app.inject({
      method,
      url,
      headers: {
        authorization: `Bearer ${session}`,
        ...(accept === undefined ? {} : { accept }),
      },
      ...(body === undefined ? {} : { payload: body as Record<string, unknown> }),
    });

  /** A Free account that gives `details` (or none) and then subscribes to Developer. */
  async function subscribed(details?: Record<string, unknown>) {
    const a = await accountOnPlan(t, 'free');
    if (details !== undefined) {
      const res = await call(a.session, 'PUT', '/api/v1/account/billing-details', details);
      assert.equal(res.statusCode, 200, res.body);
    }
    const sub = await call(a.session, 'POST', '/api/v1/subscription', { plan: 'developer' });
    assert.equal(sub.statusCode, 200, sub.body);
    const [invoice] = sub.json().invoices;
    return { ...a, invoice };
  }

  async function pdfText(session: string, id: string): Promise<string> {
    const res = await call(session, 'GET', `/api/v1/invoices/${id}`, undefined, 'application/pdf');
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.headers['content-type'], 'application/pdf');
    assert.match(
      String(res.headers['content-disposition']),
      /attachment; filename="invoice-\d+\.pdf"/,
    );
    assert.equal(res.rawPayload.subarray(0, 5).toString(), '%PDF-');
    return (await pageTexts(res.rawPayload)).join('\n');
  }

  const cases = [
    {
      name: 'a buyer in the seller’s country pays the seller’s rate, VAT number or not',
      details: {
        company_name: 'Grachten Data B.V.',
        address_lines: ['Damrak 5', '1012 LG Amsterdam'],
        country: 'nl',
        vat_number: 'nl 0044.9544.5B01',
      },
      vatNumber: 'NL004495445B01',
      treatment: 'standard',
      rate: 21,
      vat: 1029,
      lines: [/VAT 21 % \(Netherlands\)/, /VAT at the standard rate of the Netherlands, 21 %\./],
    },
    {
      name: 'a business in another EU country with a VAT number is invoiced under the reverse charge',
      details: {
        company_name: 'Beispiel Analytics GmbH',
        address_lines: ['Friedrichstraße 1', '10117 Berlin'],
        country: 'DE',
        vat_number: 'DE 136 695 976',
      },
      vatNumber: 'DE136695976',
      treatment: 'reverse_charge',
      rate: 0,
      vat: 0,
      lines: [
        /VAT \(reverse charge\)/,
        /Reverse charge: VAT to be accounted for by the recipient DE136695976 \(Article 196, Directive 2006\/112\/EC\)\./,
      ],
    },
    {
      name: 'a buyer without a VAT number pays the rate of its own country',
      details: {
        company_name: 'Camille Martin',
        address_lines: ['12 rue de la Paix', '75002 Paris'],
        country: 'FR',
      },
      vatNumber: null,
      treatment: 'standard',
      rate: 20,
      vat: 980,
      lines: [
        /VAT 20 % \(France\)/,
        /VAT at the standard rate of France, 20 %: the buyer's country, where the service is supplied to a buyer without a VAT number \(Article 58, Directive 2006\/112\/EC\)\./,
      ],
    },
  ] as const;

  for (const c of cases) {
    it(c.name, async () => {
      const a = await subscribed(c.details);
      assert.deepEqual(a.invoice.vat, {
        treatment: c.treatment,
        rate_percent: c.rate,
        country: c.treatment === 'standard' ? c.details.country.toUpperCase() : null,
        note: a.invoice.vat.note,
        amount_cents: c.vat,
      });
      assert.equal(a.invoice.subtotal_cents, DEVELOPER);
      assert.equal(a.invoice.total_cents, DEVELOPER + c.vat);
      assert.equal(a.invoice.amount_due_cents, DEVELOPER + c.vat);
      assert.equal(a.invoice.buyer.vat_number, c.vatNumber);
      assert.deepEqual(a.invoice.seller, {
        name: 'Salary Data Europe B.V.',
        address: ['Keizersgracht 1', '1015 CJ Amsterdam'],
        country: 'NL',
        vat_number: 'NL812345678B01',
      });

      const text = await pdfText(a.session, a.invoice.id);
      // A long sentence is wrapped over lines, each read back as its own string.
      const flat = text.replace(/\n/g, ' ');
      for (const line of c.lines) assert.match(flat, line);
      if (c.vatNumber !== null) assert.match(text, new RegExp(`VAT number: ${c.vatNumber}`));
      assert.match(text, /VAT number: NL812345678B01/);
      assert.match(text, new RegExp(`Invoice number\\n${a.invoice.number}\\n`));
      assert.match(text, /Salary Data Europe B\.V\./);
      assert.match(text, new RegExp(c.details.company_name.replace('.', '\\.')));
      assert.match(text, /Developer plan/);
      assert.match(text, new RegExp(`Total\\n${EURO}${((DEVELOPER + c.vat) / 100).toFixed(2)}\\n`));
      if (c.treatment !== 'reverse_charge') assert.doesNotMatch(text, /[Rr]everse charge/);
    });
  }

  it('a consumer in the seller’s country is invoiced the seller’s VAT', async () => {
    const a = await subscribed({
      company_name: 'Jan de Vries',
      address_lines: ['Damrak 1', '1012 LG Amsterdam'],
      country: 'NL',
    });
    assert.equal(a.invoice.buyer.country, 'NL');
    assert.equal(a.invoice.vat.treatment, 'standard');
    assert.equal(a.invoice.vat.country, 'NL');
    const text = await pdfText(a.session, a.invoice.id);
    assert.match(text, /Jan de Vries/);
    assert.match(text, /VAT 21 % \(Netherlands\)/);
  });

  it('prints names and addresses as written in any EU language, read back by poppler too', async () => {
    const buyers = [
      {
        company_name: 'Łódzka Analityka Sp. z o.o.',
        address_lines: ['ul. Żeromskiego 116', '90-924 Łódź'],
        country: 'PL',
      },
      {
        company_name: 'Αναλυτική Μισθών Α.Ε.',
        address_lines: ['Οδός Ερμού 10', '105 63 Αθήνα'],
        country: 'GR',
      },
      {
        company_name: 'Заплати Анализ ЕООД',
        address_lines: ['ул. Витоша 15', '1000 София'],
        country: 'BG',
      },
    ];
    for (const details of buyers) {
      const a = await subscribed(details);
      const res = await call(
        a.session,
        'GET',
        `/api/v1/invoices/${a.invoice.id}`,
        undefined,
        'application/pdf',
      );
      assert.equal(res.statusCode, 200, res.body);
      const ours = (await pageTexts(res.rawPayload)).join('\n');
      const poppler = await pdftotext(res.rawPayload);
      for (const written of [details.company_name, ...details.address_lines]) {
        assert.ok(ours.includes(written), `${written} in the drawn text:\n${ours}`);
        assert.ok(poppler.includes(written), `${written} in pdftotext's reading:\n${poppler}`);
      }
      assert.doesNotMatch(poppler, /\?/, 'no letter replaced by ?');
    }
  });

  it('an issued invoice keeps the buyer it was issued to', async () => {
    const a = await subscribed(cases[1].details);
    const res = await call(a.session, 'PUT', '/api/v1/account/billing-details', {
      company_name: 'Renamed AG',
      address_lines: ['Neuer Weg 2', '80331 München'],
      country: 'DE',
      vat_number: 'DE999999995',
    });
    assert.equal(res.statusCode, 200, res.body);
    const again = await call(a.session, 'GET', `/api/v1/invoices/${a.invoice.id}`);
    assert.equal(again.json().buyer.name, 'Beispiel Analytics GmbH');
    const text = await pdfText(a.session, a.invoice.id);
    assert.match(text, /Beispiel Analytics GmbH/);
    assert.doesNotMatch(text, /Renamed AG|DE999999999/);
  });

  it('another account’s invoice is 404, as JSON and as a PDF', async () => {
    const owner = await subscribed(cases[2].details);
    const other = await accountOnPlan(t, 'free');
    for (const accept of [undefined, 'application/pdf']) {
      const res = await call(
        other.session,
        'GET',
        `/api/v1/invoices/${owner.invoice.id}`,
        undefined,
        accept,
      );
      assert.equal(res.statusCode, 404, res.body);
      assert.equal(res.headers['content-type'], 'application/problem+json');
      assert.doesNotMatch(res.body, /Camille/);
    }
    const own = await call(owner.session, 'GET', `/api/v1/invoices/${owner.invoice.id}`);
    assert.equal(own.statusCode, 200);
    assert.equal(own.headers['content-type'], 'application/json; charset=utf-8');
    const none = await t.app.inject({ url: `/api/v1/invoices/${owner.invoice.id}` });
    assert.equal(none.statusCode, 401);
  });
});

describe('billing details over the API', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({ env: DUTCH_SELLER });
  });
  after(() => t.close());

  const put = (session: string, body: unknown) =>
    t.app.inject({
      method: 'PUT',
      url: '/api/v1/account/billing-details',
      headers: { authorization: `Bearer ${session}` },
      payload: body as Record<string, unknown>,
    });
  const get = (session: string) =>
    t.app.inject({
      url: '/api/v1/account/billing-details',
      headers: { authorization: `Bearer ${session}` },
    });

  it('stores valid details normalized and reads them back; none at first', async () => {
    const a = await accountOnPlan(t, 'free');
    const empty = await get(a.session);
    assert.equal(empty.statusCode, 200);
    assert.equal(empty.body, 'null');
    const res = await put(a.session, {
      company_name: '  Ελληνικά Δεδομένα Α.Ε. ',
      address_lines: ['Ermou 10', '', '105 63 Athens'],
      country: 'gr',
      vat_number: 'el-123456783',
    });
    assert.equal(res.statusCode, 200, res.body);
    const expected = {
      company_name: 'Ελληνικά Δεδομένα Α.Ε.',
      address_lines: ['Ermou 10', '105 63 Athens'],
      country: 'GR',
      vat_number: 'EL123456783',
      vat_number_check: {
        by: 'check_digits',
        at: new Date(t.clock.now()).toISOString(),
        reference: null,
      },
      location_confirmed_at: null,
    };
    const { updated_at: at, ...stored } = res.json<Record<string, unknown>>();
    assert.deepEqual(stored, expected);
    assert.equal(at, new Date(t.clock.now()).toISOString());
    assert.deepEqual((await get(a.session)).json(), { ...expected, updated_at: at });
  });

  const invalid = [
    {
      body: {
        company_name: 'X GmbH',
        address_lines: ['Weg 1'],
        country: 'DE',
        vat_number: 'DE12345',
      },
      field: 'vat_number',
      reason: /not of the form of a VAT number of Germany \(for example DE123456789\)/,
      allowed: ['DE123456789'],
    },
    {
      body: {
        company_name: 'X SARL',
        address_lines: ['Rue 1'],
        country: 'FR',
        vat_number: 'DE123456789',
      },
      field: 'vat_number',
      reason: /must start with FR, the prefix of France/,
      allowed: ['FR12345678901'],
    },
    {
      body: {
        company_name: 'X AE',
        address_lines: ['Odos 1'],
        country: 'GR',
        vat_number: 'GR123456789',
      },
      field: 'vat_number',
      reason: /must start with EL, the prefix of Greece/,
      allowed: ['EL123456789'],
    },
    {
      body: { company_name: 'X Ltd', address_lines: ['Road 1'], country: 'XX' },
      field: 'country',
      reason: /ISO 3166-1 alpha-2 country code/,
      allowed: undefined,
    },
    {
      body: { company_name: '   ', address_lines: ['Road 1'], country: 'IE' },
      field: 'company_name',
      reason: /must not be blank/,
      allowed: undefined,
    },
  ];
  for (const c of invalid) {
    it(`refuses ${JSON.stringify(c.body)} naming ${c.field} and the allowed form`, async () => {
      const a = await accountOnPlan(t, 'free');
      const res = await put(a.session, c.body);
      assert.equal(res.statusCode, 400, res.body);
      assert.equal(res.headers['content-type'], 'application/problem+json');
      const problem = res.json();
      assert.equal(problem.code, 'INVALID_PARAMETER');
      const [param] = problem.invalid_params;
      assert.equal(param.name, c.field);
      assert.match(param.reason, c.reason);
      assert.deepEqual(param.allowed, c.allowed);
      assert.equal((await get(a.session)).body, 'null', 'nothing was stored');
    });
  }

  it('refuses a body of the wrong shape by the schema (400, naming the field)', async () => {
    const a = await accountOnPlan(t, 'free');
    const res = await put(a.session, { company_name: 'X', address_lines: [], country: 'DEU' });
    assert.equal(res.statusCode, 400, res.body);
    assert.match(res.body, /address_lines|country/);
  });

  it('keeps each account’s details to itself', async () => {
    const a = await accountOnPlan(t, 'free');
    const b = await accountOnPlan(t, 'free');
    const mine = {
      company_name: 'A Oy',
      address_lines: ['Katu 1', '00100 Helsinki'],
      country: 'FI',
      vat_number: 'FI12345671',
    };
    assert.equal((await put(a.session, mine)).statusCode, 200);
    assert.equal((await get(b.session)).body, 'null');
    const theirs = {
      company_name: 'B AB',
      address_lines: ['Gatan 1'],
      country: 'SE',
      vat_number: 'SE556677889901',
    };
    assert.equal((await put(b.session, theirs)).statusCode, 200);
    assert.equal((await get(a.session)).json().company_name, 'A Oy');
    assert.equal((await get(b.session)).json().company_name, 'B AB');
    const anonymous = await t.app.inject({ url: '/api/v1/account/billing-details' });
    assert.equal(anonymous.statusCode, 401);
  });
});
