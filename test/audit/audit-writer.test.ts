import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAuditWriter, verifyAuditChain, type AuditEntry } from '../../src/audit/index.js';
import type { Db } from '../../src/store/index.js';
import { clonePglite, type TestDb } from '../helpers/db.js';

const entry = (n: number): AuditEntry => ({
  accountId: null,
  actor: 'oauth_client:ocl_test',
  action: 'oauth.token_issue',
  data: { jti: `jti-${n}` },
  ip: '127.0.0.1',
  at: new Date(Date.UTC(2026, 10, 23, 12, 0, 0, n)),
});

/** The database, counting transactions and failing the ones `failing` says. */
function counting(db: Db, failing: (n: number) => boolean = () => false) {
  const counter = { transactions: 0 };
  const wrapped: Pick<Db, 'transaction'> = {
    transaction: (fn) => {
      counter.transactions++;
      if (failing(counter.transactions)) return Promise.reject(new Error('connection lost'));
      return db.transaction(fn);
    },
  };
  return { wrapped, counter };
}

async function jtis(db: Db): Promise<string[]> {
  const rows = await db.query<{ jti: string }>(
    "SELECT data->>'jti' AS jti FROM audit_log WHERE actor = 'oauth_client:ocl_test' ORDER BY id",
  );
  return rows.map((r) => r.jti);
}

describe('audit writer (group commit of issued tokens)', () => {
  let t: TestDb;
  before(async () => {
    t = await clonePglite();
  });
  after(() => t.cleanup());

  it('writes concurrent entries in fewer transactions, in arrival order, on an intact chain', async () => {
    const { wrapped, counter } = counting(t.db);
    const writer = createAuditWriter(wrapped);
    await Promise.all(Array.from({ length: 40 }, (_, n) => writer.record(entry(n))));
    assert.deepEqual(
      await jtis(t.db),
      Array.from({ length: 40 }, (_, n) => `jti-${n}`),
    );
    assert.equal(await verifyAuditChain(t.db), null);
    // Recorded in the same turn of the event loop: one transaction for all 40.
    assert.equal(counter.transactions, 1);
    await writer.record(entry(40));
    assert.equal(counter.transactions, 2);
    assert.equal(await verifyAuditChain(t.db), null);
  });

  it('a failed transaction rejects every entry in it and writes none of them; later ones are written', async () => {
    await t.db.query("DELETE FROM audit_log WHERE actor = 'oauth_client:ocl_test'");
    const { wrapped } = counting(t.db, (n) => n === 1);
    const writer = createAuditWriter(wrapped);
    const outcomes = await Promise.allSettled(
      Array.from({ length: 5 }, (_, n) => writer.record(entry(n))),
    );
    assert.deepEqual(
      outcomes.map((o) => o.status),
      ['rejected', 'rejected', 'rejected', 'rejected', 'rejected'],
    );
    await writer.record(entry(9));
    assert.deepEqual(await jtis(t.db), ['jti-9']);
  });
});
