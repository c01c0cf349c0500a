// Unpaid invoices over the real API: past_due at the due date, Free with keys revoked after the
// grace period, and no new paid plan while an uncollectible invoice is owed.
// Each scenario has its own app (private database, manual clock started at its first instant):
// see billing-walk.ts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  DEVELOPER,
  iso,
  planInvoice,
  NO_SUBSCRIPTION,
  liveSubscription,
  billingApp,
  type Customer,
} from './billing-walk.js';

// July 2026: [07-01, 08-01); the first invoices are due on 07-08.
describe('payment failure', () => {
  const h = billingApp('2026-07-01T00:00');
  let lapsed: Customer; // never pays
  let late: Customer; // pays during the grace period
  let renewal: Customer; // pays the first invoice, not the renewal

  it('an invoice unpaid at its due date: past_due, still on the paid plan, no upgrade', async () => {
    h.at('2026-07-01T00:00');
    lapsed = await h.signUp();
    late = await h.signUp();
    renewal = await h.signUp();
    for (const c of [lapsed, late, renewal]) await h.change(c, 'developer');
    await h.payOpen(renewal);

    await h.run('2026-07-07T23:59:59.999');
    for (const c of [lapsed, late]) assert.equal((await h.subscription(c)).status, 'active');

    const result = await h.run('2026-07-08T00:00:00.001');
    assert.deepEqual(h.changesOf(result, lapsed, late, renewal), []);
    for (const c of [lapsed, late]) {
      assert.deepEqual(
        await h.subscription(c),
        liveSubscription('developer', '2026-07-01T00:00', '2026-08-01T00:00', {
          status: 'past_due',
        }),
      );
      const account = await h.account(c);
      assert.deepEqual([account.plan, account.status], ['developer', 'past_due']);
      assert.deepEqual(await h.withKey(c), [200, 'developer'], 'the key works during the grace');
    }
    assert.equal((await h.subscription(renewal)).status, 'active');
    const upgrade = await h.changeStatus(lapsed, 'business');
    assert.equal(upgrade.statusCode, 409, upgrade.body);
  });

  it('marked paid by the operator during the grace: active again', async () => {
    h.at('2026-07-10T00:00');
    const [invoice] = await h.invoices(late);
    const paid = await h.t.services.subscriptions.markPaid(invoice!.id, 'operator');
    assert.equal(paid.status, 'paid');
    assert.equal(paid.paid_at, iso('2026-07-10T00:00'));
    assert.equal((await h.subscription(late)).status, 'active');
    assert.equal((await h.account(late)).status, 'active');
  });

  it('still unpaid 7 days after the due date: Free, the invoice uncollectible, keys revoked', async () => {
    await h.run('2026-07-14T23:59:59.999');
    assert.equal((await h.account(lapsed)).plan, 'developer');
    const result = await h.run('2026-07-15T00:00');
    assert.deepEqual(h.changesOf(result, lapsed, late, renewal), [
      { accountId: lapsed.accountId, from: 'developer', to: 'free', reason: 'payment_failed' },
    ]);
    assert.deepEqual(await h.subscription(lapsed), NO_SUBSCRIPTION);
    const account = await h.account(lapsed);
    assert.deepEqual([account.plan, account.status], ['free', 'active']);
    assert.deepEqual(await h.summaries(lapsed), [
      'uncollectible 2026-07-01T00:00→2026-08-01T00:00 4900-0=4900 due 2026-07-08T00:00 | subscription 4900 2026-07-01T00:00→2026-08-01T00:00',
    ]);
    assert.deepEqual(await h.keysRevokedAt(lapsed), ['2026-07-15T00:00']);
    assert.deepEqual(await h.withKey(lapsed), [401, undefined]);
    const audit = await h.t.db.query<{ action: string }>(
      "SELECT action FROM audit_log WHERE account_id = $1 AND actor = 'system' ORDER BY id",
      [lapsed.accountId],
    );
    assert.deepEqual(
      audit.map((a) => a.action),
      ['subscriptions.payment_failed', 'subscriptions.plan_changed'],
    );
    for (const c of [late, renewal])
      assert.deepEqual(
        await h.subscription(c),
        liveSubscription('developer', '2026-07-01T00:00', '2026-08-01T00:00'),
      );
  });

  it('back on Free owing an uncollectible invoice: no new paid plan (402) until it is paid', async () => {
    for (const plan of ['developer', 'business'] as const) {
      const refused = await h.changeStatus(lapsed, plan);
      assert.equal(refused.statusCode, 402, refused.body);
      assert.equal(refused.json().code, 'PAYMENT_OVERDUE');
      assert.equal(refused.json().amount_due_cents, 4900);
      assert.equal(refused.json().overdue_invoices.length, 1);
    }
    assert.deepEqual(await h.subscription(lapsed), NO_SUBSCRIPTION);
    assert.equal((await h.invoices(lapsed)).length, 1, 'no new invoice was issued');
    const [owed] = await h.invoices(lapsed);
    await h.t.services.subscriptions.markPaid(owed!.id, 'operator');
    const again = await h.changeStatus(lapsed, 'developer');
    assert.equal(again.statusCode, 200, again.body);
    assert.equal((await h.account(lapsed)).plan, 'developer');
    await h.payOpen(lapsed);
  });

  it('a renewal unpaid at the period start: past_due in the new period, Free 7 days later', async () => {
    await h.run('2026-07-25T00:00');
    for (const c of [late, renewal])
      assert.equal(
        (await h.summaries(c))[1],
        planInvoice('open', '2026-08-01T00:00', '2026-09-01T00:00', DEVELOPER),
      );
    await h.payOpen(late);
    await h.run('2026-08-01T00:00:00.001');
    assert.deepEqual(
      await h.subscription(renewal),
      liveSubscription('developer', '2026-08-01T00:00', '2026-09-01T00:00', {
        status: 'past_due',
      }),
    );
    assert.deepEqual(
      await h.subscription(late),
      liveSubscription('developer', '2026-08-01T00:00', '2026-09-01T00:00'),
    );
    await h.run('2026-08-07T23:59:59.999');
    assert.equal((await h.account(renewal)).plan, 'developer');
    const result = await h.run('2026-08-08T00:00');
    assert.deepEqual(h.changesOf(result, late, renewal), [
      { accountId: renewal.accountId, from: 'developer', to: 'free', reason: 'payment_failed' },
    ]);
    assert.deepEqual(
      (await h.invoices(renewal)).map((i) => i.status),
      ['paid', 'uncollectible'],
    );
    assert.deepEqual(await h.withKey(renewal), [401, undefined]);
    assert.equal((await h.account(late)).plan, 'developer');
  });
});
