import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createActionTokens } from '../../src/lib/action-tokens.js';
import { ManualClock } from '../../src/lib/clock.js';
import {
  createNoticeWorker,
  enqueueNotice,
  listNotices,
  smtpTransport,
} from '../../src/notices/index.js';
import { freshPostgres, postgresAvailable, type TestDb } from '../helpers/db.js';
import { startSmtp, type TestSmtp } from '../helpers/smtp.js';

const silent = { info() {}, warn() {}, error() {}, debug() {} };
const available = await postgresAvailable();

describe('notices claimed by two instances on one PostgreSQL', { skip: !available }, () => {
  let pg: TestDb;
  let smtp: TestSmtp;

  before(async () => {
    pg = await freshPostgres();
    smtp = await startSmtp();
  });
  after(async () => {
    await smtp.close();
    await pg.cleanup();
  });

  it('sends each notice exactly once however the two workers interleave', async () => {
    const clock = new ManualClock('2026-11-22T10:00:00Z');
    const count = 40;
    await pg.db.transaction(async (tx) => {
      for (let i = 0; i < count; i++) {
        await enqueueNotice(
          tx,
          {
            accountId: null,
            kind: 'support.request',
            data: { subject: `request ${i}`, priority: 'P3', plan_name: 'Developer' },
            recipients: ['support@salary.example'],
          },
          new Date(clock.now()),
        );
      }
    });
    const workers = [0, 1].map(() =>
      createNoticeWorker({
        db: pg.db,
        clock,
        transport: smtpTransport(smtp.url),
        from: 'notices@salary.example',
        baseUrl: 'https://api.salary.example',
        logger: silent,
        actionTokens: createActionTokens('a test key of at least thirty-two characters'),
      }),
    );
    const attempted = await Promise.all(workers.map((w) => w.runOnce()));
    assert.equal(attempted[0]! + attempted[1]!, count);
    const ids = smtp.received.map((m) => /^Message-ID: (.*)$/im.exec(m.raw)?.[1]);
    assert.equal(ids.length, count);
    assert.equal(new Set(ids).size, count);
    const subjects = new Set(smtp.received.map((m) => /request \d+/.exec(m.raw)?.[0]));
    assert.equal(subjects.size, count);
    assert.ok((await listNotices(pg.db)).every((n) => n.status === 'sent' && n.attempts === 1));
  });
});
