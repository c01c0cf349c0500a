import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { recordAudit, verifyAuditPeriod } from '../../src/audit/index.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { accountOnPlan } from '../helpers/accounts.js';
import { clonePglite, type TestDb } from '../helpers/db.js';

/**
 * A period of the audit log is [from, to): verification walks the entry written at `from` and
 * the last one before `to`, from the entry just before the period (the anchor), and nothing
 * outside; the export holds the same entries.
 */

const HOUR = 3_600_000;

interface Written {
  id: number;
  at: Date;
}

describe('verifyAuditPeriod: both ends of a period', () => {
  let t: TestDb;
  before(async () => {
    t = await clonePglite();
  });
  after(() => t.cleanup());

  /**
   * Five entries on `day` (ISO date): at 10:00, at 11:00 (the period's start), a millisecond
   * before 13:00 (the period's last), at 13:00 (its end, outside) and at 14:00.
   */
  async function fiveEntries(day: string): Promise<{
    entries: Written[];
    period: { from: Date; to: Date };
  }> {
    const base = Date.parse(`${day}T10:00:00Z`);
    const times = [base, base + HOUR, base + 3 * HOUR - 1, base + 3 * HOUR, base + 4 * HOUR];
    const entries: Written[] = [];
    for (const [n, ms] of times.entries()) {
      const at = new Date(ms);
      await t.db.transaction((tx) =>
        recordAudit(tx, {
          accountId: null,
          actor: 'system',
          action: 'test.entry',
          data: { n, day },
          ip: null,
          at,
        }),
      );
      const rows = await t.db.query<{ id: number | string }>('SELECT max(id) AS id FROM audit_log');
      entries.push({ id: Number(rows[0]!.id), at });
    }
    return { entries, period: { from: entries[1]!.at, to: entries[3]!.at } };
  }

  const tamper = (id: number) =>
    t.db.query(`UPDATE audit_log SET data = '{"n":"edited"}' WHERE id = $1`, [id]);

  it('walks the entry written at from and the last before to, from the entry before', async () => {
    const { entries, period } = await fiveEntries('2026-03-02');
    const v = await verifyAuditPeriod(t.db, period);
    assert.equal(v.valid, true);
    assert.equal(v.entries_checked, 2);
    assert.equal(v.anchor?.id, entries[0]!.id, 'the anchor: the entry just before from');
    assert.equal(v.head?.id, entries[2]!.id, 'the head: the last entry before to');
    assert.equal(v.from, period.from.toISOString());
    assert.equal(v.to, period.to.toISOString());
  });

  it('finds an edited last entry of the period', async () => {
    const { entries, period } = await fiveEntries('2026-03-03');
    await tamper(entries[2]!.id);
    const v = await verifyAuditPeriod(t.db, period);
    assert.equal(v.valid, false);
    assert.deepEqual(v.first_broken, {
      id: entries[2]!.id,
      created_at: entries[2]!.at.toISOString(),
      reason: 'hash',
    });
  });

  it('finds an edited first entry of the period', async () => {
    const { entries, period } = await fiveEntries('2026-03-04');
    await tamper(entries[1]!.id);
    const v = await verifyAuditPeriod(t.db, period);
    assert.equal(v.valid, false);
    assert.equal(v.first_broken?.id, entries[1]!.id);
    assert.equal(v.first_broken.reason, 'hash');
  });

  it('finds the first entry of the period deleted: the next one no longer links to the anchor', async () => {
    const { entries, period } = await fiveEntries('2026-03-05');
    await t.db.query('DELETE FROM audit_log WHERE id = $1', [entries[1]!.id]);
    const v = await verifyAuditPeriod(t.db, period);
    assert.equal(v.valid, false);
    assert.deepEqual(
      { id: v.first_broken?.id, reason: v.first_broken?.reason },
      { id: entries[2]!.id, reason: 'link' },
    );
    assert.equal(v.anchor?.id, entries[0]!.id);
  });

  it('walks nothing outside: an edited entry at to, or before from, leaves the period valid', async () => {
    const { entries, period } = await fiveEntries('2026-03-06');
    await tamper(entries[3]!.id);
    await tamper(entries[0]!.id);
    const v = await verifyAuditPeriod(t.db, period);
    assert.equal(v.valid, true, JSON.stringify(v.first_broken));
    assert.equal(v.entries_checked, 2);
    // The entry at `to` is the first of the next period, where it is found.
    const next = await verifyAuditPeriod(t.db, { from: period.to, to: entries[4]!.at });
    assert.equal(next.first_broken?.id, entries[3]!.id);
    assert.equal(next.anchor?.id, entries[2]!.id);
  });

  it('an open end reaches the start or the end of the chain', async () => {
    const { entries } = await fiveEntries('2026-03-07');
    const fromOnly = await verifyAuditPeriod(t.db, { from: entries[4]!.at });
    assert.equal(fromOnly.head?.id, entries[4]!.id);
    assert.equal(fromOnly.anchor?.id, entries[3]!.id);
    const toOnly = await verifyAuditPeriod(t.db, { to: entries[1]!.at });
    assert.equal(toOnly.anchor, null, 'from the beginning of the chain');
    assert.equal(toOnly.head?.id, entries[0]!.id);
  });

  it('a period with no entry is valid and walks nothing', async () => {
    const v = await verifyAuditPeriod(t.db, {
      from: new Date('2020-01-01T00:00:00Z'),
      to: new Date('2020-01-02T00:00:00Z'),
    });
    assert.deepEqual(
      { valid: v.valid, checked: v.entries_checked, head: v.head },
      { valid: true, checked: 0, head: null },
    );
  });
});

