import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { listNotices, renderNotice } from '../../src/notices/index.js';
import { parseRelease, type ReleaseRecord } from '../../src/releases/index.js';
import { accountOnPlan } from '../helpers/accounts.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';

const file = (version: string) =>
  fileURLToPath(new URL(`../../releases/salary-${version}.jsonl.gz`, import.meta.url));
const linesOf = (version: string) =>
  gunzipSync(readFileSync(file(version))).toString('utf8').trimEnd().split('\n');
const recordOf = (version: string, country: string, job: string, level: string, year: number) =>
  linesOf(version)
    .slice(1)
    .map((l) => JSON.parse(l) as ReleaseRecord)
    .find((r) => r.country === country && r.job === job && r.level === level && r.year === year)!;

/** 2026.11.9: 2026.11.8 with three known edits (a 10 % rise, a p25-only edit, an FX change). */
function editedRelease(): string {
  const lines = linesOf('2026.11.8');
  const header = JSON.parse(lines[0]!) as Record<string, unknown>;
  lines[0] = JSON.stringify({ ...header, version: '2026.11.9', created_at: '2026-11-30T00:00:00Z' });
  const edit = (match: (r: ReleaseRecord) => boolean, change: (r: ReleaseRecord) => void) => {
    const at = lines.findIndex((l, i) => i > 0 && match(JSON.parse(l) as ReleaseRecord));
    const r = JSON.parse(lines[at]!) as ReleaseRecord;
    change(r);
    lines[at] = JSON.stringify(r);
  };
  const is = (c: string, j: string, l: string, y: number) => (r: ReleaseRecord) =>
    r.country === c && r.job === j && r.level === l && r.year === y;
  edit(is('DE', 'software-engineer', 'senior', 2026), (r) => {
    for (const f of ['p10', 'p25', 'median', 'p75', 'p90', 'mean'] as const)
      r[f] = Math.round(r[f] * 1.1);
  });
  edit(is('FR', 'nurse', 'mid', 2020), (r) => (r.p25 += 1));
  edit(is('PL', 'chef', 'junior', 2024), (r) => (r.fx_rate = Math.round(r.fx_rate * 1.02 * 1e4) / 1e4));
  return lines.join('\n') + '\n';
}

