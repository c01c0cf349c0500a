// Billing walk-throughs over the real API: subscriptions are changed with HTTP requests, the
// manual clock is moved across months and the billing run (not exposed over HTTP) is called as
// the server's timer would call it. Every billing run here is made twice at the same instant and
// the second must change nothing (idempotency). Amounts are checked to the cent.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { BillingRunResult, PublicInvoice } from '../../src/billing/index.js';
import type { Db } from '../../src/store/index.js';
import { giveBillingDetails, verifyEmailOf } from '../helpers/accounts.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';

const DAY = 86_400_000;
const PASSWORD = 'correct horse battery staple';
const DEVELOPER = 4900;
const BUSINESS = 19900;

type PaidPlan = 'developer' | 'business';
type Target = PaidPlan | 'free';

/** '2026-03-10T12:00' (UTC) → the ISO string the API prints. */
const iso = (at: string): string => new Date(`${at}Z`).toISOString();
const ms = (at: string): number => Date.parse(iso(at));
/** An instant (ms) as written in the expectations: '2026-03-10T12:00'. */
const short = (v: number | string | Date | null): string =>
  v === null ? '-' : new Date(v).toISOString().slice(0, 16);
/** A week before `at`, where renewal invoices are issued. */
const weekBefore = (at: string): string => short(ms(at) - 7 * DAY);
/** A renewal (or first) invoice as `summary` prints it, for walks over many months. */
const planInvoice = (
  status: string,
  start: string,
  end: string,
  price: number,
  applied = 0,
  due = start,
): string =>
  `${status} ${start}→${end} ${price}-${applied}=${price - applied} due ${due} | subscription ${price} ${start}→${end}`;

/**
 * One invoice on one line, e.g.
 * `open 2026-03-10T12:00→2026-04-10T12:00 4900-0=4900 due 2026-03-17T12:00 | subscription 4900 2026-03-10T12:00→2026-04-10T12:00`
 * (status, period, subtotal − balance applied = amount due, due date | lines).
 */
function summary(i: PublicInvoice): string {
  const lines = i.lines.map(
    (l) => `${l.kind} ${l.amount_cents} ${short(l.period_start)}→${short(l.period_end)}`,
  );
  return (
    `${i.status} ${short(i.period_start)}→${short(i.period_end)} ` +
    `${i.subtotal_cents}-${i.balance_applied_cents}=${i.amount_due_cents} due ${short(i.due_at)} | ` +
    lines.join('; ')
  );
}

/** What a subscription view looks like with a live subscription. */
function liveSubscription(
  plan: PaidPlan,
  start: string,
  end: string,
  extra: { status?: string; pending_plan?: Target | null; balance_cents?: number } = {},
) {
  return {
    plan,
    status: extra.status ?? 'active',
    current_period_start: iso(start),
    current_period_end: iso(end),
    pending_plan: extra.pending_plan ?? null,
    cancel_at_period_end: extra.pending_plan === 'free',
    balance_cents: extra.balance_cents ?? 0,
  };
}

const NO_SUBSCRIPTION = {
  plan: 'free',
  status: 'none',
  current_period_start: null,
  current_period_end: null,
  pending_plan: null,
  cancel_at_period_end: false,
  balance_cents: 0,
};

interface Customer {
  email: string;
  accountId: string;
  session: string;
  sessionAt: number;
  apiKey: string | null;
}

/** Everything billing writes, to compare before and after a second run at the same instant. */
async function billingState(db: Db) {
  return {
    invoices: await db.query(
      'SELECT id, status, subtotal_cents, balance_applied_cents, amount_due_cents, due_at, paid_at FROM invoices ORDER BY number',
    ),
    lines: await db.query('SELECT count(*)::int AS n FROM invoice_lines'),
    ledger: await db.query(
      'SELECT account_id, amount_cents, invoice_id FROM balance_ledger ORDER BY id',
    ),
    subscriptions: await db.query('SELECT * FROM subscriptions ORDER BY account_id'),
    accounts: await db.query('SELECT id, plan, status, updated_at FROM accounts ORDER BY id'),
    keys: await db.query('SELECT id, revoked_at, updated_at FROM api_keys ORDER BY id'),
    audit: await db.query('SELECT count(*)::int AS n FROM audit_log'),
  };
}

/**
 * One app (private database, manual clock) for a describe block, and the customer's moves.
 * Building an app takes seconds, so scenarios share one in time order: a billing run settles
 * every account, so assertions look at the scenario's own customers only.
 */
