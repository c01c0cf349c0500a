// Plan changes over the real API: upgrades prorated to the cent, a renewal invoiced in advance at
// a price that no longer applies, and a downgrade's credit spent on the following renewals.
// Each scenario has its own app (private database, manual clock started at its first instant):
// see billing-walk.ts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PublicInvoice } from '../../src/billing/index.js';
import {
  DAY,
  DEVELOPER,
  BUSINESS,
  iso,
  ms,
  short,
  weekBefore,
  planInvoice,
  summary,
  liveSubscription,
  billingApp,
  type Customer,
  type PaidPlan,
  type Target,
} from './billing-walk.js';

// June 2026 has 30 days: the period [06-01, 07-01) is 30 × 86 400 000 ms.
describe('upgrading Developer → Business in a 30-day period', () => {
  const h = billingApp('2026-06-01T00:00');
  const table: { at: string; charge: number; why: string }[] = [
    { at: '2026-06-01T00:00', charge: 15000, why: 'at the period start: the whole difference' },
    { at: '2026-06-08T00:00', charge: 11500, why: '15000 × 23/30' },
    { at: '2026-06-11T00:00', charge: 10000, why: 'day 10: (19900 − 4900) × 20/30' },
    { at: '2026-06-23T12:00', charge: 3750, why: '15000 × 7.5/30' },
  ];
  const customers: Customer[] = [];

  it('subscribes one Developer account per row on 2026-06-01 00:00', async () => {
    h.at('2026-06-01T00:00');
    for (let n = 0; n < table.length; n++) {
      const c = await h.signUp();
      await h.change(c, 'developer');
      customers.push(c);
    }
    await h.payOpen(...customers);
    for (const c of customers)
      assert.deepEqual(
        await h.subscription(c),
        liveSubscription('developer', '2026-06-01T00:00', '2026-07-01T00:00'),
      );
  });

  table.forEach(({ at, charge, why }, n) => {
    it(`upgrading at ${at} invoices a proration line of ${charge} (${why}); Business at once`, async () => {
      const c = customers[n]!;
      h.at(at);
      const body = await h.change(c, 'business');
      assert.deepEqual(body.invoices.map(summary), [
        `open ${at}→2026-07-01T00:00 ${charge}-0=${charge} due ${short(ms(at) + 7 * DAY)} | proration ${charge} ${at}→2026-07-01T00:00`,
      ]);
      assert.deepEqual(
        body.subscription,
        liveSubscription('business', '2026-06-01T00:00', '2026-07-01T00:00'),
        'same period, new plan',
      );
      assert.equal((await h.account(c)).plan, 'business', 'GET /api/v1/account');
      assert.deepEqual(await h.withKey(c), [200, 'business'], 'the API key serves Business now');
      assert.equal(await h.count(c), 2);
    });
  });

  it('renews at the Business price: the advance invoice of 06-24 is 19900, the switch invoices nothing', async () => {
    await h.payOpen(...customers);
    await h.run('2026-06-24T00:00');
    for (const c of customers)
      assert.deepEqual((await h.summaries(c)).slice(2), [
        planInvoice('open', '2026-07-01T00:00', '2026-08-01T00:00', BUSINESS),
      ]);
    await h.payOpen(...customers);
    const rolled = await h.run('2026-07-01T00:00');
    assert.deepEqual(h.changesOf(rolled, ...customers), []);
    for (const c of customers) {
      assert.equal(await h.count(c), 3);
      assert.deepEqual(
        await h.subscription(c),
        liveSubscription('business', '2026-07-01T00:00', '2026-08-01T00:00'),
      );
      assert.equal((await h.balance(c)).balance_cents, 0);
    }
  });
});

