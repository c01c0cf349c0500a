// Billing walk-throughs over the real API, shared by the billing-*.test.ts files: subscriptions
// are changed with HTTP requests, the manual clock is moved across months and the billing run
// (not exposed over HTTP) is called as the server's timer would call it. Every billing run is
// made twice at the same instant and the second must change nothing (idempotency). Amounts are
// checked to the cent.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before } from 'node:test';
import type { BillingRunResult, PublicInvoice } from '../../src/billing/index.js';
import type { Db } from '../../src/store/index.js';
import { giveBillingDetails, verifyEmailOf } from '../helpers/accounts.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';

export const DAY = 86_400_000;
const PASSWORD = 'correct horse battery staple';
export const DEVELOPER = 4900;
export const BUSINESS = 19900;

export type PaidPlan = 'developer' | 'business';
export type Target = PaidPlan | 'free';

/** '2026-03-10T12:00' (UTC) → the ISO string the API prints. */
export const iso = (at: string): string => new Date(`${at}Z`).toISOString();
export const ms = (at: string): number => Date.parse(iso(at));
/** An instant (ms) as written in the expectations: '2026-03-10T12:00'. */
export const short = (v: number | string | Date | null): string =>
  v === null ? '-' : new Date(v).toISOString().slice(0, 16);
/** A week before `at`, where renewal invoices are issued. */
export const weekBefore = (at: string): string => short(ms(at) - 7 * DAY);
/** A renewal (or first) invoice as `summary` prints it, for walks over many months. */
export const planInvoice = (
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
export function summary(i: PublicInvoice): string {
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
export function liveSubscription(
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

export const NO_SUBSCRIPTION = {
  plan: 'free',
  status: 'none',
  current_period_start: null,
  current_period_end: null,
  pending_plan: null,
  cancel_at_period_end: false,
  balance_cents: 0,
};

export interface Customer {
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
 * One app (private database, manual clock at `start`) for the describe block that calls it, and
 * the customer's moves. Each scenario has its own, so a scenario depends on no other: its tests
 * run in order, moving the clock forward.
 */
export function billingApp(start: string) {
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
export type BillingApp = ReturnType<typeof billingApp>;
