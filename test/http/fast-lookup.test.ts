import assert from 'node:assert/strict';
import { Agent, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { quotaEnforcer, quotaSpender } from '../../src/http/quota.js';
import type { ManualClock } from '../../src/lib/clock.js';
import { MemoryRateLimiter } from '../../src/limits/index.js';
import { LOOKUP_AUTH, SalaryQuerySchema } from '../../src/salary/index.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { accountOnPlan } from '../helpers/accounts.js';
import { capturedLogger } from '../helpers/log-lines.js';

/**
 * The lookup fast path (src/http/fast-lookup.ts) answers plain JSON lookups on node:http before
 * Fastify. Two servers on one database, over real HTTP: one with the fast path, one with
 * LOOKUP_FAST_PATH=false (everything through Fastify). Every request must get the same status,
 * headers and body from both; the table also says which ones the fast path must take itself.
 */

interface Served {
  t: TestApp;
  base: string;
  lines: Record<string, unknown>[];
}

async function serve(
  env: Record<string, string>,
  db?: TestApp['db'],
  extra: Pick<Parameters<typeof buildTestApp>[0] & object, 'limiter' | 'routes'> = {},
): Promise<Served> {
  const { logger, lines } = capturedLogger();
  const t = await buildTestApp({
    env: { ACCESS_LOG: 'true', LOG_LEVEL: 'info', ...env },
    logger,
    ...(db === undefined ? {} : { db }),
    ...extra,
  });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = t.app.server.address() as AddressInfo;
  return { t, base: `http://127.0.0.1:${port}`, lines };
}

/** Headers that differ between any two responses (time, connection, the request's own id). */
const VARYING = new Set(['date', 'connection', 'keep-alive', 'x-request-id']);

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

async function call(base: string, method: string, path: string, headers: Record<string, string>) {
  const res = await fetch(`${base}${path}`, { method, headers });
  const text = await res.text();
  const kept = Object.fromEntries([...res.headers].filter(([name]) => !VARYING.has(name)));
  let body: unknown = text;
  if (text !== '' && (res.headers.get('content-type') ?? '').includes('json')) {
    const parsed = JSON.parse(text) as Record<string, unknown>;
    // A problem names its request; ids differ between the two servers.
    if (typeof parsed.request_id === 'string') parsed.request_id = '(id)';
    body = parsed;
  }
  return {
    answer: { status: res.status, headers: kept, body } satisfies Answer,
    id: res.headers.get('x-request-id'),
  };
}

interface Case {
  name: string;
  path: string;
  method?: string;
  /** A name in `keys` (enterprise, developer, reader, usageOnly): that key; else sent as it is. */
  auth?: string;
  accept?: string;
  status: number;
  /** The fast path answers it itself (a 200 or a refusal); otherwise Fastify does. */
  fast: boolean;
}

const DE = '/api/v1/salary?country=DE&job=software-engineer&level=senior';
const CASES: Case[] = [
  { name: 'anonymous lookup', path: DE, status: 200, fast: true },
  { name: 'all levels', path: '/api/v1/salary?country=FR&job=nurse', status: 200, fast: true },
  {
    name: 'lower-case country',
    path: '/api/v1/salary?country=de&job=nurse',
    status: 200,
    fast: true,
  },
  {
    name: "Eurostat's EL",
    path: '/api/v1/salary?job=secondary-teacher&country=EL',
    status: 200,
    fast: true,
  },
  { name: 'current year', path: `${DE}&year=2026`, status: 200, fast: true },
  { name: 'format=json', path: `${DE}&format=json`, status: 200, fast: true },
  { name: 'Accept: JSON', path: DE, accept: 'application/json', status: 200, fast: true },
  { name: 'Accept: any', path: DE, accept: 'text/html, */*;q=0.8', status: 200, fast: true },
  { name: 'history', path: '/api/v1/salary/history?country=NL&job=nurse', status: 200, fast: true },
  { name: 'Enterprise key', path: DE, auth: 'enterprise', status: 200, fast: true },
  {
    name: 'Enterprise archive year',
    path: `${DE}&year=2014`,
    auth: 'enterprise',
    status: 200,
    fast: true,
  },
  {
    name: 'Enterprise history',
    path: '/api/v1/salary/history?country=PL&job=chef',
    auth: 'enterprise',
    status: 200,
    fast: true,
  },
  { name: 'key scoped to salary:read', path: DE, auth: 'reader', status: 200, fast: true },
  { name: 'key without salary:read', path: DE, auth: 'usageOnly', status: 403, fast: true },
  {
    name: 'Developer last year',
    path: `${DE}&year=2025`,
    auth: 'developer',
    status: 200,
    fast: true,
  },
  {
    name: 'Developer too far back',
    path: `${DE}&year=2024`,
    auth: 'developer',
    status: 403,
    fast: true,
  },
  { name: 'Free last year', path: `${DE}&year=2025`, status: 403, fast: true },
  { name: 'year without data', path: `${DE}&year=2030`, status: 404, fast: true },
  { name: 'year out of range', path: `${DE}&year=1999`, status: 400, fast: false },
  { name: 'year not a number', path: `${DE}&year=abc`, status: 400, fast: false },
  { name: 'CSV on Free', path: `${DE}&format=csv`, status: 403, fast: false },
  { name: 'Accept CSV on Free', path: DE, accept: 'text/csv', status: 403, fast: false },
  { name: 'Accept nothing we make', path: DE, accept: 'image/png', status: 406, fast: false },
  { name: 'CSV with a key', path: `${DE}&format=csv`, auth: 'developer', status: 200, fast: false },
  {
    name: 'unknown country',
    path: '/api/v1/salary?country=XX&job=nurse',
    status: 400,
    fast: true,
  },
  {
    name: 'unknown job',
    path: '/api/v1/salary?country=DE&job=astronaut',
    status: 400,
    fast: true,
  },
  { name: 'unknown parameter', path: `${DE}&colour=red`, status: 400, fast: false },
  { name: 'missing job', path: '/api/v1/salary?country=DE', status: 400, fast: false },
  {
    name: 'repeated country',
    path: '/api/v1/salary?country=DE&country=FR&job=nurse',
    status: 400,
    fast: false,
  },
  {
    name: 'empty level',
    path: '/api/v1/salary?country=DE&job=nurse&level=',
    status: 400,
    fast: false,
  },
  {
    name: 'percent-encoded',
    path: '/api/v1/salary?country=DE&job=software%2Dengineer',
    status: 200,
    fast: false,
  },
  { name: 'trailing &', path: '/api/v1/salary?country=DE&job=nurse&', status: 200, fast: false },
  { name: 'custom fields on Free', path: `${DE}&fields=p10`, status: 403, fast: true },
  {
    name: 'year on history',
    path: '/api/v1/salary/history?country=NL&job=nurse&year=2026',
    status: 400,
    fast: false,
  },
  {
    name: 'trailing slash',
    path: '/api/v1/salary/?country=DE&job=nurse',
    status: 200,
    fast: false,
  },
  {
    name: 'unknown key',
    path: DE,
    auth: `Bearer sk_live_${'x'.repeat(43)}`,
    status: 401,
    fast: true,
  },
  { name: 'not a bearer', path: DE, auth: 'Basic dXNlcjpwYXNz', status: 401, fast: true },
  { name: 'HEAD', path: DE, method: 'HEAD', status: 200, fast: false },
  { name: 'POST', path: DE, method: 'POST', status: 405, fast: false },
];

describe('lookup fast path', () => {
  let fast: Served;
  let slow: Served;
  const keys: Record<string, string> = {};

  before(async () => {
    fast = await serve({});
    keys.enterprise = (await accountOnPlan(fast.t, 'enterprise')).apiKey!;
    keys.developer = (await accountOnPlan(fast.t, 'developer')).apiKey!;
    const enterprise = await accountOnPlan(fast.t, 'enterprise');
    const scoped = async (scopes: string[]) => {
      const res = await fast.t.app.inject({
        method: 'POST',
        url: '/api/v1/keys',
        headers: { authorization: `Bearer ${enterprise.session}` },
        payload: { name: scopes.join(' '), scopes },
      });
      assert.equal(res.statusCode, 201, res.body);
      return res.json<{ key: string }>().key;
    };
    keys.reader = await scoped(['salary:read']);
    keys.usageOnly = await scoped(['usage:read']);
    slow = await serve({ LOOKUP_FAST_PATH: 'false' }, fast.t.db);
    assert.equal(slow.t.app.fastLookup, undefined);
  });
  after(async () => {
    await slow.t.close();
    await fast.t.close();
  });

  const headersOf = (c: Case): Record<string, string> => {
    const headers: Record<string, string> = {};
    if (c.auth !== undefined) {
      const key = keys[c.auth];
      headers.authorization = key === undefined ? c.auth : `Bearer ${key}`;
    }
    if (c.accept !== undefined) headers.accept = c.accept;
    return headers;
  };

  for (const c of CASES) {
    it(`${c.name}: ${c.status} from both, ${c.fast ? 'answered by the fast path' : 'left to Fastify'}`, async () => {
      const method = c.method ?? 'GET';
      const answered = () => fast.t.app.fastLookup!.served + fast.t.app.fastLookup!.refused;
      const before = answered();
      const ours = await call(fast.base, method, c.path, headersOf(c));
      const theirs = await call(slow.base, method, c.path, headersOf(c));
      assert.equal(ours.answer.status, c.status, JSON.stringify(ours.answer.body));
      assert.deepEqual(ours.answer, theirs.answer);
      assert.equal(answered() - before, c.fast ? 1 : 0);
      assert.match(ours.id ?? '', /^req_[0-9a-f]{12}[0-9a-z]{6,}$/);
    });
  }

  it('writes the same access line as the Fastify path', async () => {
    const ours = await call(fast.base, 'GET', DE, { authorization: `Bearer ${keys.developer}` });
    const theirs = await call(slow.base, 'GET', DE, { authorization: `Bearer ${keys.developer}` });
    const lineOf = (
      s: Served,
      id: string | null,
    ): { keys: string[]; rest: Record<string, unknown> } => {
      const line = s.lines.find((l) => l.request_id === id && l.msg === 'request');
      assert.ok(line, `an access line for ${id}`);
      const { time, pid, hostname, ms, request_id, ...rest } = line;
      assert.equal(typeof time, 'number');
      assert.equal(typeof ms, 'number');
      assert.equal(request_id, id);
      return { keys: Object.keys(line).sort(), rest: { ...rest, pid: typeof pid, hostname } };
    };
    assert.deepEqual(lineOf(fast, ours.id), lineOf(slow, theirs.id));
    assert.equal(lineOf(fast, ours.id).rest.status, 200);
  });
});

describe('lookup fast path: limits and usage', () => {
  let s: Served;
  before(async () => {
    s = await serve({
      PLAN_OVERRIDES: '{"free":{"requestLimit":3},"developer":{"requestLimit":5}}',
    });
  });
  after(() => s.t.close());

  it('spends the Free quota exactly; the 429, answered by the fast path, spends nothing', async () => {
    const served = s.t.app.fastLookup!.served;
    const refused = s.t.app.fastLookup!.refused;
    const remaining: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${s.base}${DE}`);
      assert.equal(res.status, 200);
      remaining.push(res.headers.get('x-ratelimit-remaining')!);
      assert.equal(res.headers.get('ratelimit-policy'), '"hourly";q=3;w=3600');
      await res.arrayBuffer();
    }
    assert.deepEqual(remaining, ['2', '1', '0']);
    for (let i = 0; i < 2; i++) {
      const refused = await fetch(`${s.base}${DE}`);
      assert.equal(refused.status, 429);
      assert.equal(refused.headers.get('content-type'), 'application/problem+json');
      // 10:15 on the test clock: 45 minutes to the top of the hour.
      assert.equal(refused.headers.get('retry-after'), String(45 * 60));
      assert.equal(((await refused.json()) as { code: string }).code, 'RATE_LIMITED');
    }
    assert.equal(s.t.app.fastLookup!.served - served, 3);
    assert.equal(s.t.app.fastLookup!.refused - refused, 2);
    // The next hour opens a new window.
    s.t.clock.set('2026-11-22T11:00:00Z');
    const next = await fetch(`${s.base}${DE}`);
    assert.equal(next.status, 200);
    assert.equal(next.headers.get('x-ratelimit-remaining'), '2');
    await next.arrayBuffer();
  });

  it("counts an account's usage exactly, fast path and Fastify path together", async () => {
    s.t.clock.set('2026-11-22T12:00:00Z');
    const account = await accountOnPlan(s.t, 'developer');
    const auth = { authorization: `Bearer ${account.apiKey}` };
    const statuses: number[] = [];
    for (const path of [DE, DE, `${DE}&format=csv`, `${DE}&year=2020`, DE, DE, DE]) {
      const res = await fetch(`${s.base}${path}`, { headers: auth });
      statuses.push(res.status);
      await res.arrayBuffer();
    }
    // Five 200s use the daily quota of 5 (one of them CSV, through Fastify); then 429.
    assert.deepEqual(statuses, [200, 200, 200, 403, 200, 200, 429]);
    await s.t.recorder.flush();
    const report = (await (
      await fetch(`${s.base}/api/v1/usage?granularity=hour`, {
        headers: { authorization: `Bearer ${account.session}` },
      })
    ).json()) as {
      by_endpoint: Record<string, number>;
      by_status: Record<string, number>;
      quota: { used: number; limit: number };
    };
    assert.equal(report.by_endpoint['GET /api/v1/salary'], 7);
    assert.deepEqual(report.by_status, { '200': 5, '403': 1, '429': 1 });
    assert.deepEqual([report.quota.used, report.quota.limit], [5, 5]);
  });
});

describe('lookup fast path: refusals yield to served requests', () => {
  let s: Served;
  before(async () => {
    s = await serve({});
  });
  after(() => s.t.close());

  /** GETs on one kept-alive connection, one after the other; their statuses. */
  async function onOneConnection(paths: { path: string; auth?: string }[]): Promise<number[]> {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const statuses: number[] = [];
    try {
      for (const { path, auth } of paths) {
        statuses.push(
          await new Promise<number>((resolve, reject) => {
            const req = request(`${s.base}${path}`, {
              agent,
              headers: auth === undefined ? {} : { authorization: auth },
            });
            req.on('response', (res) => {
              res.resume();
              res.on('end', () => resolve(res.statusCode ?? 0));
            });
            req.on('error', reject);
            req.end();
          }),
        );
      }
    } finally {
      agent.destroy();
    }
    return statuses;
  }

  const unknown = { path: DE, auth: `Bearer sk_live_${'u'.repeat(43)}` };

  it('while lookups are served, repeated refusals on one connection are answered late', async () => {
    const fastLookup = s.t.app.fastLookup!;
    const yielded = fastLookup.yielded;
    const statuses = await onOneConnection([{ path: DE }, ...Array(5).fill(unknown)]);
    assert.deepEqual(statuses, [200, 401, 401, 401, 401, 401]);
    // The first refusal goes out at once; the next four each wait a little longer.
    assert.equal(fastLookup.yielded - yielded, 4);
  });

  it('with nothing else being served, refusals go out at once', async () => {
    const fastLookup = s.t.app.fastLookup!;
    s.t.clock.advance(1_000);
    const yielded = fastLookup.yielded;
    const statuses = await onOneConnection(Array(5).fill(unknown));
    assert.deepEqual(statuses, [401, 401, 401, 401, 401]);
    assert.equal(fastLookup.yielded - yielded, 0);
  });
});

describe("lookup fast path: a route's declared quota cost", () => {
  const COSTLY = '/api/v1/test/costly?country=DE&job=nurse';
  let fast: Served;
  let slow: Served;
  const keys: string[] = [];
  const ids: string[] = [];

  /**
   * A lookup that costs 2, declared once on the route: the fast path takes it (`cheapPath`),
   * and its Fastify handler spends through the handlers' spender over the app's own limiter.
   */
  const costly = (limiter: MemoryRateLimiter) => (app: FastifyInstance, clock: ManualClock) => {
    const consume = quotaEnforcer(quotaSpender(limiter, clock));
    app.get(
      '/api/v1/test/costly',
      {
        schema: { querystring: SalaryQuerySchema },
        config: { auth: LOOKUP_AUTH, cheapPath: {}, quota: { cost: 2 } },
      },
      async (request, reply) => {
        await consume(request, reply);
        return { answered: 'by Fastify' };
      },
    );
  };
  const server = (env: Record<string, string>, db?: TestApp['db']) => {
    const limiter = new MemoryRateLimiter();
    return serve(env, db, { limiter, routes: costly(limiter) });
  };

  before(async () => {
    const env = { PLAN_OVERRIDES: '{"developer":{"requestLimit":5}}' };
    fast = await server(env);
    for (let i = 0; i < 2; i++) {
      const account = await accountOnPlan(fast.t, 'developer');
      keys.push(account.apiKey!);
      ids.push(account.accountId);
    }
    slow = await server({ ...env, LOOKUP_FAST_PATH: 'false' }, fast.t.db);
    assert.equal(slow.t.app.fastLookup, undefined);
  });
  after(async () => {
    await slow.t.close();
    await fast.t.close();
  });

  const LIMIT_HEADERS = [
    'ratelimit-policy',
    'ratelimit',
    'x-ratelimit-limit',
    'x-ratelimit-remaining',
    'x-ratelimit-reset',
    'retry-after',
  ];

  /** The statuses and rate-limit headers of a sequence of requests with one key. */
  async function sequence(s: Served, key: string) {
    const seen: Record<string, string | number | null>[] = [];
    for (const path of [COSTLY, COSTLY, COSTLY, DE, COSTLY]) {
      const res = await fetch(`${s.base}${path}`, { headers: { authorization: `Bearer ${key}` } });
      await res.arrayBuffer();
      seen.push({
        status: res.status,
        ...Object.fromEntries(LIMIT_HEADERS.map((name) => [name, res.headers.get(name)])),
      });
    }
    return seen;
  }

  it('spends 2 per request on both paths; with 1 left it is refused and spends nothing', async () => {
    const lookup = fast.t.app.fastLookup!;
    const [served, refused] = [lookup.served, lookup.refused];
    const ours = await sequence(fast, keys[0]!);
    const theirs = await sequence(slow, keys[1]!);
    assert.deepEqual(
      ours.map((r) => [r.status, r['x-ratelimit-remaining']]),
      [
        [200, '3'],
        [200, '1'],
        [429, '1'],
        [200, '0'],
        [429, '0'],
      ],
    );
    assert.deepEqual(ours, theirs, 'the same decisions and headers with and without the fast path');
    // The costly route's 200s and 429s, and the cost-1 lookup, all decided by the fast path.
    assert.deepEqual([lookup.served - served, lookup.refused - refused], [3, 2]);
  });

  it('usage still counts each request once, whatever its cost', async () => {
    for (const [s, id] of [
      [fast, ids[0]!],
      [slow, ids[1]!],
    ] as const) {
      const byStatus: Record<number, number> = {};
      for (const r of s.t.recorder.pending(id))
        if (r.endpoint === 'GET /api/v1/test/costly')
          byStatus[r.status] = (byStatus[r.status] ?? 0) + r.count;
      assert.deepEqual(byStatus, { 200: 2, 429: 2 });
    }
  });
});