function billingApp(start: string) {
  let t: TestApp;
  before(async () => {
    // The server's own billing timer would run at an instant of its choosing: keep it away.
    t = await buildTestApp({ now: iso(start), env: { BILLING_INTERVAL_SECONDS: '86400' } });
  });
  after(() => t.close());

  async function inject(
    method: 'GET' | 'POST' | 'DELETE',
    url: string,
    token: string | undefined,
    payload?: object,
  ) {
    return t.app.inject({
      method,
      url,
      ...(payload === undefined ? {} : { payload }),
      headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
    });
  }

  /**
   * A token for the customer's requests: the session, which lasts 30 days; after that the API key
   * while it works (logging in costs a memory-hard hash), else a new session.
   */
  async function token(c: Customer): Promise<string> {
    if (t.clock.now() - c.sessionAt > 29 * DAY) {
      if (c.apiKey !== null) {
        const probe = await inject('GET', '/api/v1/account', c.apiKey);
        if (probe.statusCode === 200) return c.apiKey;
      }
      const res = await inject('POST', '/api/v1/sessions', undefined, {
        email: c.email,
        password: PASSWORD,
      });
      assert.equal(res.statusCode, 201, res.body);
      c.session = res.json().token;
      c.sessionAt = t.clock.now();
    }
    return c.session;
  }

  async function get(c: Customer, url: string) {
    const res = await inject('GET', url, await token(c));
    assert.equal(res.statusCode, 200, `GET ${url}: ${res.body}`);
    return res.json();
  }

  const h = {
    get t(): TestApp {
      return t;
    },
    at(at: string): void {
      t.clock.set(iso(at));
    },
    async signUp(): Promise<Customer> {
      const email = `billing-${randomBytes(5).toString('hex')}@example.com`;
      // Each customer from its own address: sign-ups are limited per address and hour.
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/accounts',
        payload: { email, password: PASSWORD },
        remoteAddress: `10.9.${randomBytes(1)[0]}.${randomBytes(1)[0]}`,
      });
      assert.equal(res.statusCode, 201, res.body);
      const body = res.json();
      await verifyEmailOf(t, body.account.id);
      await giveBillingDetails(t, body.account.id);
      return {
        email,
        accountId: body.account.id,
        session: body.session.token,
        sessionAt: t.clock.now(),
        apiKey: null,
      };
    },
    /** POST /api/v1/subscription {plan}; a first subscription's API key is kept on `c`. */
    async change(c: Customer, plan: Target) {
      const res = await inject('POST', '/api/v1/subscription', await token(c), { plan });
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json();
      if (body.api_key !== undefined) c.apiKey = body.api_key.key;
      return body as { subscription: unknown; invoices: PublicInvoice[]; api_key?: unknown };
    },
    async changeStatus(c: Customer, plan: Target) {
      return inject('POST', '/api/v1/subscription', await token(c), { plan });
    },
    async cancel(c: Customer) {
      const res = await inject('DELETE', '/api/v1/subscription', await token(c));
      assert.equal(res.statusCode, 200, res.body);
      return res.json<{ subscription: unknown; invoices: PublicInvoice[] }>();
    },
    async createKey(c: Customer): Promise<string> {
      const res = await inject('POST', '/api/v1/keys', await token(c), { name: 'second' });
      assert.equal(res.statusCode, 201, res.body);
      return res.json().key;
    },
    get,
    async invoices(c: Customer): Promise<PublicInvoice[]> {
      return (await get(c, '/api/v1/invoices')).data;
    },
    async count(c: Customer): Promise<number> {
      return (await h.invoices(c)).length;
    },
    async summaries(c: Customer): Promise<string[]> {
      return (await h.invoices(c)).map(summary);
    },
    subscription: (c: Customer) => get(c, '/api/v1/subscription'),
    account: (c: Customer) => get(c, '/api/v1/account'),
    balance: (c: Customer) =>
      get(c, '/api/v1/balance') as Promise<{
        balance_cents: number;
        entries: { amount_cents: number; invoice_id: string | null; created_at: string }[];
      }>,
    /** What the customer's first API key (or `key`) gets on GET /api/v1/account: status, plan. */
    async withKey(c: Customer, key = c.apiKey): Promise<[number, string | undefined]> {
      assert.ok(key !== null, 'the customer has an API key');
      const res = await inject('GET', '/api/v1/account', key);
      return [res.statusCode, res.statusCode === 200 ? res.json().plan : undefined];
    },
    /** revoked_at of the account's keys, oldest key first. */
    async keysRevokedAt(c: Customer): Promise<(string | null)[]> {
      const rows = await t.db.query<{ revoked_at: Date | string | null }>(
        'SELECT revoked_at FROM api_keys WHERE account_id = $1 ORDER BY created_at, id',
        [c.accountId],
      );
      return rows.map((r) => (r.revoked_at === null ? null : short(r.revoked_at)));
    },
    /** The operator marks every open invoice of these customers paid. */
    async payOpen(...customers: Customer[]): Promise<void> {
      for (const c of customers)
        for (const invoice of await h.invoices(c))
          if (invoice.status === 'open')
            await t.services.subscriptions.markPaid(invoice.id, 'operator');
    },
    /** Runs billing at `at` (or now), then again at the same instant: the second changes nothing. */
    async run(at?: string): Promise<BillingRunResult> {
      if (at !== undefined) h.at(at);
      const first = await t.services.billing();
      assert.ok(first !== undefined, 'the billing run got its lock');
      const state = await billingState(t.db);
      const second = await t.services.billing();
      assert.ok(second !== undefined);
      assert.equal(second.invoicesIssued, 0, 'a second run at the same instant issues nothing');
      assert.deepEqual(second.planChanges, [], 'a second run at the same instant changes no plan');
      assert.deepEqual(await billingState(t.db), state, 'a second run changes nothing');
      return first;
    },
    /** The plan changes of a run that concern these customers. */
    changesOf(result: BillingRunResult, ...customers: Customer[]) {
      return result.planChanges.filter((p) => customers.some((c) => c.accountId === p.accountId));
    },
  };
  return h;
}
type BillingApp = ReturnType<typeof billingApp>;

