import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { AccessReviewSchema } from '../../src/compliance/review-schema.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { accountOnPlan } from '../helpers/accounts.js';
import { pageTexts } from '../helpers/pdf.js';

type Account = Awaited<ReturnType<typeof accountOnPlan>>;

describe('access review and audit-log export and verification', () => {
  let t: TestApp;
  let ent: Account;
  let rotatedFrom = '';
  let rotatedTo = '';

  before(async () => {
    t = await buildTestApp({ now: '2026-11-22T10:15:00Z' });
    ent = await accountOnPlan(t, 'enterprise');
    const keys = (await get('/api/v1/keys', ent.session)).json().data as { id: string }[];
    rotatedFrom = keys[0]!.id;
    t.clock.advance(3_600_000);
    const rotated = await t.app.inject({
      method: 'POST',
      url: `/api/v1/keys/${rotatedFrom}/rotate`,
      headers: { authorization: `Bearer ${ent.session}` },
    });
    assert.equal(rotated.statusCode, 201, rotated.body);
    rotatedTo = rotated.json<{ key: { id: string } }>().key.id;
    const scoped = await t.app.inject({
      method: 'POST',
      url: '/api/v1/keys',
      headers: { authorization: `Bearer ${ent.session}` },
      payload: { name: '=HYPERLINK("x")', scopes: ['salary:read'], allowlist: ['203.0.113.0/24'] },
    });
    assert.equal(scoped.statusCode, 201, scoped.body);
    t.clock.advance(3_600_000);
  });
  after(() => t.close());

  function get(url: string, token?: string | null, headers: Record<string, string> = {}) {
    return t.app.inject({
      method: 'GET',
      url,
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
    });
  }

  it('JSON: every key with scopes, allowlist, age, rotation; sessions; a verified chain', async () => {
    const res = await get('/api/v1/compliance/access-review', ent.session);
    assert.equal(res.statusCode, 200, res.body);
    const review = res.json();
    const ajv = new Ajv({ strict: false, allErrors: true });
    (addFormatsModule as unknown as (a: Ajv) => void)(ajv);
    const valid = ajv.compile(AccessReviewSchema);
    assert.ok(
      valid(review),
      `the review matches its OpenAPI schema: ${ajv.errorsText(valid.errors)}`,
    );
    assert.equal(review.account.id, ent.accountId);
    assert.equal(review.period.to, '2026-11-22T12:15:00.000Z');
    assert.equal(review.period.from, '2026-08-24T12:15:00.000Z', '90 days by default');
    const keys = new Map(
      (review.api_keys as { id: string; [k: string]: unknown }[]).map((k) => [k.id, k]),
    );
    assert.equal(keys.get(rotatedFrom)?.status, 'rotating');
    assert.equal(keys.get(rotatedFrom)?.replaced_by, rotatedTo);
    assert.equal(keys.get(rotatedTo)?.rotated_from, rotatedFrom);
    const scoped = [...keys.values()].find((k) => k.name === '=HYPERLINK("x")')!;
    assert.deepEqual(scoped.scopes, ['salary:read']);
    assert.deepEqual(scoped.allowlist, ['203.0.113.0/24']);
    assert.equal(scoped.age_days, 0);
    assert.ok(review.sessions.length >= 1);
    assert.equal(review.sessions[0].status, 'active');
    assert.deepEqual(review.webhook_endpoints, []);
    assert.equal(review.audit_log.verification.valid, true);
    assert.ok(review.audit_log.verification.entries_checked >= 3);
    assert.ok(review.audit_log.actions['keys.rotate'] >= 1);
    const audited = await t.db.query(
      "SELECT 1 FROM audit_log WHERE account_id = $1 AND action = 'compliance.access_review_generated' AND data->>'review_id' = $2",
      [ent.accountId, review.id],
    );
    assert.equal(audited.length, 1, 'generating a review is audited');
  });

  it('CSV: one row per credential and the chain, formula-looking text defused', async () => {
    const res = await get('/api/v1/compliance/access-review?format=csv', ent.apiKey);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.headers['content-type'], 'text/csv; charset=utf-8');
    assert.match(
      res.headers['content-disposition'] as string,
      /^attachment; filename="access-review-2026-11-22-review_.+\.csv"$/,
    );
    const lines = res.body.split('\r\n');
    assert.equal(
      lines[0],
      'type,id,name,status,scopes,allowlist,created_at,age_days,last_used_at,rotated_at,rotation,detail',
    );
    assert.ok(lines.some((l) => l.startsWith(`api_key,${rotatedTo},`)));
    assert.ok(
      lines.some((l) => l.includes(`"'=HYPERLINK(""x"")"`)),
      'a leading = is quoted away',
    );
    assert.ok(lines.some((l) => l.startsWith('audit_chain,') && l.includes(',verified,')));
    const byAccept = await get('/api/v1/compliance/access-review', ent.apiKey, {
      accept: 'text/csv',
    });
    assert.equal(byAccept.headers['content-type'], 'text/csv; charset=utf-8');
  });

  it('PDF: the review laid out, readable back', async () => {
    const res = await get('/api/v1/compliance/access-review?format=pdf', ent.apiKey);
    assert.equal(res.statusCode, 200, res.body.slice(0, 300));
    assert.equal(res.headers['content-type'], 'application/pdf');
    const text = (await pageTexts(res.rawPayload)).join('\n');
    assert.match(text, /User access review/);
    assert.ok(text.includes(rotatedTo));
    assert.match(text, /Hash chain over the period: VERIFIED/);
  });

  it('refuses a bad period or format with 400 naming it', async () => {
    for (const query of [
      'from=2026-11-30&to=2026-11-01',
      'from=yesterday',
      'from=2024-01-01&to=2026-01-01',
      'format=xml',
    ]) {
      const res = await get(`/api/v1/compliance/access-review?${query}`, ent.apiKey);
      assert.equal(res.statusCode, 400, query);
      assert.match(res.headers['content-type'] as string, /^application\/problem\+json/);
    }
  });

  it('the audit log: CSV export of a period, verify=true on JSON and CSV', async () => {
    const json = await get('/api/v1/account/audit-log?verify=true&limit=5', ent.session);
    assert.equal(json.statusCode, 200, json.body);
    assert.equal(json.headers['content-type'], 'application/json; charset=utf-8');
    assert.equal(json.json().verification.valid, true);
    assert.equal(json.json().verification.first_broken, null);
    assert.ok(json.json().data.length <= 5);
    const csv = await get(
      '/api/v1/account/audit-log?format=csv&verify=true&from=2026-11-22T00:00:00Z',
      ent.session,
    );
    assert.equal(csv.statusCode, 200, csv.body);
    assert.equal(csv.headers['audit-chain-valid'], 'true');
    const lines = csv.body.trim().split('\r\n');
    assert.equal(lines[0], 'id,created_at,actor,action,ip,data');
    assert.ok(lines.some((l) => l.includes(',keys.rotate,')));
    const empty = await get(
      '/api/v1/account/audit-log?format=csv&to=2020-01-01T00:00:00Z',
      ent.session,
    );
    assert.equal(empty.body.trim(), 'id,created_at,actor,action,ip,data');
    const bad = await get(
      '/api/v1/account/audit-log?from=2026-12-01T00:00:00Z&to=2026-11-01T00:00:00Z',
      ent.session,
    );
    assert.equal(bad.statusCode, 400);
  });

  it('a tampered audit row makes verify name it, in the audit log and the access review', async () => {
    const rows = await t.db.query<{ id: number | string }>(
      "SELECT id FROM audit_log WHERE account_id = $1 AND action = 'keys.rotate' ORDER BY id LIMIT 1",
      [ent.accountId],
    );
    const id = Number(rows[0]!.id);
    await t.db.query(`UPDATE audit_log SET data = '{"key_id":"someone else"}' WHERE id = $1`, [id]);
    const json = (await get('/api/v1/account/audit-log?verify=true', ent.session)).json();
    assert.equal(json.verification.valid, false);
    assert.deepEqual(
      { id: json.verification.first_broken.id, reason: json.verification.first_broken.reason },
      { id, reason: 'hash' },
    );
    const csv = await get('/api/v1/account/audit-log?format=csv&verify=true', ent.session);
    assert.equal(csv.headers['audit-chain-valid'], 'false');
    assert.equal(csv.headers['audit-chain-first-broken'], String(id));
    const review = (await get('/api/v1/compliance/access-review', ent.session)).json();
    assert.equal(review.audit_log.verification.valid, false);
    assert.equal(review.audit_log.verification.first_broken.id, id);
    // A period after the tampered row verifies from its anchor: the break is in the past.
    const later = (
      await get(`/api/v1/account/audit-log?verify=true&from=2026-11-22T12:00:00Z`, ent.session)
    ).json();
    assert.equal(later.verification.valid, true);
  });

  it('a deleted audit row breaks the link of the one after it', async () => {
    const rows = await t.db.query<{ id: number | string }>(
      'SELECT id FROM audit_log WHERE account_id = $1 ORDER BY id DESC LIMIT 2',
      [ent.accountId],
    );
    const [newest, removed] = rows.map((r) => Number(r.id));
    await t.db.query('DELETE FROM audit_log WHERE id = $1', [removed]);
    const v = (
      await get(`/api/v1/account/audit-log?verify=true&from=2026-11-22T12:00:00Z`, ent.session)
    ).json().verification;
    assert.equal(v.valid, false);
    assert.equal(v.first_broken.reason, 'link');
    assert.ok(v.first_broken.id > removed! && v.first_broken.id <= newest!);
  });
});