// September 2026: [09-01, 10-01) (30 days), renewal invoices issued on 09-24; changes
// "before" are made on 09-11, "after" on 09-26 and 09-28. The customer must pay exactly the
// price of the plan they get for October: what is invoiced for October (lines starting 10-01,
// void invoices excluded) less every credit granted (the balance + credit spent on invoices).
describe('a renewal invoiced in advance at a price that no longer applies', () => {
  const h = billingApp('2026-09-01T00:00');
  interface Row {
    name: string;
    plan: PaidPlan;
    before: Target[];
    payAdvance: boolean;
    after: Target[];
    advance: number | null;
    octoberPlan: Target;
    net: number;
  }
  const rows: Row[] = [
    {
      name: 'Business, downgrade before the advance: invoiced at 4900 directly, no credit',
      plan: 'business',
      before: ['developer'],
      payAdvance: true,
      after: [],
      advance: DEVELOPER,
      octoberPlan: 'developer',
      net: DEVELOPER,
    },
    {
      name: 'Business, advance paid at 19900, then downgrade',
      plan: 'business',
      before: [],
      payAdvance: true,
      after: ['developer'],
      advance: BUSINESS,
      octoberPlan: 'developer',
      net: DEVELOPER,
    },
    {
      name: 'Business, advance unpaid, then downgrade: advance voided, 4900 invoiced',
      plan: 'business',
      before: [],
      payAdvance: false,
      after: ['developer'],
      advance: BUSINESS,
      octoberPlan: 'developer',
      net: DEVELOPER,
    },
    {
      name: 'Developer, advance paid at 4900, then upgrade (adjustment line 15000)',
      plan: 'developer',
      before: [],
      payAdvance: true,
      after: ['business'],
      advance: DEVELOPER,
      octoberPlan: 'business',
      net: BUSINESS,
    },
    {
      name: 'Developer, advance unpaid, then upgrade (adjustment line 15000)',
      plan: 'developer',
      before: [],
      payAdvance: false,
      after: ['business'],
      advance: DEVELOPER,
      octoberPlan: 'business',
      net: BUSINESS,
    },
    {
      name: 'Developer, advance paid, upgrade then downgrade again after the advance',
      plan: 'developer',
      before: [],
      payAdvance: true,
      after: ['business', 'developer'],
      advance: DEVELOPER,
      octoberPlan: 'developer',
      net: DEVELOPER,
    },
    {
      name: 'Business, downgrade before the advance, advance paid at 4900, then back to Business',
      plan: 'business',
      before: ['developer'],
      payAdvance: true,
      after: ['business'],
      advance: DEVELOPER,
      octoberPlan: 'business',
      net: BUSINESS,
    },
    {
      name: 'Developer, advance paid, then cancel: credited in full',
      plan: 'developer',
      before: [],
      payAdvance: true,
      after: ['free'],
      advance: DEVELOPER,
      octoberPlan: 'free',
      net: 0,
    },
    {
      name: 'Developer, advance unpaid, then cancel: voided',
      plan: 'developer',
      before: [],
      payAdvance: false,
      after: ['free'],
      advance: DEVELOPER,
      octoberPlan: 'free',
      net: 0,
    },
    {
      name: 'Developer, upgrade and downgrade before the advance (one cycle)',
      plan: 'developer',
      before: ['business', 'developer'],
      payAdvance: true,
      after: [],
      advance: DEVELOPER,
      octoberPlan: 'developer',
      net: DEVELOPER,
    },
    {
      name: 'Business, cancelled before the advance: none issued',
      plan: 'business',
      before: ['free'],
      payAdvance: true,
      after: [],
      advance: null,
      octoberPlan: 'free',
      net: 0,
    },
  ];
  const customers: Customer[] = [];
  const advances: (PublicInvoice | undefined)[] = [];

  async function act(c: Customer, target: Target) {
    return target === 'free' ? h.cancel(c) : h.change(c, target);
  }

  it('walks every row: subscribe 09-01, changes 09-11, advance 09-24, changes 09-26/28, switch 10-01', async () => {
    h.at('2026-09-01T00:00');
    for (const row of rows) {
      const c = await h.signUp();
      await h.change(c, row.plan);
      customers.push(c);
    }
    await h.payOpen(...customers);

    h.at('2026-09-11T00:00');
    for (const [n, row] of rows.entries())
      for (const target of row.before) await act(customers[n]!, target);
    await h.payOpen(...customers);

    await h.run('2026-09-24T00:00');
    for (const [n, row] of rows.entries()) {
      const advance = (await h.invoices(customers[n]!)).find(
        (i) => i.period_start === iso('2026-10-01T00:00'),
      );
      advances.push(advance);
      if (row.payAdvance && advance !== undefined)
        await h.t.services.subscriptions.markPaid(advance.id, 'operator');
    }

    for (const [step, at] of ['2026-09-26T00:00', '2026-09-28T00:00'].entries()) {
      h.at(at);
      for (const [n, row] of rows.entries()) {
        const target = row.after[step];
        if (target !== undefined) await act(customers[n]!, target);
      }
    }
    await h.run('2026-09-30T23:59:59.999');
    await h.run('2026-10-01T00:00');
  });

  rows.forEach((row, n) => {
    it(`${row.name}: pays ${row.net} for October on ${row.octoberPlan}`, async () => {
      const c = customers[n]!;
      assert.equal(advances[n]?.subtotal_cents ?? null, row.advance, 'the advance invoice');
      assert.equal((await h.account(c)).plan, row.octoberPlan, 'the plan in October');
      const invoices = await h.invoices(c);
      const invoicedForOctober = invoices
        .filter((i) => i.status !== 'void')
        .flatMap((i) => i.lines)
        .filter((l) => l.period_start === iso('2026-10-01T00:00'))
        .reduce((sum, l) => sum + l.amount_cents, 0);
      const { balance_cents } = await h.balance(c);
      const credited = invoices.reduce((sum, i) => sum + i.balance_applied_cents, balance_cents);
      assert.equal(
        invoicedForOctober - credited,
        row.net,
        `invoiced for October ${invoicedForOctober}, credited ${credited}`,
      );
      assert.ok(balance_cents >= 0, `the balance is never negative (${balance_cents})`);
    });
  });

  it('upgrade then downgrade in one cycle: the proration stays, October is renewed at 4900', async () => {
    const c = customers[rows.findIndex((r) => r.before.join() === 'business,developer')]!;
    assert.deepEqual(await h.summaries(c), [
      planInvoice('paid', '2026-09-01T00:00', '2026-10-01T00:00', DEVELOPER, 0, '2026-09-08T00:00'),
      'paid 2026-09-11T00:00→2026-10-01T00:00 10000-0=10000 due 2026-09-18T00:00 | proration 10000 2026-09-11T00:00→2026-10-01T00:00',
      planInvoice('paid', '2026-10-01T00:00', '2026-11-01T00:00', DEVELOPER),
    ]);
    assert.deepEqual(
      await h.subscription(c),
      liveSubscription('developer', '2026-10-01T00:00', '2026-11-01T00:00'),
    );
    assert.deepEqual((await h.balance(c)).entries, []);
  });

  it('an upgrade after the advance invoices the proration and the difference; a downgrade before the switch takes the unpaid difference off that invoice', async () => {
    const c = customers[rows.findIndex((r) => r.after.join() === 'business,developer')]!;
    assert.deepEqual((await h.summaries(c)).slice(2, 3), [
      'open 2026-09-26T00:00→2026-10-01T00:00 2500-0=2500 due 2026-10-03T00:00 | proration 2500 2026-09-26T00:00→2026-10-01T00:00; renewal_adjustment 15000 2026-10-01T00:00→2026-11-01T00:00; credit -15000 2026-10-01T00:00→2026-11-01T00:00',
    ]);
  });

  it('back to Business after the advance was issued at 4900: a customer who paid everything is not past_due at the switch', async () => {
    const c =
      customers[
        rows.findIndex((r) => r.before.join() === 'developer' && r.after.join() === 'business')
      ]!;
    const sub = await h.subscription(c);
    assert.deepEqual([sub.plan, sub.status], ['business', 'active'], 'no time to pay yet');
    assert.equal((await h.account(c)).status, 'active');
    const shortfall = (await h.invoices(c))[2]!;
    assert.ok(
      Date.parse(shortfall.due_at!) > Date.parse(shortfall.created_at!),
      `the shortfall invoice of ${shortfall.created_at} is due ${shortfall.due_at}`,
    );
  });

  it('upgrade and downgrade after the advance, upgrade invoice never paid: no credit survives its write-off', async () => {
    const c = customers[rows.findIndex((r) => r.after.join() === 'business,developer')]!;
    const upgrade = (await h.invoices(c))[2]!;
    assert.deepEqual([upgrade.status, upgrade.subtotal_cents], ['open', 2500]);
    await h.run('2026-10-03T00:00:00.001');
    assert.equal((await h.subscription(c)).status, 'past_due');
    const result = await h.run('2026-10-10T00:00');
    assert.deepEqual(h.changesOf(result, c), [
      { accountId: c.accountId, from: 'developer', to: 'free', reason: 'payment_failed' },
    ]);
    assert.deepEqual(
      (await h.invoices(c)).filter((i) => i.status === 'open'),
      [],
      'the unpaid upgrade charge is written off',
    );
    assert.equal(
      (await h.balance(c)).balance_cents,
      0,
      'no credit is left over from 15000 that was invoiced but never paid',
    );
  });
});