function subscribing(h: BillingApp) {
  describe('subscribing to Developer on 2026-03-10 12:00', () => {
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
}

function upgrading(h: BillingApp) {
  // June 2026 has 30 days: the period [06-01, 07-01) is 30 × 86 400 000 ms.
  describe('upgrading Developer → Business in a 30-day period', () => {
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
}

function paymentFailure(h: BillingApp) {
  // July 2026: [07-01, 08-01); the first invoices are due on 07-08.
  describe('payment failure', () => {
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
}

function renewalAtAnotherPrice(h: BillingApp) {
  // September 2026: [09-01, 10-01) (30 days), renewal invoices issued on 09-24; changes
  // "before" are made on 09-11, "after" on 09-26 and 09-28. The customer must pay exactly the
  // price of the plan they get for October: what is invoiced for October (lines starting 10-01,
  // void invoices excluded) less every credit granted (the balance + credit spent on invoices).
  describe('a renewal invoiced in advance at a price that no longer applies', () => {
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
        planInvoice(
          'paid',
          '2026-09-01T00:00',
          '2026-10-01T00:00',
          DEVELOPER,
          0,
          '2026-09-08T00:00',
        ),
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
}

function downgradingWithCredit(h: BillingApp) {
  // November 2026: [11-01, 12-01); the renewal for December is issued on 11-24 at 19900.
  describe('downgrading Business → Developer after the renewal was invoiced and paid at 19900', () => {
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
}

function cancelling(h: BillingApp) {
  // April 2027: [04-10 12:00, 05-10 12:00), renewals issued on 05-03 12:00.
  describe('cancelling (DELETE /api/v1/subscription)', () => {
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
        planInvoice(
          'paid',
          '2027-04-10T12:00',
          '2027-05-10T12:00',
          DEVELOPER,
          0,
          '2027-04-17T12:00',
        ),
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
}

function endOfMonthAnchor(h: BillingApp) {
  describe('an anchor on 31 January 2027', () => {
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
}

function leapDayAnchor(h: BillingApp) {
  describe('an anchor on 29 February 2028', () => {
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
}

// Building an app takes seconds: scenarios share one app per time line, one after another.
describe('billing, March 2026 to September 2027 (one app)', () => {
  const h = billingApp('2026-03-10T12:00');
  subscribing(h); // 2026-03-10 … 05-03
  upgrading(h); // 2026-06-01 … 07-01
  paymentFailure(h); // 2026-07-01 … 08-08
  renewalAtAnotherPrice(h); // 2026-09-01 … 10-01
  downgradingWithCredit(h); // 2026-11-01 … 2027-04-01
  cancelling(h); // 2027-04-10 … 09-05
});

describe('billing, anchors at the end of the month (one app)', () => {
  const h = billingApp('2027-01-31T08:00');
  endOfMonthAnchor(h); // 2027-01-31 … 05-31
  leapDayAnchor(h); // 2028-02-29 … 2029-03-29
});
