import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { freshPostgres, postgresAvailable, type TestDb } from '../helpers/db.js';
import { createActionTokens } from '../../src/lib/action-tokens.js';
import { creditorReference } from '../../src/lib/bank-account.js';
import { camt053 } from '../helpers/camt.js';
import { runCli } from '../helpers/process.js';
import { setVersion, writeRelease, writeReleaseVersion } from '../helpers/release-file.js';

/** The billing details a paid plan's account is created with (no invoice without them). */
const BILLED = ['--billing-name', 'Jan de Vries', '--address', 'Damrak 1', '--country', 'NL'];
const work = mkdtempSync(join(tmpdir(), 'salary-api-cli-'));
describe('salary-api CLI on PostgreSQL', async () => {
  const enabled = await postgresAvailable();
  let pg: TestDb & { url: string };
  before(async () => {
    if (enabled) pg = await freshPostgres();
  });
  after(async () => {
    await pg?.cleanup();
    rmSync(work, { recursive: true, force: true });
  });
  const skip = !enabled && 'no PostgreSQL reachable';

  it('loads a valid release and records data.updated', { skip }, async () => {
    const file = writeReleaseVersion(join(work, 'good.jsonl.gz'), '2026.11.7');
    const res = await runCli(['data', 'load', file, '--json'], { DATABASE_URL: pg.url });
    assert.equal(res.code, 0, res.stderr);
    const out = JSON.parse(res.stdout);
    assert.equal(out.release, '2026.11.7');
    assert.equal(out.records, 29_484);
    assert.equal(out.event.type, 'data.updated');
    const events = await pg.db.query<{ id: string }>(
      "SELECT id FROM events WHERE type = 'data.updated'",
    );
    assert.deepEqual(
      events.map((e) => e.id),
      [out.event.id],
    );
    const status = await runCli(['data', 'status', '--json'], { DATABASE_URL: pg.url });
    assert.equal(JSON.parse(status.stdout).active.version, '2026.11.7');
  });

  it(
    'rejects an invalid release naming line and field, and leaves the active one untouched',
    { skip },
    async () => {
      const file = writeRelease(join(work, 'bad.jsonl'), (l) => {
        setVersion(l, '2026.11.8');
        const r = JSON.parse(l[41]!);
        r.median = -5;
        l[41] = JSON.stringify(r);
      });
      const res = await runCli(['data', 'load', file], { DATABASE_URL: pg.url });
      assert.equal(res.code, 1);
      assert.match(res.stderr, /line 42: field "median"/);
      const rows = await pg.db.query<{ version: string }>('SELECT version FROM data_releases');
      assert.deepEqual(
        rows.map((r) => r.version),
        ['2026.11.7'],
      );
    },
  );

  it('refuses to load the same version twice', { skip }, async () => {
    const file = writeReleaseVersion(join(work, 'again.jsonl'), '2026.11.7');
    const res = await runCli(['data', 'load', file], { DATABASE_URL: pg.url });
    assert.equal(res.code, 1);
    assert.match(res.stderr, /already loaded/);
  });

  it('lists, diffs and retires kept releases', { skip }, async () => {
    const edited = writeRelease(join(work, 'edited.jsonl.gz'), (l) => {
      setVersion(l, '2026.11.9');
      const r = JSON.parse(l[41]!);
      for (const f of ['p10', 'p25', 'median', 'p75', 'p90', 'mean']) r[f] = Math.round(r[f] * 1.2);
      l[41] = JSON.stringify(r);
    });
    const env = { DATABASE_URL: pg.url };
    assert.equal((await runCli(['data', 'load', edited], env)).code, 0);
    const diff = await runCli(['data', 'diff', '2026.11.7', '2026.11.9', '--json'], env);
    assert.equal(diff.code, 0, diff.stderr);
    const out = JSON.parse(diff.stdout);
    assert.equal(out.summary.changed, 1);
    assert.deepEqual(out.summary.beyond, { '1': 1, '5': 1, '10': 1 });
    const text = await runCli(['data', 'diff', '2026.11.7', '2026.11.9'], env);
    assert.match(text.stdout, /1 changed/);
    const active = await runCli(['data', 'retire', '2026.11.9'], env);
    assert.equal(active.code, 1);
    assert.match(active.stderr, /active release/);
    const retired = await runCli(['data', 'retire', '2026.11.7'], env);
    assert.equal(retired.code, 0, retired.stderr);
    const list = JSON.parse((await runCli(['data', 'list', '--json'], env)).stdout);
    assert.deepEqual(
      list.releases.map((r: { version: string }) => r.version),
      ['2026.11.9'],
    );
    const gone = await runCli(['data', 'diff', '2026.11.7', '2026.11.9'], env);
    assert.equal(gone.code, 1);
    assert.match(gone.stderr, /no kept release 2026\.11\.7/);
  });

  it('reports a missing file and bad configuration clearly', async () => {
    const missing = await runCli(['data', 'load', join(work, 'nope.jsonl')], {
      DATABASE_URL: 'postgres://127.0.0.1:1/x',
    });
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /cannot read/);
    const badEnv = await runCli(['migrate'], { PORT: 'eighty', DATABASE_URL: 'mysql://x' });
    assert.equal(badEnv.code, 1);
    assert.match(badEnv.stderr, /PORT must be a whole number/);
    assert.match(badEnv.stderr, /DATABASE_URL must be a URL/);
  });

  it(
    'account create prints the account and, for a paid plan, its first API key',
    { skip },
    async () => {
      const bare = await runCli(
        ['account', 'create', '--email', 'ops@example.com', '--plan', 'developer'],
        { DATABASE_URL: pg.url },
      );
      assert.equal(bare.code, 2);
      assert.match(bare.stderr, /no invoice is issued without billing details/);
      assert.match(bare.stderr, /missing --billing-name .*, --address .*, --country /);
      const none = await pg.db.query('SELECT 1 FROM accounts WHERE email = $1', [
        'ops@example.com',
      ]);
      assert.equal(none.length, 0, 'no account is created when the details are missing');
      const res = await runCli(
        [
          'account',
          'create',
          '--email',
          'ops@example.com',
          '--plan',
          'developer',
          '--billing-name',
          'Ops GmbH',
          '--address',
          'Unter den Linden 7; 10117 Berlin',
          '--country',
          'DE',
          '--json',
        ],
        { DATABASE_URL: pg.url },
      );
      assert.equal(res.code, 0, res.stderr);
      const out = JSON.parse(res.stdout);
      const [invoice] = await pg.db.query<{ buyer: { name: string } | null }>(
        'SELECT buyer FROM invoices WHERE account_id = $1',
        [out.account.id],
      );
      assert.equal(invoice?.buyer?.name, 'Ops GmbH');
      assert.equal(out.account.email, 'ops@example.com');
      assert.equal(out.account.plan, 'developer');
      assert.match(out.api_key, /^sk_live_[A-Za-z0-9_-]{43}$/);
      const keys = await pg.db.query<{ key_hash: string }>('SELECT key_hash FROM api_keys');
      assert.equal(keys.length, 1);
      const free = JSON.parse(
        (
          await runCli(
            ['account', 'create', '--email', 'free@example.com', '--plan', 'free', '--json'],
            { DATABASE_URL: pg.url },
          )
        ).stdout,
      );
      assert.equal(free.api_key, null);
    },
  );

  it(
    'account reset-password mails a single-use link, or prints it; an unknown address is an error',
    { skip },
    async () => {
      const env = { DATABASE_URL: pg.url, SECRET_KEY: 'cli-test-secret-key-0123456789abcdefgh' };
      const created = await runCli(
        ['account', 'create', '--email', 'reset-ops@example.com', '--plan', 'free', '--json'],
        env,
      );
      assert.equal(created.code, 0, created.stderr);
      const accountId = JSON.parse(created.stdout).account.id;
      assert.notEqual(JSON.parse(created.stdout).account.email_verified_at, null);

      const mailed = await runCli(['account', 'reset-password', 'reset-ops@example.com'], env);
      assert.equal(mailed.code, 0, mailed.stderr);
      assert.match(mailed.stdout, /a reset link was queued for reset-ops@example\.com/);
      const notices = await pg.db.query<{ kind: string }>(
        "SELECT kind FROM notices WHERE account_id = $1 AND kind = 'password.reset'",
        [accountId],
      );
      assert.equal(notices.length, 1);

      const printed = await runCli(
        ['account', 'reset-password', 'reset-ops@example.com', '--print-link', '--json'],
        env,
      );
      assert.equal(printed.code, 0, printed.stderr);
      const out = JSON.parse(printed.stdout);
      assert.equal(out.mailed, false);
      const token = /\/dashboard\/reset-password\?token=(.+)$/.exec(out.link)?.[1] ?? '';
      const id = createActionTokens(env.SECRET_KEY).idOf('password.reset', token);
      assert.ok(id !== null, out.link);
      const rows = await pg.db.query(
        'SELECT 1 FROM account_tokens WHERE id = $1 AND account_id = $2',
        [id, accountId],
      );
      assert.equal(rows.length, 1);

      const unknown = await runCli(['account', 'reset-password', 'nobody@example.com'], env);
      assert.notEqual(unknown.code, 0);
      assert.match(unknown.stderr, /No account has the address nobody@example\.com/);
    },
  );

  it(
    'account export prints the account as JSON; account delete needs --yes, then erases it',
    { skip },
    async () => {
      const env = { DATABASE_URL: pg.url, SECRET_KEY: 'cli-test-secret-key-0123456789abcdefgh' };
      const created = await runCli(
        [
          'account',
          'create',
          '--email',
          'leaving@example.com',
          '--plan',
          'developer',
          ...BILLED,
          '--json',
        ],
        env,
      );
      assert.equal(created.code, 0, created.stderr);
      const { account, api_key: apiKey } = JSON.parse(created.stdout);

      const exported = await runCli(['account', 'export', 'leaving@example.com'], env);
      assert.equal(exported.code, 0, exported.stderr);
      const data = JSON.parse(exported.stdout);
      assert.equal(data.account.email, 'leaving@example.com');
      assert.equal(data.api_keys.length, 1);
      assert.ok(!exported.stdout.includes(apiKey.key));

      const unconfirmed = await runCli(['account', 'delete', 'leaving@example.com'], env);
      assert.notEqual(unconfirmed.code, 0);
      assert.match(unconfirmed.stderr, /--yes/);
      const deleted = await runCli(
        ['account', 'delete', 'leaving@example.com', '--yes', '--json'],
        env,
      );
      assert.equal(deleted.code, 0, deleted.stderr);
      const result = JSON.parse(deleted.stdout);
      assert.equal(result.account_id, account.id);
      assert.equal(result.api_keys_revoked, 1);
      assert.equal(result.invoices_kept, 1);
      const [row] = await pg.db.query<{ email: string; status: string }>(
        'SELECT email, status FROM accounts WHERE id = $1',
        [account.id],
      );
      assert.deepEqual(row, { email: `deleted+${account.id}@invalid`, status: 'deleted' });
      const again = await runCli(['account', 'delete', 'leaving@example.com', '--yes'], env);
      assert.notEqual(again.code, 0);
    },
  );

  it(
    'Enterprise without contract flags says that it needs a contract and which flags',
    { skip },
    async () => {
      const existing = await runCli(
        ['account', 'create', '--email', 'free-nocontract@example.com', '--plan', 'free'],
        { DATABASE_URL: pg.url },
      );
      assert.equal(existing.code, 0, existing.stderr);
      for (const args of [
        ['account', 'create', '--email', 'ent-nocontract@example.com', '--plan', 'enterprise'],
        ['account', 'contract', '--email', 'free-nocontract@example.com'],
      ]) {
        const res = await runCli(args, { DATABASE_URL: pg.url });
        assert.equal(res.code, 2, res.stderr);
        assert.match(res.stderr, /Enterprise needs a contract: give --price-cents N/);
        assert.match(res.stderr, /--limit N\|unlimited .*--sla P .*--formats a,b/s);
      }
      const accounts = await pg.db.query('SELECT 1 FROM accounts WHERE email = $1', [
        'ent-nocontract@example.com',
      ]);
      assert.equal(accounts.length, 0, 'no account was created half-way');
    },
  );

  it(
    'puts an account on an Enterprise contract, marks its invoice paid, runs billing',
    { skip },
    async () => {
      const contract = await runCli(
        [
          'account',
          'contract',
          '--email',
          'ops@example.com',
          '--price-cents',
          '250000',
          '--limit',
          'unlimited',
          '--sla',
          '99.95',
          '--json',
        ],
        { DATABASE_URL: pg.url },
      );
      assert.equal(contract.code, 0, contract.stderr);
      const result = JSON.parse(contract.stdout);
      assert.equal(result.subscription.plan, 'enterprise');
      const invoice = result.invoices[0];
      assert.ok(invoice.amount_due_cents > 0, 'the upgrade is prorated');
      const pay = await runCli(['invoice', 'pay', invoice.id], { DATABASE_URL: pg.url });
      assert.equal(pay.code, 0, pay.stderr);
      const rows = await pg.db.query<{ status: string }>(
        'SELECT status FROM invoices WHERE id = $1',
        [invoice.id],
      );
      assert.equal(rows[0]?.status, 'paid');
      const list = JSON.parse(
        (await runCli(['account', 'list', '--json'], { DATABASE_URL: pg.url })).stdout,
      );
      assert.equal(
        list.find((a: { email: string }) => a.email === 'ops@example.com').contract.price_cents,
        250000,
      );
      const billing = await runCli(['billing', 'run', '--json'], { DATABASE_URL: pg.url });
      assert.equal(billing.code, 0, billing.stderr);
      const bad = await runCli(
        ['account', 'contract', '--email', 'ops@example.com', '--price-cents', 'lots'],
        { DATABASE_URL: pg.url },
      );
      assert.equal(bad.code, 2);
      assert.match(bad.stderr, /--price-cents/);
    },
  );

  it(
    'payments import applies a statement once, lists the unmatched and refuses a foreign file',
    { skip },
    async () => {
      const created = await runCli(
        [
          'account',
          'create',
          '--email',
          'payer@example.com',
          '--plan',
          'developer',
          ...BILLED,
          '--json',
        ],
        { DATABASE_URL: pg.url },
      );
      assert.equal(created.code, 0, created.stderr);
      const accountId = JSON.parse(created.stdout).account.id as string;
      const [invoice] = await pg.db.query<{ id: string; number: string; amount_due_cents: string }>(
        "SELECT id, number, amount_due_cents FROM invoices WHERE account_id = $1 AND status = 'open'",
        [accountId],
      );
      assert.ok(invoice !== undefined);
      const file = join(work, 'statement.xml');
      writeFileSync(
        file,
        camt053([
          {
            ref: 'CLI-0001',
            amount: (Number(invoice.amount_due_cents) / 100).toFixed(2),
            rf: creditorReference(String(invoice.number)),
          },
          { ref: 'CLI-0002', amount: '5.00', text: 'who knows' },
        ]),
      );
      const first = await runCli(['payments', 'import', file, '--json'], { DATABASE_URL: pg.url });
      assert.equal(first.code, 0, first.stderr);
      assert.deepEqual(
        JSON.parse(first.stdout).applied.map((a: { outcome: string }) => a.outcome),
        ['paid', 'unmatched'],
      );
      const again = await runCli(['payments', 'import', file], { DATABASE_URL: pg.url });
      assert.equal(again.code, 0, again.stderr);
      assert.match(again.stdout, /camt\.053: 2 credits, 2 imported before; 0 paid/);
      const [row] = await pg.db.query<{ status: string }>(
        'SELECT status FROM invoices WHERE id = $1',
        [invoice.id],
      );
      assert.equal(row?.status, 'paid');
      const unmatched = await runCli(['payments', 'unmatched'], { DATABASE_URL: pg.url });
      assert.match(unmatched.stdout, /CLI-0002 .*5\.00 EUR .*who knows/);
      const foreign = join(work, 'foreign.xml');
      writeFileSync(foreign, '<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.008.001.02"/>');
      const bad = await runCli(['payments', 'import', foreign], { DATABASE_URL: pg.url });
      assert.equal(bad.code, 1);
      assert.match(bad.stderr, /'statement': is not an ISO 20022 camt\.053 statement/);
    },
  );

  it('answers an unknown command with usage and exit 2', async () => {
    const res = await runCli(['frobnicate'], {});
    assert.equal(res.code, 2);
    assert.match(res.stderr, /Usage: salary-api/);
  });
});

