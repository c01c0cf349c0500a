// Renewals over the real API: a first subscription's period and invoices, renewal invoices a
// week before each period ends, and periods anchored at the end of a month or on 29 February.
// Each scenario has its own app (private database, manual clock started at its first instant):
// see billing-walk.ts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  DEVELOPER,
  BUSINESS,
  iso,
  weekBefore,
  planInvoice,
  summary,
  liveSubscription,
  billingApp,
  type Customer,
} from './billing-walk.js';

describe('subscribing to Developer on 2026-03-10 12:00', () => {
  const h = billingApp('2026-03-10T12:00');
  let c: Customer;

  it('starts the period [03-10 12:00, 04-10 12:00) with an open 4900 invoice due 7 days later and an API key', async () => {
    h.at('2026-03-10T12:00');
    c = await h.signUp();
    const body = await h.change(c, 'developer');
    assert.deepEqual(
      body.subscription,
      liveSubscription('developer', '2026-03-10T12:00', '2026-04-10T12:00'),
    );
    assert.deepEqual(body.invoices.map(summary), [
      'open 2026-03-10T12:00→2026-04-10T12:00 4900-0=4900 due 2026-03-17T12:00 | subscription 4900 2026-03-10T12:00→2026-04-10T12:00',
    ]);
    const [invoice] = body.invoices;
    assert.equal(invoice!.currency, 'EUR');
    assert.equal(invoice!.created_at, iso('2026-03-10T12:00'));
    assert.equal(invoice!.paid_at, null);
    assert.match(c.apiKey ?? '', /^sk_live_[A-Za-z0-9_-]{43}$/);
    assert.deepEqual(await h.withKey(c), [200, 'developer'], 'the new key works at once');
    assert.equal((await h.account(c)).plan, 'developer');
    assert.deepEqual(await h.invoices(c), body.invoices, 'GET /api/v1/invoices lists it');
    assert.deepEqual(await h.balance(c), { balance_cents: 0, entries: [] });
  });

  it('issues the renewal invoice exactly 7 days before the period ends, due at its start', async () => {
    h.at('2026-03-12T09:30');
    await h.payOpen(c);
    assert.equal((await h.invoices(c))[0]!.paid_at, iso('2026-03-12T09:30'));

    await h.run('2026-04-03T11:59:59.999');
    assert.equal(await h.count(c), 1, 'one millisecond before: nothing yet');

    await h.run('2026-04-03T12:00');
    const invoices = await h.invoices(c);
    assert.deepEqual(invoices.map(summary), [
      'paid 2026-03-10T12:00→2026-04-10T12:00 4900-0=4900 due 2026-03-17T12:00 | subscription 4900 2026-03-10T12:00→2026-04-10T12:00',
      'open 2026-04-10T12:00→2026-05-10T12:00 4900-0=4900 due 2026-04-10T12:00 | subscription 4900 2026-04-10T12:00→2026-05-10T12:00',
    ]);
    assert.equal(invoices[1]!.created_at, iso('2026-04-03T12:00'));
    assert.deepEqual(
      await h.subscription(c),
      liveSubscription('developer', '2026-03-10T12:00', '2026-04-10T12:00'),
      'the period has not changed yet',
    );
  });

  it('running billing again at the same instant issues nothing more', async () => {
    for (let i = 0; i < 3; i++) {
      const again = await h.run('2026-04-03T12:00');
      assert.equal(again.invoicesIssued, 0);
      assert.deepEqual(again.planChanges, []);
    }
    assert.equal(await h.count(c), 2);
  });

  it('rolls the period over at its end without invoicing it again, then renews a month later', async () => {
    await h.payOpen(c);
    const rolled = await h.run('2026-04-10T12:00');
    assert.deepEqual(h.changesOf(rolled, c), []);
    assert.equal(await h.count(c), 2, 'the advance invoice is the renewal');
    assert.deepEqual(
      await h.subscription(c),
      liveSubscription('developer', '2026-04-10T12:00', '2026-05-10T12:00'),
    );
    await h.run('2026-05-03T12:00');
    assert.deepEqual((await h.summaries(c)).slice(2), [
      planInvoice('open', '2026-05-10T12:00', '2026-06-10T12:00', DEVELOPER),
    ]);
    assert.deepEqual(await h.withKey(c), [200, 'developer']);
  });
});

