// The SLA's moving parts as separate processes on PostgreSQL: two `serve` instances beating,
// both killed with SIGKILL while `salary-api probe` watches and records the failures; the
// operator's incident and maintenance commands, shown on the status page and as webhook events.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { freshPostgres, postgresAvailable, type TestDb } from '../helpers/db.js';
import { call, startInstance, until, type Instance } from '../helpers/instances.js';
import { runCli, spawnCli } from '../helpers/process.js';
import pino from 'pino';
import { findAccountByEmail } from '../../src/accounts/index.js';
import { ManualClock } from '../../src/lib/clock.js';
import { resolvePlans } from '../../src/plans/index.js';
import { createSlaService, monthOf } from '../../src/sla/index.js';

describe('SLA processes on PostgreSQL', async () => {
  const enabled = await postgresAvailable();
  const skip = !enabled && 'no PostgreSQL reachable';
  let pg: TestDb & { url: string };
  const instances: Instance[] = [];
  before(async () => {
    if (enabled) pg = await freshPostgres();
  });
  after(async () => {
    for (const i of instances) await i.kill();
    await pg?.cleanup();
  });

  const probesOf = (prober: string) =>
    pg.db.query<{ ok: number; failed: number; last_error: string | null }>(
      'SELECT sum(ok)::int AS ok, sum(failed)::int AS failed, max(last_error) AS last_error FROM sla_probes WHERE prober = $1',
      [prober],
    );

  async function probeFor(url: string, prober: string, ms: number): Promise<void> {
    const child = spawnCli(['probe', '--url', url, '--name', prober], {
      DATABASE_URL: pg.url,
      SECRET_KEY: 'test-secret-key-0123456789abcdefghijklmnop',
    });
    await until(
      async () =>
        ((await probesOf(prober))[0]?.ok ?? 0) + ((await probesOf(prober))[0]?.failed ?? 0) > 0,
      ms,
      100,
    );
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
  }

  it('instances beat; killed, the probe records failures; alive, successes', { skip }, async () => {
    const env = { DATABASE_URL: pg.url, SLA_HEARTBEAT_SECONDS: '1' };
    const created = await runCli(
      [
        'account',
        'create',
        '--email',
        'quiet@example.com',
        '--plan',
        'business',
        ...['--billing-name', 'Quiet B.V.', '--address', 'Damrak 1', '--country', 'NL'],
        '--json',
      ],
      { DATABASE_URL: pg.url, SECRET_KEY: 'test-secret-key-0123456789abcdefghijklmnop' },
    );
    assert.equal(created.code, 0, created.stderr);
    instances.push(await startInstance(env), await startInstance(env));
    await until(
      async () => {
        const rows = await pg.db.query<{ n: number }>(
          'SELECT count(DISTINCT instance_id)::int AS n FROM sla_heartbeats',
        );
        return rows[0]?.n === 2;
      },
      20_000,
      100,
    );
    const url = instances[0]!.url;
    await probeFor(url, 'probe-alive', 30_000);
    assert.deepEqual(await probesOf('probe-alive'), [{ ok: 1, failed: 0, last_error: null }]);

    for (const i of instances) await i.kill();
    const killedAt = Date.now();
    const beatsAtKill = await pg.db.query<{ n: number }>(
      'SELECT sum(beats)::int AS n FROM sla_heartbeats',
    );
    await probeFor(url, 'probe-down', 30_000);
    const [down] = await probesOf('probe-down');
    assert.equal(down?.ok, 0);
    assert.equal(down?.failed, 1);
    assert.match(down?.last_error ?? '', /\/ready/);
    // Nothing beats any more.
    const beatsLater = await pg.db.query<{ n: number }>(
      'SELECT sum(beats)::int AS n FROM sla_heartbeats',
    );
    assert.deepEqual(beatsLater, beatsAtKill);

    // On a clock 20 minutes after the kill, the intervals since then had no instance alive:
    // down for an account that sent nothing.
    const clock = new ManualClock(killedAt + 20 * 60_000);
    const sla = createSlaService({
      db: pg.db,
      clock,
      plans: resolvePlans({}),
      logger: pino({ level: 'silent' }),
      publish: () => Promise.resolve(0),
    });
    const account = await findAccountByEmail(pg.db, 'quiet@example.com');
    const figures = await sla.monthFor(account!, monthOf(killedAt));
    const gap = figures!.measurement.down;
    assert.ok(gap.length >= 3, `${gap.length} intervals down`);
    assert.ok(gap.every((d) => d.reason === 'no_instance_alive' && d.errorRate === 100));
    assert.ok(
      gap.every((d) => d.start >= killedAt - 5 * 60_000),
      'nothing down before the kill',
    );
  });

  it(
    'incidents and maintenance from the CLI reach the status page and webhooks',
    { skip },
    async () => {
      const env = { DATABASE_URL: pg.url };
      const opened = await runCli(
        [
          'incident',
          'open',
          '--title',
          'Elevated errors',
          '--component',
          'api',
          '--status',
          'investigating',
        ],
        env,
      );
      assert.equal(opened.code, 0, opened.stderr);
      const id = opened.stdout.trim();
      assert.match(id, /^inc_/);
      const updated = await runCli(
        [
          'incident',
          'update',
          id,
          '--status',
          'identified',
          '--message',
          'A bad deploy; rolling back',
        ],
        env,
      );
      assert.equal(updated.code, 0, updated.stderr);
      const wrong = await runCli(
        ['incident', 'update', id, '--status', 'fixed', '--message', 'x'],
        env,
      );
      assert.equal(wrong.code, 1);
      assert.match(wrong.stderr, /unknown status "fixed"/);
      const start = new Date(Date.now() + 6 * 86_400_000).toISOString();
      const end = new Date(Date.now() + 6 * 86_400_000 + 3_600_000).toISOString();
      const scheduled = await runCli(
        ['maintenance', 'schedule', '--start', start, '--end', end, '--title', 'Database upgrade'],
        env,
      );
      assert.equal(scheduled.code, 0, scheduled.stderr);
      assert.match(scheduled.stdout, /excluded from the SLA/);

      const server = await startInstance(env);
      instances.push(server);
      const json = await call(server.url, '/api/v1/status');
      assert.equal(json.status, 200);
      const doc = json.body as {
        status: string;
        components: { id: string; status: string }[];
        uptime: { daily: unknown[] };
        incidents: { id: string; status: string; updates: { message: string }[] }[];
        maintenance: { title: string; excluded_from_sla: boolean }[];
      };
      assert.equal(doc.status, 'degraded');
      assert.equal(doc.components.find((c) => c.id === 'api')?.status, 'degraded');
      assert.equal(doc.uptime.daily.length, 90);
      assert.equal(doc.incidents[0]?.id, id);
      assert.equal(doc.incidents[0]?.status, 'identified');
      assert.equal(doc.incidents[0]?.updates[0]?.message, 'A bad deploy; rolling back');
      assert.deepEqual(
        doc.maintenance.map((m) => [m.title, m.excluded_from_sla]),
        [['Database upgrade', true]],
      );
      const page = await fetch(`${server.url}/status`);
      assert.equal(page.status, 200);
      assert.match(page.headers.get('content-type') ?? '', /text\/html/);
      const html = await page.text();
      assert.equal((html.match(/<li class="bar /g) ?? []).length, 90);
      assert.match(html, /class="incident open">\s*<h3>Elevated errors<\/h3>/);
      assert.match(html, /A bad deploy; rolling back/);

      const resolved = await runCli(['incident', 'resolve', id], env);
      assert.equal(resolved.code, 0, resolved.stderr);
      const events = await pg.db.query<{ type: string; n: number }>(
        "SELECT type, count(*)::int AS n FROM events WHERE type LIKE 'status.%' GROUP BY type ORDER BY type",
      );
      assert.deepEqual(events, [
        { type: 'status.incident', n: 3 },
        { type: 'status.maintenance', n: 1 },
      ]);
    },
  );
});