describe('salary-api CLI on the embedded database', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'salary-api-embedded-'));
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('migrates, then refuses to open the database while another process holds it', async () => {
    const first = await runCli(['migrate'], { DATA_DIR: dataDir });
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /up to date/);
    // This test process is alive: as the lock's owner it stands for a running server.
    writeFileSync(join(dataDir, 'salary-api.lock'), String(process.pid));
    const locked = await runCli(['data', 'status'], { DATA_DIR: dataDir });
    assert.equal(locked.code, 1);
    assert.match(locked.stderr, new RegExp(`in use by process ${process.pid}`));
    // The server names itself in the lock: the command says so, and what to do.
    writeFileSync(join(dataDir, 'salary-api.lock'), `${process.pid}\nserver\n`);
    const held = await runCli(['account', 'list'], { DATA_DIR: dataDir });
    assert.equal(held.code, 1);
    assert.match(
      held.stderr,
      new RegExp(`held by the running server \\(process ${process.pid}\\)`),
    );
    assert.match(held.stderr, /Stop the server first/);
    // A lock left by a dead process is taken over.
    writeFileSync(join(dataDir, 'salary-api.lock'), '999999');
    const stale = await runCli(['data', 'status'], { DATA_DIR: dataDir });
    assert.equal(stale.code, 0, stale.stderr);
    // Built, the first start unpacks the prepared image (the bundled release loaded); from
    // source, initdb makes an empty database.
    assert.match(stale.stdout, /no release loaded|active release \d{4}\.\d{2}\.\d+/);
  });
});