describe('an anchor on 31 January 2027', () => {
  const h = billingApp('2027-01-31T08:00');
  let plain: Customer;
  let upgraded: Customer;

  it('an upgrade in the 28-day February period is prorated over 28 days', async () => {
    h.at('2027-01-31T08:00');
    plain = await h.signUp();
    upgraded = await h.signUp();
    await h.change(plain, 'developer');
    await h.change(upgraded, 'developer');
    await h.payOpen(plain, upgraded);
    for (const c of [plain, upgraded])
      assert.deepEqual(
        await h.subscription(c),
        liveSubscription('developer', '2027-01-31T08:00', '2027-02-28T08:00'),
      );
    h.at('2027-02-14T08:00');
    const body = await h.change(upgraded, 'business');
    assert.deepEqual(body.invoices.map(summary), [
      'open 2027-02-14T08:00→2027-02-28T08:00 7500-0=7500 due 2027-02-21T08:00 | proration 7500 2027-02-14T08:00→2027-02-28T08:00',
    ]);
    await h.payOpen(upgraded);
  });

  it('renews on Feb 28, Mar 31, Apr 30, May 31 at 08:00, then Jun 30', async () => {
    const starts = [
      '2027-01-31T08:00',
      '2027-02-28T08:00',
      '2027-03-31T08:00',
      '2027-04-30T08:00',
      '2027-05-31T08:00',
      '2027-06-30T08:00',
    ];
    for (let k = 1; k < starts.length - 1; k++) {
      const [start, end] = [starts[k]!, starts[k + 1]!];
      await h.run(weekBefore(start));
      for (const [c, price] of [
        [plain, DEVELOPER],
        [upgraded, BUSINESS],
      ] as const)
        assert.equal((await h.summaries(c)).at(-1), planInvoice('open', start, end, price));
      await h.payOpen(plain, upgraded);
      await h.run(start);
      assert.deepEqual(await h.subscription(plain), liveSubscription('developer', start, end));
      assert.deepEqual(await h.subscription(upgraded), liveSubscription('business', start, end));
    }
    assert.equal(await h.count(plain), 5);
    assert.equal(await h.count(upgraded), 6);
  });
});

describe('an anchor on 29 February 2028', () => {
  const h = billingApp('2028-02-29T08:00');
  it('renews on the 29th, on 28 February in 2029, then on 29 March 2029', async () => {
    h.at('2028-02-29T08:00');
    const c = await h.signUp();
    await h.change(c, 'developer');
    await h.payOpen(c);
    const starts = [
      '2028-02-29T08:00',
      '2028-03-29T08:00',
      '2028-04-29T08:00',
      '2028-05-29T08:00',
      '2028-06-29T08:00',
      '2028-07-29T08:00',
      '2028-08-29T08:00',
      '2028-09-29T08:00',
      '2028-10-29T08:00',
      '2028-11-29T08:00',
      '2028-12-29T08:00',
      '2029-01-29T08:00',
      '2029-02-28T08:00',
      '2029-03-29T08:00',
      '2029-04-29T08:00',
    ];
    assert.deepEqual(
      await h.subscription(c),
      liveSubscription('developer', starts[0]!, starts[1]!),
    );
    for (let k = 1; k < starts.length - 1; k++) {
      const [start, end] = [starts[k]!, starts[k + 1]!];
      await h.run(weekBefore(start));
      assert.equal(await h.count(c), k + 1, start);
      assert.equal((await h.summaries(c)).at(-1), planInvoice('open', start, end, DEVELOPER));
      await h.payOpen(c);
      await h.run(start);
      assert.deepEqual(await h.subscription(c), liveSubscription('developer', start, end));
    }
  });
});
