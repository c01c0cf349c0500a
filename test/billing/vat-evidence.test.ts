// VAT is never zero on the buyer's word alone: VAT numbers need their check digits (and VIES,
// where the operator enabled it), locations outside the EU VAT area need the operator's
// confirmation, and Monaco is inside French VAT. Real HTTP to the API; VIES is a local HTTP
// server speaking the shape of the EU's REST service.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { confirmBuyerLocation } from '../../src/billing/index.js';
import { accountOnPlan } from '../helpers/accounts.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { listenHttp, type HttpCall } from '../helpers/http.js';

/** A VIES stand-in: `valid` numbers are valid, others not; while `down`, the service fails. */
class Vies {
  down = false;
  readonly asked: string[] = [];
  readonly valid = new Set(['ATU13585627', 'NL004495445B01']);
  #server: Server | undefined;

  async start(): Promise<string> {
    this.#server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        const { countryCode, vatNumber } = JSON.parse(body) as Record<string, string>;
        this.asked.push(`${countryCode}${vatNumber}`);
        if (req.url !== '/check-vat-number' || req.method !== 'POST') {
          res.writeHead(404).end();
        } else if (this.down) {
          res.writeHead(200, { 'content-type': 'application/json' }).end(
            JSON.stringify({
              actionSucceed: false,
              errorWrappers: [{ error: 'MS_UNAVAILABLE' }],
            }),
          );
        } else {
          res.writeHead(200, { 'content-type': 'application/json' }).end(
            JSON.stringify({
              countryCode,
              vatNumber,
              requestDate: new Date().toISOString(),
              valid: this.valid.has(`${countryCode}${vatNumber}`),
              requestIdentifier: 'WAPIAAAAXYZ',
              name: '---',
              address: '---',
            }),
          );
        }
      });
    });
    await new Promise<void>((resolve) => this.#server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.#server?.close(() => resolve()));
  }
}

interface Vat {
  treatment: string;
  rate_percent: number;
  country: string | null;
  note: string;
}

