// A renewal is not invoiced to an account without billing details (a subscription begun before
// they were required): the period is held, past_due with the plan kept through the grace period;
// details given in time renew it, none move the account to Free.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { giveBillingDetails } from '../helpers/accounts.js';
import { billingApp, liveSubscription, NO_SUBSCRIPTION, type Customer } from './billing-walk.js';

// July 2026: [07-01, 08-01); renewals are invoiced from 07-25 and the period ends on 08-01.
describe('renewal without billing details', () => {
  const h = billingApp('2026-07-01T00:00');
  let late: Customer; // gives its details during the grace period
  let never: Customer; // never gives them

  const notices = async (c: Customer) =>
    (
      await h.t.db.query<{ kind: string; data: Record<string, unknown> }>(
        "SELECT kind, data FROM notices WHERE account_id = $1 AND kind IN ('billing_details.required', 'subscription.ended_without_billing_details') ORDER BY created_at",
        [c.accountId],
      )
    ).map((n) => [n.kind, n.data]);

  it('issues no renewal invoice in advance while the account has no details', async () => {
    h.at('2026-07-01T00:00');
    late = await h.signUp();
    never = await h.signUp();
    for (const c of [late, never]) {
      await h.change(c, 'developer');
      await h.payOpen(c);
      // As an account subscribed before billing details were required.
      await h.t.db.query('DELETE FROM billing_details WHERE account_id = $1', [c.accountId]);
    }
    const result = await h.run('2026-07-26T00:00');
    assert.equal(result.invoicesIssued, 0);
    for (const c of [late, never]) assert.equal((await h.invoices(c)).length, 1);
  });

  it('at the period end: past_due, the plan kept, the period not rolled over, one notice', async () => {
    const result = await h.run('2026-08-01T00:00:00.001');
    assert.equal(result.invoicesIssued, 0);
    assert.deepEqual(h.changesOf(result, late, never), []);
    for (const c of [late, never]) {
      assert.deepEqual(
        await h.subscription(c),
        liveSubscription('developer', '2026-07-01T00:00', '2026-08-01T00:00', {
          status: 'past_due',
        }),
      );
      assert.deepEqual(await h.withKey(c), [200, 'developer']);
      assert.deepEqual(await notices(c), [
        [
          'billing_details.required',
          { plan_name: 'Developer', grace_ends_at: '2026-08-08T00:00:00.000Z' },
        ],
      ]);
    }
    await h.run('2026-08-03T00:00');
    assert.equal((await notices(never)).length, 1, 'the notice is sent once');
  });

  it('details given during the grace: the renewal is invoiced, the period rolls over, active', async () => {
    h.at('2026-08-04T00:00');
    await giveBillingDetails(h.t, late.accountId);
    const result = await h.run('2026-08-04T00:00');
    assert.equal(result.invoicesIssued, 1);
    assert.deepEqual(
      await h.subscription(late),
      liveSubscription('developer', '2026-08-01T00:00', '2026-09-01T00:00'),
    );
    assert.equal((await h.account(late)).status, 'active');
    const renewal = (await h.invoices(late)).at(-1)!;
    assert.equal(renewal.status, 'open');
    assert.equal(renewal.subtotal_cents, 4900);
    assert.notEqual(renewal.buyer, null);
  });

  it('none by the end of the grace: Free, keys revoked, audited and mailed', async () => {
    await h.run('2026-08-07T23:59:59.999');
    assert.equal((await h.account(never)).plan, 'developer');
    const result = await h.run('2026-08-08T00:00');
    assert.deepEqual(h.changesOf(result, late, never), [
      {
        accountId: never.accountId,
        from: 'developer',
        to: 'free',
        reason: 'billing_details_missing',
      },
    ]);
    assert.deepEqual(await h.subscription(never), NO_SUBSCRIPTION);
    assert.deepEqual(await h.withKey(never), [401, undefined]);
    assert.equal((await h.invoices(never)).length, 1, 'no invoice to an unnamed buyer');
    assert.deepEqual((await notices(never)).at(-1), [
      'subscription.ended_without_billing_details',
      { from_plan: 'Developer' },
    ]);
    const audit = await h.t.db.query<{ action: string }>(
      "SELECT action FROM audit_log WHERE account_id = $1 AND actor = 'system' ORDER BY id",
      [never.accountId],
    );
    assert.deepEqual(
      audit.map((a) => a.action),
      [
        'subscriptions.renewal_held',
        'subscriptions.ended_without_billing_details',
        'subscriptions.plan_changed',
      ],
    );
  });
});
