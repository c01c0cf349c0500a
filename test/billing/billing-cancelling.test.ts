// Cancelling over the real API (DELETE /api/v1/subscription): the paid plan until the period end,
// then Free, an unpaid renewal voided, a paid one credited and the credit spent later.
// Each scenario has its own app (private database, manual clock started at its first instant):
// see billing-walk.ts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  DEVELOPER,
  BUSINESS,
  iso,
  short,
  weekBefore,
  planInvoice,
  NO_SUBSCRIPTION,
  summary,
  liveSubscription,
  billingApp,
  type Customer,
} from './billing-walk.js';

// April 2027: [04-10 12:00, 05-10 12:00), renewals issued on 05-03 12:00.
describe('cancelling (DELETE /api/v1/subscription)', () => {
  const h = billingApp('2027-04-10T12:00');
  let unpaid: Customer; // Developer, renewal issued and left unpaid, then cancels
  let paid: Customer; // Business with two keys, renewal paid, then cancels; subscribes again
  let early: Customer; // Developer, cancels before the renewal would be issued

  it('keeps the paid plan and its keys until the period end; no renewal after an early cancel', async () => {
    h.at('2027-04-10T12:00');
    unpaid = await h.signUp();
    paid = await h.signUp();
    early = await h.signUp();
    await h.change(unpaid, 'developer');
    await h.change(paid, 'business');
    await h.change(early, 'developer');
    await h.createKey(paid);
    await h.payOpen(unpaid, paid, early);

    h.at('2027-04-20T00:00');
    const body = await h.cancel(early);
    assert.deepEqual(body.invoices, []);
    assert.deepEqual(
      body.subscription,
      liveSubscription('developer', '2027-04-10T12:00', '2027-05-10T12:00', {
        pending_plan: 'free',
      }),
    );

    await h.run('2027-05-03T12:00');
    assert.equal(await h.count(early), 1, 'no renewal for a cancelled subscription');
    assert.deepEqual((await h.summaries(unpaid)).slice(1), [
      planInvoice('open', '2027-05-10T12:00', '2027-06-10T12:00', DEVELOPER),
    ]);
    assert.deepEqual((await h.summaries(paid)).slice(1), [
      planInvoice('open', '2027-05-10T12:00', '2027-06-10T12:00', BUSINESS),
    ]);
    h.at('2027-05-04T00:00');
    await h.payOpen(paid);

    h.at('2027-05-05T00:00');
    for (const [c, plan] of [
      [unpaid, 'developer'],
      [paid, 'business'],
    ] as const) {
      const res = await h.cancel(c);
      assert.deepEqual(res.invoices, []);
      assert.deepEqual(
        res.subscription,
        liveSubscription(plan, '2027-04-10T12:00', '2027-05-10T12:00', { pending_plan: 'free' }),
      );
    }
    await h.run('2027-05-10T11:59:59.999');
    for (const [c, plan] of [
      [unpaid, 'developer'],
      [paid, 'business'],
      [early, 'developer'],
    ] as const) {
      assert.equal((await h.account(c)).plan, plan);
      assert.deepEqual(await h.withKey(c), [200, plan], 'the key works until the period end');
    }
  });

  it('at the period end: Free, unpaid renewal voided, paid renewal credited, every key revoked', async () => {
    const result = await h.run('2027-05-10T12:00');
    const byId = (a: { accountId: string }, b: { accountId: string }) =>
      a.accountId.localeCompare(b.accountId);
    assert.deepEqual(
      h.changesOf(result, unpaid, paid, early).sort(byId),
      [
        { accountId: unpaid.accountId, from: 'developer', to: 'free', reason: 'scheduled' },
        { accountId: paid.accountId, from: 'business', to: 'free', reason: 'scheduled' },
        { accountId: early.accountId, from: 'developer', to: 'free', reason: 'scheduled' },
      ].sort(byId),
    );
    for (const c of [unpaid, paid, early]) {
      assert.equal((await h.account(c)).plan, 'free');
      assert.deepEqual(await h.withKey(c), [401, undefined], 'the old key is refused at once');
      for (const revoked of await h.keysRevokedAt(c)) assert.equal(revoked, '2027-05-10T12:00');
    }
    assert.equal((await h.keysRevokedAt(paid)).length, 2);

    assert.deepEqual(await h.summaries(unpaid), [
      planInvoice('paid', '2027-04-10T12:00', '2027-05-10T12:00', DEVELOPER, 0, '2027-04-17T12:00'),
      planInvoice('void', '2027-05-10T12:00', '2027-06-10T12:00', DEVELOPER),
    ]);
    assert.deepEqual(await h.subscription(unpaid), NO_SUBSCRIPTION);
    assert.deepEqual(await h.subscription(early), NO_SUBSCRIPTION);
    assert.deepEqual(await h.balance(unpaid), { balance_cents: 0, entries: [] });
    assert.equal(await h.count(early), 1);

    const paidInvoices = await h.invoices(paid);
    assert.equal(paidInvoices[1]!.status, 'paid', 'a paid invoice stays paid');
    const balance = await h.balance(paid);
    assert.deepEqual(
      balance.entries.map((e) => [e.amount_cents, e.invoice_id, short(e.created_at)]),
      [[19900, paidInvoices[1]!.id, '2027-05-10T12:00']],
    );
    assert.deepEqual(await h.subscription(paid), { ...NO_SUBSCRIPTION, balance_cents: 19900 });
  });

  it('the credit pays a new subscription and its renewals until it is used up', async () => {
    h.at('2027-05-12T00:00');
    const body = await h.change(paid, 'developer');
    assert.ok(body.api_key !== undefined, 'a new first key: the old ones are revoked');
    assert.deepEqual(await h.withKey(paid), [200, 'developer']);
    assert.deepEqual(body.invoices.map(summary), [
      planInvoice(
        'paid',
        '2027-05-12T00:00',
        '2027-06-12T00:00',
        DEVELOPER,
        DEVELOPER,
        '2027-05-19T00:00',
      ),
    ]);
    assert.equal(body.invoices[0]!.paid_at, iso('2027-05-12T00:00'), 'covered: paid at once');
    assert.deepEqual(
      body.subscription,
      liveSubscription('developer', '2027-05-12T00:00', '2027-06-12T00:00', {
        balance_cents: 15000,
      }),
    );

    const renewals: [string, string, string, number, number][] = [
      ['2027-06-12T00:00', '2027-07-12T00:00', 'paid', DEVELOPER, 10100],
      ['2027-07-12T00:00', '2027-08-12T00:00', 'paid', DEVELOPER, 5200],
      ['2027-08-12T00:00', '2027-09-12T00:00', 'paid', DEVELOPER, 300],
      ['2027-09-12T00:00', '2027-10-12T00:00', 'open', 300, 0],
    ];
    for (const [start, end, status, applied, balance] of renewals) {
      const count = await h.count(paid);
      await h.run(weekBefore(start));
      assert.equal(await h.count(paid), count + 1, start);
      assert.equal(
        (await h.summaries(paid)).at(-1),
        planInvoice(status, start, end, DEVELOPER, applied),
      );
      assert.equal((await h.balance(paid)).balance_cents, balance);
      if (status === 'paid') {
        await h.run(start);
        assert.equal(await h.count(paid), count + 1, 'the switch invoices nothing more');
        assert.equal(short((await h.subscription(paid)).current_period_start), start);
      }
    }
    const entries = (await h.balance(paid)).entries.map((e) => e.amount_cents);
    assert.deepEqual(entries, [19900, -4900, -4900, -4900, -4900, -300]);
    assert.equal(await h.count(unpaid), 2, 'nothing more for a cancelled account');
    assert.equal(await h.count(early), 1);
  });
});
