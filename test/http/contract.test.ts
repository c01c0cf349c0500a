import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Contract } from '../../src/accounts/index.js';
import { operatorPrincipal } from '../../src/billing/index.js';
import { MEDIA_TYPES } from '../../src/formats/index.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { accountOnPlan } from '../helpers/accounts.js';

/**
 * An Enterprise contract's own terms, on one instance without Redis (the in-memory limiter):
 * its list of formats and its daily request limit, over real HTTP, the cached JSON
 * lookup and the CSV files both deciding.
 */
const CONTRACT: Contract = {
  price_cents: 90_000,
  request_limit: null,
  sla_percent: 99.9,
  formats: ['json', 'csv'],
};
const FORMATS = ['json', 'csv', 'xlsx', 'xml', 'parquet'] as const;
const ALLOWED = new Set<string>(CONTRACT.formats);
const LOOKUP = '/api/v1/salary?country=PL&job=accountant&level=mid';
const DAY_MS = 86_400_000;

interface Served {
  t: TestApp;
  base: string;
}

async function serve(): Promise<Served> {
  const t = await buildTestApp({ now: '2026-11-22T23:00:00Z' });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  return { t, base: `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}` };
}

async function call(s: Served, key: string, url: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${s.base}${url}`, {
    headers: { authorization: `Bearer ${key}`, ...headers },
  });
  const body = await res.text();
  return { status: res.status, headers: res.headers, body };
}

describe('an Enterprise contract limited to json and csv', () => {
  let s: Served;
  let key: string;
  before(async () => {
    s = await serve();
    key = (await accountOnPlan(s.t, 'enterprise', CONTRACT)).apiKey!;
  });
  after(() => s.t.close());

  for (const url of [
    LOOKUP,
    '/api/v1/salary/history?country=PL&job=accountant&level=mid',
    '/api/v1/bulk/jobs?country=PL&level=mid',
  ]) {
    for (const format of FORMATS) {
      const expected = ALLOWED.has(format) ? 200 : 403;
      it(`${url.split('?')[0]} format=${format} → ${expected}`, async () => {
        for (const res of [
          await call(s, key, `${url}&format=${format}`),
          await call(s, key, url, { accept: MEDIA_TYPES[format] }),
        ]) {
          assert.equal(res.status, expected, res.body.slice(0, 200));
          if (expected === 403) {
            const problem = JSON.parse(res.body) as { code: string; detail: string };
            assert.equal(problem.code, 'FEATURE_NOT_IN_PLAN');
            assert.equal(
              problem.detail,
              `The ${format} format: not included in this account's Enterprise contract.`,
            );
          } else {
            assert.ok(res.headers.get('content-type')?.startsWith(MEDIA_TYPES[format]));
          }
        }
      });
    }
  }

  it('a contract changed by the operator applies to the same key at once', async () => {
    const other = await accountOnPlan(s.t, 'enterprise', CONTRACT);
    assert.equal((await call(s, other.apiKey!, `${LOOKUP}&format=parquet`)).status, 403);
    await s.t.services.subscriptions.change(
      operatorPrincipal(other.accountId, s.t.services.plans.enterprise),
      'enterprise',
      null,
      { ...CONTRACT, formats: ['json', 'parquet'] },
    );
    assert.equal((await call(s, other.apiKey!, `${LOOKUP}&format=parquet`)).status, 200);
    assert.equal((await call(s, other.apiKey!, `${LOOKUP}&format=csv`)).status, 403);
  });
});

describe("an Enterprise contract's daily request limit without Redis", () => {
  let s: Served;
  let key: string;
  let session: string;
  const LIMIT = 5;
  before(async () => {
    s = await serve();
    const account = await accountOnPlan(s.t, 'enterprise', { ...CONTRACT, request_limit: LIMIT });
    key = account.apiKey!;
    session = account.session;
  });
  after(() => s.t.close());

  it('admits the limit a UTC day, then 429 until midnight; refusals spend nothing', async () => {
    const statuses: number[] = [];
    const remaining: (string | null)[] = [];
    for (let i = 0; i < LIMIT; i++) {
      // The cached JSON lookup and the CSV file count against one limit.
      const res = await call(s, key, `${LOOKUP}${i % 2 === 0 ? '' : '&format=csv'}`);
      statuses.push(res.status);
      remaining.push(res.headers.get('x-ratelimit-remaining'));
      assert.equal(res.headers.get('ratelimit-policy'), `"daily";q=${LIMIT};w=86400`);
      // A format outside the contract is refused before any quota is spent.
      assert.equal((await call(s, key, `${LOOKUP}&format=xml`)).status, 403);
    }
    assert.deepEqual(statuses, Array(LIMIT).fill(200));
    assert.deepEqual(remaining, ['4', '3', '2', '1', '0']);

    for (const url of [LOOKUP, `${LOOKUP}&format=csv`]) {
      const refused = await call(s, key, url);
      assert.equal(refused.status, 429, url);
      assert.equal(JSON.parse(refused.body).code, 'RATE_LIMITED');
      assert.equal(refused.headers.get('retry-after'), '3600', 'until 00:00 UTC');
    }
    const usage = await s.t.app.inject({
      url: '/api/v1/usage',
      headers: { authorization: `Bearer ${session}` },
    });
    assert.equal(usage.statusCode, 200, usage.body);
    assert.match(usage.body, new RegExp(`"limit":${LIMIT}\\b`));
    assert.match(usage.body, new RegExp(`"used":${LIMIT}\\b`));

    s.t.clock.set(new Date(Math.ceil(s.t.clock.now() / DAY_MS) * DAY_MS - 1).toISOString());
    assert.equal((await call(s, key, LOOKUP)).status, 429, '23:59:59.999 is still the old day');
    s.t.clock.advance(1);
    const fresh = await call(s, key, LOOKUP);
    assert.equal(fresh.status, 200, 'a new UTC day');
    assert.equal(fresh.headers.get('x-ratelimit-remaining'), String(LIMIT - 1));
  });
});
