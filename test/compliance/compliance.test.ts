import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createDocumentStore, type DocumentRow } from '../../src/compliance/index.js';
import type { PlanId } from '../../src/plans/index.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { accountOnPlan } from '../helpers/accounts.js';
import { pageTexts, samplePdf } from '../helpers/pdf.js';

type Account = Awaited<ReturnType<typeof accountOnPlan>>;

describe('compliance documents and access review', () => {
  let t: TestApp;
  let store: ReturnType<typeof createDocumentStore>;
  let ent: Account;
  let other: Account;
  let soc2v1: DocumentRow;
  let soc2v2: DocumentRow;
  let pentest: DocumentRow;
  let privateDoc: DocumentRow;

  before(async () => {
    t = await buildTestApp({ now: '2026-11-22T10:15:00Z' });
    store = createDocumentStore({ db: t.db, clock: t.clock });
    ent = await accountOnPlan(t, 'enterprise');
    other = await accountOnPlan(t, 'enterprise');
    soc2v1 = await store.add({
      content: await samplePdf(2, 'SOC2 2025'),
      fileName: '/tmp/soc2-2025.pdf',
      title: 'SOC 2 Type II report',
      periodStart: '2024-10-01',
      periodEnd: '2025-09-30',
    });
    soc2v2 = await store.add({
      content: await samplePdf(3, 'SOC2 2026'),
      fileName: 'soc2-2026.pdf',
      title: 'SOC 2 Type II report',
      periodStart: '2025-10-01',
      periodEnd: '2026-09-30',
    });
    pentest = await store.add({
      content: await samplePdf(1, 'Pentest'),
      fileName: 'pentest.pdf',
      title: 'Penetration test summary',
      series: 'pentest',
      periodStart: '2026-06-01',
      periodEnd: '2026-06-30',
    });
    privateDoc = await store.add({
      content: await samplePdf(1, 'Bridge'),
      fileName: 'bridge.pdf',
      title: 'Bridge letter',
      periodStart: '2026-10-01',
      periodEnd: '2026-11-30',
      accountEmail: ent.email,
    });
  });
  after(() => t.close());

  const get = (url: string, token?: string | null, headers: Record<string, string> = {}) =>
    t.app.inject({
      method: 'GET',
      url,
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
    });
  const auditActions = async (accountId: string, action: string) =>
    t.db.query<{ id: number; data: Record<string, unknown> | string }>(
      'SELECT id, data FROM audit_log WHERE account_id = $1 AND action = $2 ORDER BY id',
      [accountId, action],
    );

  it('numbers versions per series and keeps series apart', () => {
    assert.equal(soc2v1.series, 'soc-2-type-ii-report');
    assert.deepEqual([soc2v1.version, soc2v2.version, pentest.version], [1, 2, 1]);
    assert.equal(soc2v2.pageCount, 3);
    assert.equal(soc2v1.fileName, 'soc2-2025.pdf', 'only the base name is kept');
  });

  it('refuses what it could not serve: not a PDF, bad dates, unknown account', async () => {
    const base = {
      content: await samplePdf(1),
      fileName: 'x.pdf',
      title: 'X',
      periodStart: '2026-01-01',
      periodEnd: '2026-12-31',
    };
    await assert.rejects(
      store.add({ ...base, content: Buffer.from('hello, not a pdf') }),
      /not a PDF/,
    );
    await assert.rejects(
      store.add({ ...base, content: Buffer.from('%PDF-1.7\ngarbage') }),
      /not a readable PDF/,
    );
    await assert.rejects(store.add({ ...base, periodStart: '2026-02-30' }), /period-start/);
    await assert.rejects(store.add({ ...base, periodEnd: '2025-12-31' }), /before period-start/);
    await assert.rejects(store.add({ ...base, series: 'Not A Slug' }), /series/);
    await assert.rejects(store.add({ ...base, accountEmail: 'nobody@example.com' }), /no account/);
  });

  const PLANS: [PlanId, number][] = [
    ['developer', 403],
    ['business', 403],
    ['enterprise', 200],
  ];
  for (const [plan, status] of PLANS) {
    it(`plan matrix: ${plan} → ${status} on every compliance endpoint`, async () => {
      const a = plan === 'enterprise' ? ent : await accountOnPlan(t, plan);
      for (const url of [
        '/api/v1/compliance/documents',
        `/api/v1/compliance/documents/${pentest.id}`,
        '/api/v1/compliance/access-review',
      ]) {
        for (const token of [a.apiKey, a.session]) {
          const res = await get(url, token);
          assert.equal(res.statusCode, status, `${plan} ${url}: ${res.body.slice(0, 200)}`);
          if (status === 403) {
            assert.equal(res.json().code, 'FEATURE_NOT_IN_PLAN');
            assert.equal(res.json().required_plan, 'enterprise');
          }
        }
      }
    });
  }

  it('a Free account and an anonymous caller are refused (403, 401)', async () => {
    const free = await accountOnPlan(t, 'free');
    assert.equal((await get('/api/v1/compliance/documents', free.session)).statusCode, 403);
    assert.equal((await get('/api/v1/compliance/documents')).statusCode, 401);
    assert.equal((await get(`/api/v1/compliance/documents/${pentest.id}`)).statusCode, 401);
  });

  it('lists every version in force, the newest of each series current, its own documents only', async () => {
    const mine = (await get('/api/v1/compliance/documents', ent.apiKey)).json().data as {
      id: string;
      current: boolean;
      version: number;
    }[];
    const byId = new Map(mine.map((d) => [d.id, d]));
    assert.equal(byId.get(soc2v1.id)?.current, false);
    assert.equal(byId.get(soc2v2.id)?.current, true);
    assert.equal(byId.get(pentest.id)?.current, true);
    assert.ok(byId.has(privateDoc.id), 'a document for this account is listed to it');
    const theirs = (await get('/api/v1/compliance/documents', other.apiKey)).json().data as {
      id: string;
    }[];
    assert.ok(!theirs.some((d) => d.id === privateDoc.id), 'not listed to another account');
  });

  it("another account's document, and an unknown id, are 404", async () => {
    const res = await get(`/api/v1/compliance/documents/${privateDoc.id}`, other.apiKey);
    assert.equal(res.statusCode, 404);
    assert.equal(res.json().code, 'NOT_FOUND');
    assert.equal((await get('/api/v1/compliance/documents/cdoc_nope', ent.apiKey)).statusCode, 404);
    // Not the shape of a document id (a NUL byte the database would reject): 400 naming it.
    for (const id of ['%00', 'a%00b', 'cdoc_%00']) {
      const bad = await get(`/api/v1/compliance/documents/${id}`, ent.apiKey);
      assert.equal(bad.statusCode, 400, id);
      assert.match(bad.json().detail as string, /id/);
    }
    assert.equal(
      (await get(`/api/v1/compliance/documents/${privateDoc.id}`, ent.apiKey)).statusCode,
      200,
    );
  });

  it('serves a copy stamped on every page for the account, each download its own copy, audited', async () => {
    const before = await auditActions(ent.accountId, 'compliance.document_downloaded');
    const first = await get(`/api/v1/compliance/documents/${soc2v2.id}`, ent.apiKey);
    const second = await get(`/api/v1/compliance/documents/${soc2v2.id}`, ent.session);
    for (const res of [first, second]) {
      assert.equal(res.statusCode, 200, res.body.slice(0, 300));
      assert.equal(res.headers['content-type'], 'application/pdf');
      assert.equal(res.headers['cache-control'], 'no-store');
      const copy = res.headers['x-copy-id'] as string;
      assert.match(copy, /^copy_/);
      assert.equal(
        res.headers['content-disposition'],
        `attachment; filename="soc-2-type-ii-report-v2-${copy}.pdf"`,
      );
      const texts = await pageTexts(res.rawPayload);
      assert.equal(texts.length, 3);
      const stamp = `Confidential — provided to ${ent.email} (${ent.accountId}) on 2026-11-22 10:15 UTC, copy ${copy}`;
      texts.forEach((text, i) => {
        assert.ok(text.includes(`SOC2 2026 page ${i + 1}`), 'the original content is kept');
        assert.ok(
          text.replaceAll('\n', ' ').includes(stamp),
          `page ${i + 1} carries the stamp: ${text}`,
        );
      });
    }
    assert.notEqual(first.headers['x-copy-id'], second.headers['x-copy-id']);
    const entries = (await auditActions(ent.accountId, 'compliance.document_downloaded')).slice(
      before.length,
    );
    assert.equal(entries.length, 2, 'one audit entry per download');
    const copies = entries.map((e) => (typeof e.data === 'string' ? JSON.parse(e.data) : e.data));
    assert.deepEqual(
      copies.map((d: Record<string, unknown>) => d.download_id),
      [first.headers['x-copy-id'], second.headers['x-copy-id']],
    );
    assert.equal(copies[0].document_id, soc2v2.id);
    assert.equal(copies[0].original_sha256, soc2v2.sha256);
  });

  it("a licensed account's copies name its licensee", async () => {
    await t.db.query(
      `INSERT INTO account_licenses (account_id, licensee, attribution, white_label, created_at, updated_at)
       VALUES ($1, 'Ørsted Holding A/S', 'Data: Ørsted', true, $2, $2)`,
      [other.accountId, new Date(t.clock.now()).toISOString()],
    );
    const res = await get(`/api/v1/compliance/documents/${pentest.id}`, other.apiKey);
    assert.equal(res.statusCode, 200, res.body.slice(0, 300));
    const [text] = await pageTexts(res.rawPayload);
    assert.ok(
      text!
        .replaceAll('\n', ' ')
        .includes(`provided to Ørsted Holding A/S (${other.accountId}) on`),
      text,
    );
    assert.ok(!text!.includes(other.email), 'the licensee, not the e-mail address');
  });

  it('never serves the original bytes', async () => {
    const original = await samplePdf(1, 'Pentest');
    const res = await get(`/api/v1/compliance/documents/${pentest.id}`, ent.apiKey);
    assert.notDeepEqual(new Uint8Array(res.rawPayload), original);
    const [text] = await pageTexts(res.rawPayload);
    assert.match(text!, /Confidential — provided to/);
  });

  it('a withdrawn version is 410 naming the current one, and leaves the list', async () => {
    await store.withdraw(soc2v1.id, 'superseded by the 2026 report');
    const res = await get(`/api/v1/compliance/documents/${soc2v1.id}`, ent.apiKey);
    assert.equal(res.statusCode, 410);
    assert.equal(res.json().code, 'DOCUMENT_WITHDRAWN');
    assert.equal(res.json().current_version_id, soc2v2.id);
    const list = (await get('/api/v1/compliance/documents', ent.apiKey)).json().data as {
      id: string;
    }[];
    assert.ok(!list.some((d) => d.id === soc2v1.id));
    await assert.rejects(store.withdraw(soc2v1.id, undefined), /already withdrawn/);
    const withdrawn = await t.db.query(
      "SELECT 1 FROM audit_log WHERE action = 'compliance.document_withdrawn' AND data->>'document_id' = $1",
      [soc2v1.id],
    );
    assert.equal(withdrawn.length, 1);
  });

  it('a key without compliance:read is refused (403 SCOPE_MISSING)', async () => {
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/v1/keys',
      headers: { authorization: `Bearer ${ent.session}` },
      payload: { name: 'reader', scopes: ['salary:read', 'account:read'] },
    });
    assert.equal(created.statusCode, 201, created.body);
    const key = created.json().key as string;
    const res = await get('/api/v1/compliance/documents', key);
    assert.equal(res.statusCode, 403);
    assert.equal(res.json().code, 'SCOPE_MISSING');
  });
});