describe('GET /api/v1/account/audit-log over a period: both ends', () => {
  let t: TestApp;
  let session: string;
  const FROM = '2026-11-22T11:00:00.000Z';
  const TO = '2026-11-22T12:00:00.000Z';
  const keyEntries: Record<string, number> = {};

  before(async () => {
    t = await buildTestApp({ now: '2026-11-22T10:15:00Z' });
    ({ session } = await accountOnPlan(t, 'enterprise'));
    for (const [name, at] of [
      ['atFrom', FROM],
      ['lastBeforeTo', '2026-11-22T11:59:59.999Z'],
      ['atTo', TO],
    ] as const) {
      t.clock.set(at);
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/keys',
        headers: { authorization: `Bearer ${session}` },
        payload: { name },
      });
      assert.equal(res.statusCode, 201, res.body);
      const rows = await t.db.query<{ id: number | string }>(
        "SELECT id FROM audit_log WHERE action = 'keys.create' AND data->>'key_id' = $1",
        [res.json<{ id: string }>().id],
      );
      keyEntries[name] = Number(rows[0]!.id);
    }
    t.clock.set('2026-11-22T13:00:00Z');
  });
  after(() => t.close());

  const get = (query: string) =>
    t.app.inject({
      method: 'GET',
      url: `/api/v1/account/audit-log?from=${FROM}&to=${TO}&${query}`,
      headers: { authorization: `Bearer ${session}` },
    });

  it('exports and verifies the entry at from and the last before to, not the one at to', async () => {
    const json = await get('verify=true');
    assert.equal(json.statusCode, 200, json.body);
    const body = json.json<{
      data: { id: number }[];
      verification: { valid: boolean; entries_checked: number; head: { id: number } };
    }>();
    assert.deepEqual(
      body.data.map((e) => e.id),
      [keyEntries.lastBeforeTo, keyEntries.atFrom],
    );
    assert.equal(body.verification.valid, true);
    assert.equal(body.verification.entries_checked, 2);
    assert.equal(body.verification.head.id, keyEntries.lastBeforeTo);
    const csv = await get('format=csv&verify=true');
    const ids = csv.body
      .trim()
      .split('\r\n')
      .slice(1)
      .map((line) => Number(line.split(',')[0]));
    assert.deepEqual(ids, [keyEntries.atFrom, keyEntries.lastBeforeTo]);
    assert.equal(csv.headers['audit-chain-valid'], 'true');
  });

  it('verify=true names an edited last entry of the period', async () => {
    const id = keyEntries.lastBeforeTo!;
    await t.db.query(`UPDATE audit_log SET data = '{"key_id":"someone else"}' WHERE id = $1`, [id]);
    const json = await get('verify=true');
    const v = json.json<{ verification: { valid: boolean; first_broken: { id: number } } }>()
      .verification;
    assert.equal(v.valid, false);
    assert.equal(v.first_broken.id, id);
    const csv = await get('format=csv&verify=true');
    assert.equal(csv.headers['audit-chain-valid'], 'false');
    assert.equal(csv.headers['audit-chain-first-broken'], String(id));
  });
});