// November 2026: [11-01, 12-01); the renewal for December is issued on 11-24 at 19900.
describe('downgrading Business → Developer after the renewal was invoiced and paid at 19900', () => {
  const h = billingApp('2026-11-01T00:00');
  let c: Customer;
  let advanceId = '';
  let secondKey = '';

  it('keeps Business until the period end after the downgrade request', async () => {
    h.at('2026-11-01T00:00');
    c = await h.signUp();
    await h.change(c, 'business');
    h.at('2026-11-02T00:00');
    secondKey = await h.createKey(c);
    await h.payOpen(c);
    await h.run('2026-11-24T00:00');
    const invoices = await h.invoices(c);
    assert.deepEqual(invoices.map(summary).slice(1), [
      planInvoice('open', '2026-12-01T00:00', '2027-01-01T00:00', BUSINESS),
    ]);
    advanceId = invoices[1]!.id;
    h.at('2026-11-26T00:00');
    await h.payOpen(c);

    h.at('2026-11-28T00:00');
    const body = await h.change(c, 'developer');
    assert.deepEqual(body.invoices, [], 'a downgrade invoices nothing when requested');
    assert.deepEqual(
      body.subscription,
      liveSubscription('business', '2026-11-01T00:00', '2026-12-01T00:00', {
        pending_plan: 'developer',
      }),
    );
    assert.equal((await h.account(c)).plan, 'business');
    assert.deepEqual(await h.withKey(c), [200, 'business']);
    await h.run('2026-11-30T23:59:59.999');
    assert.equal((await h.account(c)).plan, 'business', 'still Business 1 ms before the end');
  });

  it('switches to Developer at the period end, keeping only the newest key', async () => {
    const switched = await h.run('2026-12-01T00:00');
    assert.deepEqual(h.changesOf(switched, c), [
      { accountId: c.accountId, from: 'business', to: 'developer', reason: 'scheduled' },
    ]);
    assert.equal((await h.account(c)).plan, 'developer');
    assert.deepEqual(await h.keysRevokedAt(c), ['2026-12-01T00:00', null]);
    assert.deepEqual(await h.withKey(c), [401, undefined], 'the older key is revoked');
    assert.deepEqual(await h.withKey(c, secondKey), [200, 'developer'], 'the newest stays');
  });

  it('credits the 15000 paid too much on the advance invoice at the switch, and invoices December no second time', async () => {
    const balance = await h.balance(c);
    assert.deepEqual(
      balance.entries.map((e) => [e.amount_cents, e.invoice_id, short(e.created_at)]),
      [[15000, advanceId, '2026-12-01T00:00']],
      'the difference 19900 − 4900 is credited at the switch, and nothing spent',
    );
    assert.deepEqual(
      await h.subscription(c),
      liveSubscription('developer', '2026-12-01T00:00', '2027-01-01T00:00', {
        balance_cents: 15000,
      }),
    );
    assert.deepEqual(
      await h.summaries(c),
      [
        planInvoice(
          'paid',
          '2026-11-01T00:00',
          '2026-12-01T00:00',
          BUSINESS,
          0,
          '2026-11-08T00:00',
        ),
        planInvoice('paid', '2026-12-01T00:00', '2027-01-01T00:00', BUSINESS),
      ],
      'December is paid for by the advance invoice: no second invoice for December',
    );
  });

  it('spends the 15000 credit on the following renewals until it is used up', async () => {
    const renewals: [string, string, string, number][] = [
      ['2027-01-01T00:00', '2027-02-01T00:00', 'paid', DEVELOPER],
      ['2027-02-01T00:00', '2027-03-01T00:00', 'paid', DEVELOPER],
      ['2027-03-01T00:00', '2027-04-01T00:00', 'paid', DEVELOPER],
      ['2027-04-01T00:00', '2027-05-01T00:00', 'open', 300],
    ];
    const balances = [10100, 5200, 300, 0];
    for (const [n, [start, end, status, applied]] of renewals.entries()) {
      const count = await h.count(c);
      await h.run(weekBefore(start));
      assert.equal(await h.count(c), count + 1, start);
      assert.equal(
        (await h.summaries(c)).at(-1),
        planInvoice(status, start, end, DEVELOPER, applied),
      );
      assert.equal((await h.balance(c)).balance_cents, balances[n]);
      await h.run(start);
      assert.equal(short((await h.subscription(c)).current_period_start), start);
    }
    const entries = (await h.balance(c)).entries.map((e) => e.amount_cents);
    assert.deepEqual(entries, [15000, -4900, -4900, -4900, -300]);
  });
});