describe('VAT on evidence, not on say-so', () => {
  const vies = new Vies();
  let t: TestApp;
  let call: HttpCall;

  before(async () => {
    const viesUrl = await vies.start();
    t = await buildTestApp({
      env: {
        SELLER_NAME: 'Salary Data GmbH',
        SELLER_ADDRESS: 'Friedrichstraße 1; 10117 Berlin',
        SELLER_COUNTRY: 'DE',
        SELLER_VAT_NUMBER: 'DE136695976',
        VIES_URL: viesUrl,
      },
    });
    ({ call } = await listenHttp(t));
  });
  after(async () => {
    await t.close();
    await vies.close();
  });

  async function customer(details: Record<string, unknown>) {
    const account = await accountOnPlan(t, 'free');
    const res = await call('PUT', '/api/v1/account/billing-details', {
      token: account.session,
      body: { company_name: 'Buyer Ltd', ...details },
    });
    return { ...account, res };
  }
  /** Subscribes (or, subscribed, upgrades) and returns the VAT of the invoice that issued. */
  async function invoiceVat(session: string, plan: string): Promise<Vat> {
    const changed = await call('POST', '/api/v1/subscription', { token: session, body: { plan } });
    assert.equal(changed.status, 200, changed.body);
    const invoices = (await call('GET', '/api/v1/invoices', { token: session })).json() as {
      data: { vat: Vat }[];
    };
    return invoices.data.at(-1)!.vat;
  }

  it('refuses a number whose check digits do not match, and the examples it prints', async () => {
    for (const [country, vat_number] of [
      ['AT', 'ATU00000000'],
      ['DE', 'DE123456789'],
      ['PL', 'PL1234567890'],
      ['IE', 'IE1234567T'],
    ]) {
      const { res } = await customer({
        address_lines: ['Street 1', '1010 City'],
        country,
        vat_number,
      });
      assert.equal(res.status, 400, `${vat_number}: ${res.body}`);
      const problem = res.json() as { invalid_params: { name: string; reason: string }[] };
      assert.equal(problem.invalid_params[0]?.name, 'vat_number');
    }
  });

  it('reverse charges a number VIES confirmed, saying so on the invoice; VIES is asked once', async () => {
    const before = vies.asked.length;
    const first = await customer({
      address_lines: ['Kärntner Straße 1', '1010 Wien'],
      country: 'AT',
      vat_number: 'ATU 1358 5627',
    });
    assert.equal(first.res.status, 200, first.res.body);
    assert.equal(
      (first.res.json() as { vat_number_check: { by: string } }).vat_number_check.by,
      'vies',
    );
    const vat = await invoiceVat(first.session, 'developer');
    assert.equal(vat.treatment, 'reverse_charge');
    assert.match(
      vat.note,
      /confirmed valid by VIES on \d{4}-\d\d-\d\d \(consultation WAPIAAAAXYZ\)/,
    );
    const second = await customer({
      address_lines: ['Ring 2', '1010 Wien'],
      country: 'AT',
      vat_number: 'ATU13585627',
    });
    assert.equal(second.res.status, 200);
    assert.equal(vies.asked.length, before + 1, 'the second account used the cached answer');
  });

  it('refuses a number VIES does not know', async () => {
    const { res } = await customer({
      address_lines: ['Straat 1', '1011 AB Amsterdam'],
      country: 'NL',
      vat_number: 'NL123456782B01',
    });
    assert.equal(res.status, 400, res.body);
    assert.match(res.body, /VIES/);
  });

  it('while VIES does not answer: VAT of the buyer’s country, then reverse charge once the billing run verified it', async () => {
    vies.down = true;
    const buyer = await customer({
      address_lines: ['Straat 1', '1011 AB Amsterdam'],
      country: 'NL',
      vat_number: 'NL004495445B01',
    });
    assert.equal(buyer.res.status, 200, buyer.res.body);
    assert.equal((buyer.res.json() as { vat_number_check: unknown }).vat_number_check, null);
    const unverified = await invoiceVat(buyer.session, 'developer');
    assert.deepEqual([unverified.treatment, unverified.country], ['standard', 'NL']);
    assert.match(unverified.note, /not verified yet/);

    await t.services.billing();
    vies.down = false;
    await t.services.billing();
    const details = (
      await call('GET', '/api/v1/account/billing-details', { token: buyer.session })
    ).json() as {
      vat_number_check: { by: string } | null;
    };
    assert.equal(details.vat_number_check?.by, 'vies');
    const verified = await invoiceVat(buyer.session, 'business');
    assert.equal(verified.treatment, 'reverse_charge');
  });

  it('Monaco is inside French VAT', async () => {
    const buyer = await customer({
      address_lines: ['1 Avenue de Monte-Carlo', '98000 Monaco'],
      country: 'MC',
    });
    assert.equal(buyer.res.status, 200, buyer.res.body);
    const vat = await invoiceVat(buyer.session, 'developer');
    assert.deepEqual([vat.treatment, vat.country, vat.rate_percent], ['standard', 'FR', 20]);
  });

  it('the Canary Islands, Åland, Mount Athos and a country outside the EU: VAT until the operator confirms, then none', async () => {
    const places = [
      {
        address_lines: ['Calle Triana 1', '35002 Las Palmas de Gran Canaria'],
        country: 'ES',
        name: 'the Canary Islands',
      },
      { address_lines: ['Torggatan 1', 'AX-22100 Mariehamn'], country: 'AX', name: 'Åland' },
      { address_lines: ['Torggatan 1', '22100 Mariehamn'], country: 'FI', name: 'Åland' },
      { address_lines: ['Protaton', '630 86 Karyes'], country: 'GR', name: 'Mount Athos' },
      {
        address_lines: ['1 Main Street', 'Springfield, IL 62701'],
        country: 'US',
        name: 'United States',
      },
    ];
    for (const { name, ...details } of places) {
      const buyer = await customer(details);
      assert.equal(buyer.res.status, 200, buyer.res.body);
      const unconfirmed = await invoiceVat(buyer.session, 'developer');
      assert.deepEqual([unconfirmed.treatment, unconfirmed.country], ['standard', 'DE'], name);
      assert.ok(unconfirmed.note.includes(name), unconfirmed.note);
      assert.ok(await confirmBuyerLocation(t.db, t.clock, buyer.accountId));
      const confirmed = await invoiceVat(buyer.session, 'business');
      assert.equal(confirmed.treatment, 'outside_eu', name);
      assert.equal(confirmed.rate_percent, 0);
    }
  });
});
