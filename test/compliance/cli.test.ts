import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { buildTestApp } from '../helpers/app.js';
import { accountOnPlan } from '../helpers/accounts.js';
import { freshPostgres, postgresAvailable, type TestDb } from '../helpers/db.js';
import { pageTexts, samplePdf } from '../helpers/pdf.js';
import { runCli } from '../helpers/process.js';

const work = mkdtempSync(join(tmpdir(), 'salary-api-compliance-'));

describe('salary-api compliance (CLI) on PostgreSQL', async () => {
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
  const cli = (args: string[]) => runCli(['compliance', ...args], { DATABASE_URL: pg.url });

  it(
    'adds versions, lists them, withdraws one; the bytes are kept as added',
    { skip },
    async () => {
      const file = join(work, 'soc2.pdf');
      const bytes = await samplePdf(2);
      writeFileSync(file, bytes);
      const args = [
        '--title',
        'SOC 2 Type II',
        '--period-start',
        '2025-01-01',
        '--period-end',
        '2025-12-31',
      ];
      const first = await cli(['add', file, ...args, '--json']);
      assert.equal(first.code, 0, first.stderr);
      const second = await cli(['add', file, ...args, '--series', 'soc-2-type-ii', '--json']);
      assert.equal(second.code, 0, second.stderr);
      const [a, b] = [JSON.parse(first.stdout), JSON.parse(second.stdout)];
      assert.deepEqual(
        [a.series, a.version, b.series, b.version],
        ['soc-2-type-ii', 1, 'soc-2-type-ii', 2],
      );
      assert.equal(a.sha256, createHash('sha256').update(bytes).digest('hex'));
      const stored = await pg.db.query<{ content: Uint8Array }>(
        'SELECT content FROM compliance_documents WHERE id = $1',
        [a.id],
      );
      assert.deepEqual(new Uint8Array(stored[0]!.content), bytes);

      const withdrawn = await cli(['withdraw', a.id, '--reason', 'superseded']);
      assert.equal(withdrawn.code, 0, withdrawn.stderr);
      assert.match(withdrawn.stdout, /withdrew/);
      const list = JSON.parse((await cli(['list', '--json'])).stdout) as {
        id: string;
        withdrawn_at: string | null;
        withdrawn_reason: string | null;
      }[];
      assert.deepEqual(
        list.map((d) => [d.id, d.withdrawn_at !== null, d.withdrawn_reason]),
        [
          [b.id, false, null],
          [a.id, true, 'superseded'],
        ],
      );
      const audit = await pg.db.query<{ action: string }>(
        "SELECT action FROM audit_log WHERE action LIKE 'compliance.%' ORDER BY id",
      );
      assert.deepEqual(
        audit.map((r) => r.action),
        ['compliance.document_added', 'compliance.document_added', 'compliance.document_withdrawn'],
      );
    },
  );

  it(
    'refuses a file that is not a PDF and missing options, exit codes 1 and 2',
    { skip },
    async () => {
      const file = join(work, 'notes.txt');
      writeFileSync(file, 'not a pdf');
      const bad = await cli([
        'add',
        file,
        '--title',
        'X',
        '--period-start',
        '2025-01-01',
        '--period-end',
        '2025-02-01',
      ]);
      assert.equal(bad.code, 1);
      assert.match(bad.stderr, /FILE: not a PDF/);
      const missing = await cli(['add', file, '--title', 'X']);
      assert.equal(missing.code, 2);
      assert.match(missing.stderr, /--period-start/);
      const unknown = await cli(['withdraw', 'cdoc_nope']);
      assert.equal(unknown.code, 1);
      assert.match(unknown.stderr, /no compliance document cdoc_nope/);
    },
  );

  it(
    'the API on PostgreSQL serves what the CLI added, stamped, and verifies the chain',
    { skip },
    async () => {
      const t = await buildTestApp({ db: pg.db });
      try {
        const ent = await accountOnPlan(t, 'enterprise');
        const file = join(work, 'pentest.pdf');
        writeFileSync(file, await samplePdf(2, 'Pentest'));
        const added = await cli([
          'add',
          file,
          '--title',
          'Penetration test summary',
          '--period-start',
          '2026-06-01',
          '--period-end',
          '2026-06-30',
          '--email',
          ent.email,
          '--json',
        ]);
        assert.equal(added.code, 0, added.stderr);
        const id = (JSON.parse(added.stdout) as { id: string }).id;
        const auth = { authorization: `Bearer ${ent.apiKey}` };
        const res = await t.app.inject({
          url: `/api/v1/compliance/documents/${id}`,
          headers: auth,
        });
        assert.equal(res.statusCode, 200, res.body.slice(0, 300));
        const copy = res.headers['x-copy-id'] as string;
        for (const text of await pageTexts(res.rawPayload))
          assert.ok(
            text.replaceAll('\n', ' ').includes(`(${ent.accountId}) on `) && text.includes(copy),
          );
        t.clock.advance(1000); // the period ends now, exclusive: the download is a second ago
        const review = await t.app.inject({
          url: '/api/v1/compliance/access-review',
          headers: auth,
        });
        assert.equal(review.statusCode, 200, review.body);
        assert.equal(review.json().audit_log.verification.valid, true);
        assert.equal(review.json().audit_log.actions['compliance.document_downloaded'], 1);
      } finally {
        await t.close();
      }
    },
  );
});