describe('data vintages: kept releases, pinned lookups, changes', () => {
  let t: TestApp;
  let developer: string;
  let developerId: string;
  let developerSession: string;
  let freeId: string;
  let freeSession: string;
  let business: string;
  let enterprise: string;
  const get = (url: string, token?: string) =>
    t.app.inject({
      method: 'GET',
      url,
      headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
    });

  before(async () => {
    t = await buildTestApp({ now: '2026-11-29T12:00:00Z' });
    const dev = await accountOnPlan(t, 'developer');
    developer = dev.apiKey!;
    developerId = dev.accountId;
    developerSession = dev.session;
    const free = await accountOnPlan(t, 'free');
    freeId = free.accountId;
    freeSession = free.session;
    business = (await accountOnPlan(t, 'business')).apiKey!;
    enterprise = (await accountOnPlan(t, 'enterprise')).apiKey!;
  });
  after(() => t.close());

  it('a fresh install keeps every bundled release, the newest active', async () => {
    assert.deepEqual(
      (await t.releases.list()).map((r) => r.version),
      ['2026.11.8', '2026.11.7', '2026.11.6'],
    );
    const res = await get('/api/v1/releases');
    assert.equal(res.statusCode, 200, res.body);
    const [active, previous] = res.json().data;
    assert.equal(active.version, '2026.11.8');
    assert.equal(active.active, true);
    assert.equal(active.previous_release, '2026.11.7');
    assert.equal(active.changes_url, '/api/v1/releases/2026.11.8/changes?from=2026.11.7');
    assert.equal(previous.active, false);
    assert.equal(previous.published_at, '2026-11-29T05:30:00.000Z');
    assert.ok(active.sources.length > 10);
    assert.equal(active.counts.records, 27 * 21 * 4 * 13);
    const one = await get('/api/v1/releases/2026.11.6');
    assert.equal(one.json().version, '2026.11.6');
    assert.equal((await get('/api/v1/releases/2020.01.1')).statusCode, 404);
  });

  it('release= answers from that release, in JSON and CSV; without it, the active one', async () => {
    const old = recordOf('2026.11.7', 'FI', 'care-worker', 'mid', 2026);
    const now = recordOf('2026.11.8', 'FI', 'care-worker', 'mid', 2026);
    // 2026.11.8 sets Finland's municipal table at the municipal sector's place in the economy.
    assert.notEqual(old.median, now.median);
    const pinned = await get('/api/v1/salary?country=FI&job=care-worker&level=mid&release=2026.11.7', developer);
    assert.equal(pinned.statusCode, 200, pinned.body);
    assert.equal(pinned.json().meta.release.version, '2026.11.7');
    assert.equal(pinned.json().data[0].median, old.median);
    const active = await get('/api/v1/salary?country=FI&job=care-worker&level=mid', developer);
    assert.equal(active.json().meta.release.version, '2026.11.8');
    assert.equal(active.json().data[0].median, now.median);
    const csv = await get('/api/v1/salary?country=FI&job=care-worker&level=mid&release=2026.11.7&format=csv', business);
    assert.equal(csv.statusCode, 200, csv.body);
    assert.ok(csv.body.includes(`,${old.median},`), csv.body);
    assert.ok(!csv.body.includes(`,${now.median},`), csv.body);
    const history = await get('/api/v1/salary/history?country=FI&job=care-worker&level=mid&release=2026.11.7', developer);
    assert.equal(history.json().meta.release.version, '2026.11.7');
    const bulk = await get('/api/v1/bulk/countries?job=care-worker&level=mid&release=2026.11.7', business);
    assert.equal(bulk.statusCode, 200, bulk.body);
    const fi = bulk.json().data.find((r: { country: string }) => r.country === 'FI');
    assert.equal(fi.median, old.median);
  });

  it('a custom endpoint answers from a pinned release too', async () => {
    const ent = await accountOnPlan(t, 'enterprise');
    const made = await t.app.inject({
      method: 'POST',
      url: '/api/v1/custom-endpoints',
      headers: { authorization: `Bearer ${ent.session}` },
      payload: { slug: 'de-nurses', query: { countries: ['DE'], jobs: ['nurse'], levels: ['mid'] }, parameters: [] },
    });
    assert.equal(made.statusCode, 201, made.body);
    const res = await get('/api/v1/custom/de-nurses?release=2026.11.6', ent.apiKey!);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().meta.release.version, '2026.11.6');
    assert.equal(res.json().data[0].median, recordOf('2026.11.6', 'DE', 'nurse', 'mid', 2026).median);
  });

  it('as_of= picks the release published on or before that date', async () => {
    const asOf = async (date: string) =>
      (await get(`/api/v1/salary?country=DE&job=nurse&as_of=${date}`, enterprise)).json().meta?.release
        ?.version;
    assert.equal(await asOf('2026-11-29'), '2026.11.8');
    assert.equal(await asOf('2026-12-15'), '2026.11.8');
    const before = await get('/api/v1/salary?country=DE&job=nurse&as_of=2026-11-28', developer);
    assert.equal(before.statusCode, 404, before.body);
    const both = await get('/api/v1/salary?country=DE&job=nurse&as_of=2026-11-28&release=2026.11.6', developer);
    assert.equal(both.statusCode, 400);
    const bad = await get('/api/v1/salary?country=DE&job=nurse&as_of=yesterday', developer);
    assert.equal(bad.statusCode, 400);
  });

  it('an unknown release is a 400 listing the kept ones', async () => {
    const res = await get('/api/v1/salary?country=DE&job=nurse&release=2025.01.1', developer);
    assert.equal(res.statusCode, 400, res.body);
    assert.deepEqual(res.json().invalid_params[0].allowed, ['2026.11.8', '2026.11.7', '2026.11.6']);
  });

  it('Free reaches only the active release: 403 naming Developer', async () => {
    const res = await get('/api/v1/salary?country=DE&job=nurse&release=2026.11.7');
    assert.equal(res.statusCode, 403, res.body);
    assert.equal(res.json().required_plan, 'developer');
    const active = await get('/api/v1/salary?country=DE&job=nurse&release=2026.11.8');
    assert.equal(active.statusCode, 200, active.body);
  });

  it('lists exactly the cells a release with known edits changed, with reasons', async () => {
    const { event } = await t.releases.load(parseRelease(editedRelease()));
    await t.data.refresh();
    // data.updated carries the same summary and links to the changes.
    assert.deepEqual(event.changes?.beyond, { '1': 1, '5': 1, '10': 0 });
    assert.deepEqual(
      event.changes?.by_country.map((c) => c.country),
      ['DE', 'FR', 'PL'],
    );
    assert.equal(event.changes?.url, '/api/v1/releases/2026.11.9/changes?from=2026.11.8');
    // The e-mail announcement, queued in the same transaction, says the same: to the plans that
    // reach the previous release, not to Free.
    const [notice, ...more] = (await listNotices(t.db, developerId)).filter(
      (n) => n.kind === 'data.updated',
    );
    assert.ok(notice !== undefined && more.length === 0);
    assert.equal((await listNotices(t.db, freeId)).filter((n) => n.kind === 'data.updated').length, 0);
    const mail = renderNotice('data.updated', notice.data, null, 'https://api.example/');
    assert.equal(mail.subject, 'Salary data release 2026.11.9 is live');
    assert.match(mail.text, /the median of 1 cells moved by more than 1 %, 1 by more than 5 % and 0 by more than 10 %/);
    assert.match(mail.text, /Most moved \(cells beyond 5 %\): DE 1\./);
    assert.match(mail.text, /GET https:\/\/api\.example\/api\/v1\/releases\/2026\.11\.9\/changes\?from=2026\.11\.8/);
    assert.match(mail.text, /add release=2026\.11\.8 to your requests/);
    // The dashboard's overview shows the same summary; how to pin where the plan reaches it.
    const overview = async (session: string) =>
      (await t.app.inject({ url: '/dashboard', headers: { cookie: `salary_session=${session}` } }))
        .body;
    const devPage = await overview(developerSession);
    assert.match(devPage, /release <strong>2026\.11\.9<\/strong>/);
    assert.match(devPage, /From 2026\.11\.8: 3 of [\d,]+ cells\s+changed; medians moved by more than 1 % in 1, 5 % in\s+1 and 10 % in 0 \(most: DE 1\)/);
    assert.match(devPage, /<code>release=2026\.11\.8<\/code>/);
    const freePage = await overview(freeSession);
    assert.match(freePage, /release <strong>2026\.11\.9<\/strong>/);
    assert.doesNotMatch(freePage, /<code>release=2026\.11\.8<\/code>/);
    // as_of= now tells the two apart: 2026.11.9 is published on 30 November.
    const asOf = async (date: string) =>
      (await get(`/api/v1/salary?country=DE&job=nurse&as_of=${date}`, enterprise)).json().meta.release.version;
    assert.equal(await asOf('2026-11-29'), '2026.11.8');
    assert.equal(await asOf('2026-11-30'), '2026.11.9');
    const res = await get('/api/v1/releases/2026.11.9/changes', developer);
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.equal(body.from, '2026.11.8');
    assert.deepEqual(
      body.data.map((c: { country: string; job: string; level: string; year: number }) =>
        `${c.country} ${c.job} ${c.level} ${c.year}`,
      ),
      ['DE software-engineer senior 2026', 'FR nurse mid 2020', 'PL chef junior 2024'],
    );
    const [de, fr, pl] = body.data;
    const old = recordOf('2026.11.8', 'DE', 'software-engineer', 'senior', 2026).median;
    assert.equal(de.old.median, old);
    assert.equal(de.new.median, Math.round(old * 1.1));
    assert.equal(de.change_pct, Math.round(((Math.round(old * 1.1) - old) / old) * 10_000) / 100);
    assert.deepEqual(de.reasons, ['revision']);
    assert.equal(fr.change_pct, 0);
    assert.deepEqual(pl.reasons, ['fx', 'revision']);
    assert.equal(body.summary.changed, 3);
    assert.equal(body.summary.beyond['5'], 1);
    assert.deepEqual(body.summary.by_country.map((c: { country: string }) => c.country), ['DE', 'FR', 'PL']);
    const filtered = await get('/api/v1/releases/2026.11.9/changes?min_change=5', developer);
    assert.equal(filtered.json().total, 1);
    const byCountry = await get('/api/v1/releases/2026.11.9/changes?country=fr', developer);
    assert.equal(byCountry.json().data[0].job, 'nurse');
  });

  it('the /data/releases page lists the releases with their change summaries', async () => {
    const res = await get('/data/releases');
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /2026\.11\.9 \(active\)/);
    assert.match(res.body, /From 2026\.11\.8: 3 of \d+ cells changed/);
    assert.match(res.body, /2026\.11\.6/);
    const icon = await get('/favicon.ico');
    assert.equal(icon.statusCode, 200);
    assert.equal(icon.headers['content-type'], 'image/svg+xml');
    const home = await get('/');
    assert.match(home.body, /rel="icon"/);
    assert.doesNotMatch(home.body, / ,/);
  });

  it('with four kept, Business reaches the previous release, Enterprise every one', async () => {
    const url = '/api/v1/salary?country=DE&job=nurse&release=2026.11.6';
    const refused = await get(url, business);
    assert.equal(refused.statusCode, 403, refused.body);
    assert.equal(refused.json().required_plan, 'enterprise');
    assert.equal((await get('/api/v1/salary?country=DE&job=nurse&release=2026.11.8', business)).statusCode, 200);
    const reached = await get(url, enterprise);
    assert.equal(reached.statusCode, 200, reached.body);
    assert.equal(reached.json().meta.release.version, '2026.11.6');
    const changes = await get('/api/v1/releases/2026.11.7/changes?from=2026.11.6', business);
    assert.equal(changes.statusCode, 403);
  });

  it('a retired release is gone from lookups; the active one cannot be retired', async () => {
    await assert.rejects(t.releases.retire('2026.11.9'), /active release/);
    await t.releases.retire('2026.11.6');
    await t.data.refresh();
    assert.deepEqual(
      (await t.releases.list()).map((r) => r.version),
      ['2026.11.9', '2026.11.8', '2026.11.7'],
    );
    const res = await get('/api/v1/salary?country=DE&job=nurse&release=2026.11.6', enterprise);
    assert.equal(res.statusCode, 400, res.body);
    await assert.rejects(t.releases.retire('2026.11.6'), /retired/);
  });
});
