// The SEPA mandate endpoints against hostile and careless callers: consent given only as a JSON
// boolean, names that cannot break or hide in the pain.008 (still valid for xmllint), a retried
// PUT that changes nothing, parallel PUTs, a daily limit; the mandate in the account's data
// export; a debit the bank is collecting does not block subscribing again.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { accountOnPlan } from '../helpers/accounts.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { freshPostgres, postgresAvailable } from '../helpers/db.js';
import { DUTCH_SELLER } from '../helpers/seller.js';
import { SEPA, xmllint } from './sepa-fixtures.js';

const IBAN = 'DE89370400440532013000';

/** A request through the app with a session or key as bearer token. */
const bearer = (t: TestApp, token: string, method: string, url: string, payload?: unknown) =>
  t.app.inject({
    method: method as 'GET',
    url,
    headers: { authorization: `Bearer ${token}` },
    ...(payload === undefined ? {} : { payload: payload as object }),
  });

const withPostgres = await postgresAvailable();

for (const engine of ['PGlite', 'PostgreSQL'] as const)
  describe(
    `SEPA mandates under attack on ${engine}`,
    { skip: engine === 'PostgreSQL' && !withPostgres },
    () => {
      let t: TestApp;
      let pgdb: Awaited<ReturnType<typeof freshPostgres>> | undefined;
      before(async () => {
        pgdb = engine === 'PostgreSQL' ? await freshPostgres() : undefined;
        t = await buildTestApp({
          env: { ...DUTCH_SELLER, ...SEPA },
          ...(pgdb === undefined ? {} : { db: pgdb.db }),
        });
      });
      after(async () => {
        await t.close();
        await pgdb?.cleanup();
      });

      const call = (session: string, method: string, url: string, payload?: unknown) =>
        bearer(t, session, method, url, payload);
      const put = (session: string, body: Record<string, unknown>) =>
        call(session, 'PUT', '/api/v1/billing/mandate', {
          iban: IBAN,
          account_holder: 'Alice Example',
          scheme: 'core',
          accept_mandate_text: true,
          ...body,
        });
      const refused = (r: Awaited<ReturnType<typeof put>>, name: string, reason: RegExp) => {
        assert.equal(r.statusCode, 400, r.body);
        assert.match(r.headers['content-type'] as string, /problem\+json/);
        const p = r.json().invalid_params.find((x: { name: string }) => x.name === name);
        assert.ok(p, r.body);
        assert.match(p.reason, reason);
      };

      it('takes consent only as the JSON boolean true', async () => {
        const a = await accountOnPlan(t, 'free');
        for (const v of ['true', 1, 'yes', null])
          refused(await put(a.session, { accept_mandate_text: v }), 'accept_mandate_text', /.+/);
        refused(
          await put(a.session, { accept_mandate_text: false }),
          'accept_mandate_text',
          /true/,
        );
        assert.equal(
          (await call(a.session, 'GET', '/api/v1/billing/mandate')).json().mandate,
          null,
        );
        assert.equal((await put(a.session, {})).statusCode, 200);
      });

      it('refuses holders with control or invisible characters, or nothing Latin letters can write', async () => {
        const a = await accountOnPlan(t, 'free');
        const cases: [string, RegExp][] = [
          ['Erin\r\nBcc: x@example.com', /control or invisible formatting characters \(U\+000D\)/],
          ['Erin \u001b[31m', /U\+001B/],
          ['\u202eelpmaxE', /U\+202E/],
          ['Gina\u200b', /U\+200B/],
          ['山田太郎', /Latin letters/],
          ['!!! ***', /Latin letters/],
        ];
        for (const [holder, reason] of cases)
          refused(await put(a.session, { account_holder: holder }), 'account_holder', reason);
      });

      it('writes Greek, Cyrillic and XML-special names into a schema-valid pain.008', async () => {
        const names = new Map([
          ['Παπαδόπουλος Γεώργιος', /<Nm>Papadop[a-z]+ Georgios<\/Nm>/],
          ['Иван Петров', /<Nm>Ivan Petrov<\/Nm>/],
          ['Аlice Ехаmple', /<Nm>Alice Ekhample<\/Nm>/],
          ['A</Nm><Nm>x]]>&amp;<![CDATA[ & " \'', /<Nm>A \/Nm Nm x amp CDATA '<\/Nm>/],
        ]);
        for (const holder of names.keys()) {
          const a = await accountOnPlan(t, 'developer');
          const r = await put(a.session, {
            account_holder: holder,
            iban: 'GR16 0110 1250 0000 0001 2300 695',
          });
          assert.equal(r.statusCode, 200, r.body);
          assert.equal(r.json().account_holder, holder, 'the holder is kept as given');
        }
        const batch = await t.services.subscriptions.mandates.batch('operator');
        assert.ok(batch.xml !== null);
        const lint = await xmllint(batch.xml);
        assert.ok(lint.ok, lint.out);
        for (const [holder, nm] of names) assert.match(batch.xml, nm, holder);
        assert.doesNotMatch(batch.xml, /<Nm><\/Nm>|<Nm>x|CDATA\[/);
      });

      it('leaves out a mandate stored with a name the file cannot carry, keeping the file valid', async () => {
        const [ok, old] = [
          await accountOnPlan(t, 'developer'),
          await accountOnPlan(t, 'developer'),
        ];
        assert.equal((await put(ok.session, {})).statusCode, 200);
        assert.equal((await put(old.session, {})).statusCode, 200);
        await t.db.query(
          `UPDATE sepa_mandates SET account_holder = '山田太郎' WHERE account_id = $1`,
          [old.accountId],
        );
        const batch = await t.services.subscriptions.mandates.batch('operator');
        assert.ok(batch.xml !== null);
        const lint = await xmllint(batch.xml);
        assert.ok(lint.ok, lint.out);
        const [invoice] = await t.db.query<{ id: string }>(
          'SELECT id FROM invoices WHERE account_id = $1',
          [old.accountId],
        );
        assert.equal(batch.collections.filter((c) => c.invoice_id === invoice!.id).length, 0);
        assert.equal(batch.collections.length, 1);
      });

      it('answers a repeated PUT with the mandate in force, unchanged', async () => {
        const a = await accountOnPlan(t, 'free');
        const first = await put(a.session, {});
        const again = await put(a.session, { iban: 'de89 3704 0044 0532 0130 00 ' });
        assert.equal(again.statusCode, 200);
        assert.equal(again.json().reference, first.json().reference);
        const given = await t.db.query(
          `SELECT 1 FROM audit_log WHERE account_id = $1 AND action = 'mandates.give'`,
          [a.accountId],
        );
        assert.equal(given.length, 1);
        const other = await put(a.session, { scheme: 'b2b' });
        assert.notEqual(other.json().reference, first.json().reference);
      });

      it('gives one mandate in force from parallel PUTs, without a 500', async () => {
        const a = await accountOnPlan(t, 'free');
        const answers = await Promise.all(
          ['One', 'Two', 'Three', 'Four', 'Five', 'Six'].map((n) =>
            put(a.session, { account_holder: `Holder ${n}` }),
          ),
        );
        assert.deepEqual(
          answers.map((r) => r.statusCode),
          [200, 200, 200, 200, 200, 200],
        );
        const [row] = await t.db.query<{ n: number | string }>(
          'SELECT count(*) AS n FROM sepa_mandates WHERE account_id = $1 AND revoked_at IS NULL',
          [a.accountId],
        );
        assert.equal(Number(row!.n), 1);
      });

      it('allows 10 mandates in 24 hours, then 429 with Retry-After', async () => {
        const a = await accountOnPlan(t, 'free');
        for (let i = 0; i < 10; i++)
          assert.equal((await put(a.session, { account_holder: `Holder ${i}` })).statusCode, 200);
        const limited = await put(a.session, { account_holder: 'Holder 10' });
        assert.equal(limited.statusCode, 429, limited.body);
        assert.equal(limited.json().code, 'TOO_MANY_ATTEMPTS');
        assert.equal(limited.headers['retry-after'], '86400');
        // A retry of what is in force is no change and still answers.
        assert.equal((await put(a.session, { account_holder: 'Holder 9' })).statusCode, 200);
        t.clock.advance(86_400_000 + 1000);
        assert.equal((await put(a.session, { account_holder: 'Holder 10' })).statusCode, 200);
      });
    },
  );

describe('the mandate beyond its endpoints', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({ env: { ...DUTCH_SELLER, ...SEPA } });
  });
  after(() => t.close());
  const call = (session: string, method: string, url: string, payload?: unknown) =>
    bearer(t, session, method, url, payload);
  /** A new session: the first one has expired after a month of the manual clock. */
  const signIn = async (email: string): Promise<string> =>
    (
      await t.app.inject({
        method: 'POST',
        url: '/api/v1/sessions',
        payload: { email, password: 'a long enough passphrase' },
      })
    ).json().token as string;

  it('is in the data export with the IBAN masked, revoked ones too', async () => {
    const a = await accountOnPlan(t, 'free');
    const body = { iban: IBAN, account_holder: 'Alice', scheme: 'core', accept_mandate_text: true };
    const first = (await call(a.session, 'PUT', '/api/v1/billing/mandate', body)).json();
    t.clock.advance(60_000);
    await call(a.session, 'PUT', '/api/v1/billing/mandate', { ...body, scheme: 'b2b' });
    const r = await call(a.session, 'GET', '/api/v1/account/export');
    assert.equal(r.statusCode, 200);
    assert.doesNotMatch(r.body, /370400440532013000/);
    const mandates = r.json().sepa_mandates as Record<string, unknown>[];
    assert.equal(mandates.length, 2);
    assert.equal(mandates[0]!.reference, first.reference);
    assert.equal(mandates[0]!.iban_masked, 'DE89 •••• •••• •••• ••30 00');
    assert.equal(mandates[0]!.account_holder, 'Alice');
    assert.equal(mandates[0]!.signed_at, '2026-11-22T10:15:00.000Z');
    assert.equal(mandates[0]!.revoked_at, '2026-11-22T10:16:00.000Z');
    assert.equal(mandates[1]!.revoked_at, null);
    assert.equal(mandates[1]!.scheme, 'b2b');
  });

  it('lets an account subscribe again while its overdue invoice is being collected', async () => {
    const a = await accountOnPlan(t, 'developer');
    const body = { iban: IBAN, account_holder: 'Alice', scheme: 'core', accept_mandate_text: true };
    assert.equal((await call(a.session, 'PUT', '/api/v1/billing/mandate', body)).statusCode, 200);
    const batch = await t.services.subscriptions.mandates.batch('operator');
    assert.equal(batch.collections.length >= 1, true);
    const cancel = await call(a.session, 'POST', '/api/v1/subscription', { plan: 'free' });
    assert.equal(cancel.statusCode, 200, cancel.body);
    // Past the period's end: the subscription ended, the invoice (due 29 Nov) still collecting.
    t.clock.set(Date.parse('2026-12-23T09:00:00Z'));
    await t.services.billing();
    const session = await signIn(a.email);
    const [invoice] = (await call(session, 'GET', '/api/v1/invoices')).json().data;
    assert.equal(invoice.status, 'open');
    assert.equal(invoice.due_at < new Date(t.clock.now()).toISOString(), true);
    const again = await call(session, 'POST', '/api/v1/subscription', { plan: 'developer' });
    assert.equal(again.statusCode, 200, again.body);

    // Once the debit comes back it is owed like any invoice.
    const b = await accountOnPlan(t, 'developer');
    const given = await call(b.session, 'PUT', '/api/v1/billing/mandate', body);
    const second = await t.services.subscriptions.mandates.batch('operator');
    const mine = second.collections.find((c) => c.mandate_reference === given.json().reference)!;
    await call(b.session, 'POST', '/api/v1/subscription', { plan: 'free' });
    t.clock.set(Date.parse('2027-01-24T09:00:00Z'));
    await t.services.billing();
    await t.services.subscriptions.mandates.applyReturns(
      [{ endToEndId: mine.end_to_end_id, reasonCode: 'AM04', reference: 'RET-1' }],
      'operator',
    );
    const refused = await call(await signIn(b.email), 'POST', '/api/v1/subscription', {
      plan: 'developer',
    });
    assert.equal(refused.json().code, 'PAYMENT_OVERDUE', refused.body);
  });
});
