// An instance that counts quotas in its own memory (no REDIS_URL) must be its database's only
// one: its heartbeat notices another instance beating since it started and says so, once.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ManualClock } from '../../src/lib/clock.js';
import { Heartbeat } from '../../src/sla/heartbeat.js';
import { clonePglite, type TestDb } from '../helpers/db.js';
import { capturedLogger } from '../helpers/log-lines.js';

const WARNING = /another instance serves this database, and REDIS_URL is not set/;

describe('an instance with quotas in its own memory, beside another on one database', () => {
  let t: TestDb;
  before(async () => {
    t = await clonePglite();
  });
  after(() => t.cleanup());

  function instance(id: string, clock: ManualClock, countersInProcess: boolean) {
    const { logger, lines } = capturedLogger();
    const heartbeat = new Heartbeat({ db: t.db, clock, logger, instanceId: id, countersInProcess });
    const errors = () => lines.filter((l) => WARNING.test(String(l.msg)));
    return { heartbeat, errors };
  }

  it('says so once when another instance beats after it started', async () => {
    const clock = new ManualClock(Date.parse('2026-12-01T10:00:00Z'));
    const a = instance('a', clock, true);
    await a.heartbeat.beat();
    assert.equal(a.errors().length, 0, 'alone so far');
    clock.advance(30_000);
    const b = instance('b', clock, true);
    await b.heartbeat.beat();
    // a's last beat came before b started: a restart looks the same, so b waits for the next.
    assert.equal(b.errors().length, 0);
    clock.advance(30_000);
    await a.heartbeat.beat();
    await a.heartbeat.beat();
    assert.equal(a.errors().length, 1, 'a sees b, and says it once');
    assert.equal(a.errors()[0]?.otherInstance, 'b');
    await b.heartbeat.beat();
    assert.equal(b.errors().length, 1, 'b sees a beating after b started');
    assert.equal(b.errors()[0]?.otherInstance, 'a');
  });

  it('says nothing of an instance that stopped before it started (a restart)', async () => {
    const clock = new ManualClock(Date.parse('2026-12-02T10:00:00Z'));
    const old = instance('old', clock, true);
    await old.heartbeat.beat();
    clock.advance(1_000);
    const restarted = instance('new', clock, true);
    await restarted.heartbeat.beat();
    clock.advance(60_000);
    await restarted.heartbeat.beat();
    assert.equal(restarted.errors().length, 0);
  });

  it('says nothing when the counters are shared (Redis)', async () => {
    const clock = new ManualClock(Date.parse('2026-12-03T10:00:00Z'));
    const a = instance('shared-a', clock, false);
    const b = instance('shared-b', clock, false);
    await a.heartbeat.beat();
    await b.heartbeat.beat();
    await a.heartbeat.beat();
    assert.equal(a.errors().length + b.errors().length, 0);
  });
});
