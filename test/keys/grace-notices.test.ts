import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { queueGraceNotices } from '../../src/keys/grace-notices.js';
import { clonePglite, type TestDb } from '../helpers/db.js';
import { operatorServices, paidAccount, type Services } from '../redis/fixture.js';

const HOUR_MS = 3_600_000;

describe('keys.notify_grace: the notice before a rotated key stops working', () => {
  let t: TestDb;
  let s: Services;

  before(async () => {
    t = await clonePglite();
    s = await operatorServices(t.db, {});
  });
  after(async () => {
    await t?.cleanup();
  });

  /** A key rotated at `rotatedAt`, expiring `graceMs` later, last used at `usedAt`. */
  async function rotatedKey(rotatedAt: number, graceMs: number, usedAt: number | null) {
    const { accountId, keyId } = await paidAccount(s, 'business');
    await t.db.query(
      `UPDATE api_keys SET replaced_by = $2, expires_at = $3, last_used_at = $4 WHERE id = $1`,
      [
        keyId,
        'key_successor',
        new Date(rotatedAt + graceMs).toISOString(),
        usedAt === null ? null : new Date(usedAt).toISOString(),
      ],
    );
    return { accountId, keyId };
  }

  const noticesOf = async (accountId: string) =>
    (
      await t.db.query<{ kind: string; data: unknown }>(
        `SELECT kind, data FROM notices WHERE account_id = $1 AND kind = 'keys.rotation_grace_ending'`,
        [accountId],
      )
    ).length;

  it('queues one notice for a key still used whose grace ends within four hours, once', async () => {
    const now = Date.parse('2026-11-28T12:00:00Z');
    // Rotated 21 hours ago with a 24-hour grace: 3 hours left; used an hour ago.
    const used = await rotatedKey(now - 21 * HOUR_MS, 24 * HOUR_MS, now - HOUR_MS);
    // The same, never used since its rotation: no client needs the warning.
    const idle = await rotatedKey(now - 21 * HOUR_MS, 24 * HOUR_MS, now - 30 * HOUR_MS);
    // Still 10 hours of grace: too early.
    const early = await rotatedKey(now - 14 * HOUR_MS, 24 * HOUR_MS, now - HOUR_MS);

    const queued = await queueGraceNotices(t.db, new Date(now));
    assert.ok(queued >= 1);
    assert.equal(await noticesOf(used.accountId), 1);
    assert.equal(await noticesOf(idle.accountId), 0);
    assert.equal(await noticesOf(early.accountId), 0);

    // Run again (another instance, or the next tick): nothing is queued twice.
    assert.equal(await queueGraceNotices(t.db, new Date(now + 60_000)), 0);
    assert.equal(await noticesOf(used.accountId), 1);
  });
});
