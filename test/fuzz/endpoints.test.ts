import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { SCOPES, type Scope } from '../../src/auth/index.js';
import { COUNTRY_CODES } from '../../src/catalog/countries.js';
import { JOB_SLUGS, LEVELS } from '../../src/catalog/jobs.js';
import { ERROR_CODES, problemType, type ErrorCode } from '../../src/errors/index.js';
import { MEDIA_TYPES } from '../../src/formats/index.js';
import { EXTRA_FIELD_NAMES } from '../../src/salary/fields.js';
import { FORMATS, PLAN_IDS, type PlanId } from '../../src/plans/index.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { accountOnPlan } from '../helpers/accounts.js';

/**
 * Property-based fuzzing of every route the OpenAPI document lists (so new routes are covered
 * without touching this file), plus the hidden ones and unknown paths: hostile query strings,
 * path parameters, headers and bodies on every method. Whatever is sent, the API never answers
 * 5xx, every 4xx is problem+json whose members match its status, and a 2xx has a content type
 * that says what it is. FUZZ_SEED, FUZZ_RUNS and FUZZ_SEQUENCES override the fixed seed and the
 * run counts; FUZZ_SHRINK=1 shrinks a failure to a minimal request (slow).
 */
const SEED = Number(process.env.FUZZ_SEED ?? 20_261_122);
const RUNS = Number(process.env.FUZZ_RUNS ?? 500);
const SEQUENCES = Number(process.env.FUZZ_SEQUENCES ?? 100);
/** FUZZ_EXPLORE=1: log a status line per request and every failure instead of stopping. */
const EXPLORE = process.env.FUZZ_EXPLORE !== undefined;

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;
type Method = (typeof METHODS)[number];

interface Operation {
  method: Method;
  path: string;
  query: { name: string; required: boolean }[];
  body: string[];
}

interface OpenApiOperation {
  parameters?: { name: string; in: string; required?: boolean }[];
  requestBody?: { content?: Record<string, { schema?: { properties?: object } }> };
}

/** Every operation of the OpenAPI document, plus the routes it hides and paths that do not exist. */
function operationsOf(doc: { paths?: Record<string, Record<string, OpenApiOperation>> }) {
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const [method, op] of Object.entries(item)) {
      const upper = method.toUpperCase() as Method;
      if (!METHODS.includes(upper)) continue;
      const schema = Object.values(op.requestBody?.content ?? {})[0]?.schema;
      ops.push({
        method: upper,
        path,
        query: (op.parameters ?? [])
          .filter((p) => p.in === 'query')
          .map((p) => ({ name: p.name, required: p.required === true })),
        body: Object.keys(schema?.properties ?? {}),
      });
    }
  }
  const extra = (path: string, method: Method = 'GET'): Operation => ({
    method,
    path,
    query: [],
    body: [],
  });
  ops.push(
    extra('/api/v1/openapi.json'),
    extra('/docs'),
    extra('/docs/json'),
    extra('/api/v1/nope'),
    extra('/api/v1/salary/{id}'),
    extra('/api/v2/salary'),
    extra('/{id}', 'POST'),
    extra('/api/v1/keys/{id}/{id}', 'PUT'),
    extra('/.well-known/oauth-authorization-server'),
    extra('/.well-known/jwks.json'),
    {
      method: 'POST',
      path: '/oauth/token',
      query: [],
      body: [
        'grant_type',
        'scope',
        'client_id',
        'client_secret',
        'client_assertion',
        'client_assertion_type',
      ],
    },
    {
      method: 'POST',
      path: '/oauth/revoke',
      query: [],
      body: ['token', 'token_type_hint', 'client_id', 'client_secret'],
    },
    {
      method: 'POST',
      path: '/oauth/introspect',
      query: [],
      body: ['token', 'client_id', 'client_secret'],
    },
    extra('/oauth/{id}', 'POST'),
  );
  return ops;
}

const HOSTILE = [
  '',
  ' ',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'NaN',
  'Infinity',
  '-Infinity',
  '-1',
  '0',
  '1e309',
  '1e3',
  '2.5',
  '0x7e0',
  '99999999999999999999999',
  '9007199254740993',
  'null',
  'undefined',
  'true',
  '[]',
  '{}',
  'all',
  'ALL',
  '\u0000',
  '\r\n',
  '\u202e',
  'ẞ',
  '💸',
  '\ud800',
  '%',
  '%%',
  '%zz',
  '%00',
  '%E0%A4%A',
  '%C0%AF',
  '%FF%FE',
  '%u0041',
  '+',
  '&',
  '=',
  '?',
  '/',
  '../../etc/passwd',
  "' OR 1=1 --",
  '<script>',
  '${x}',
  'a'.repeat(300),
  'x'.repeat(70_000),
];

const VALID_VALUES: readonly string[] = [
  ...COUNTRY_CODES,
  'de',
  'EL',
  'gr',
  ...JOB_SLUGS.slice(0, 5),
  ...LEVELS,
  ...FORMATS,
  '2025',
  '2024',
  '2014',
  '2013',
  '1999',
  '2100',
  'hour',
  'day',
  '2026-11-22',
  '2026-11-01',
  '2026-02-30',
  '0000-00-00',
  '9999-12-31',
  '2020-01-01',
  '1',
  '500',
  '501',
  'median,p10',
  'sample_size',
  'in_abc',
  'key_abc',
];

/** Values a parameter of that name accepts, so most requests get past validation. */
const VALID_BY_NAME: Record<string, readonly string[]> = {
  country: [...COUNTRY_CODES, 'de', 'EL', 'gr'],
  job: JOB_SLUGS,
  level: LEVELS,
  format: FORMATS,
  year: ['2026', '2025', '2024', '2023', '2022', '2014', '2013', 'all'],
  fields: [...EXTRA_FIELD_NAMES, EXTRA_FIELD_NAMES.join(','), `${EXTRA_FIELD_NAMES[0]},nope`],
  from: ['2026-11-22', '2026-11-16', '2026-10-01', '2025-11-22', '0000-01-01', '2026-02-30'],
  to: ['2026-11-22', '2026-11-16', '2026-12-31', '2020-01-01', '9999-12-31', '0001-01-01'],
  granularity: ['hour', 'day'],
  limit: ['1', '100', '500'],
};

const hostileString = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...HOSTILE) },
  { weight: 4, arbitrary: fc.constantFrom(...VALID_VALUES) },
  { weight: 2, arbitrary: fc.string({ maxLength: 30 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }) },
  { weight: 1, arbitrary: fc.integer().map(String) },
  { weight: 1, arbitrary: fc.double().map(String) },
);

/**
 * Percent-encodes UTF-8 bytes (a lone surrogate becomes U+FFFD). Raw: only what a URL cannot
 * carry, leaving `%` garbage, `&`, `=` and `/` as sent; otherwise everything but unreserved.
 */
function encoded(text: string, raw: boolean): string {
  const keep = raw ? /[\x21-\x7e]/ : /[A-Za-z0-9\-._~]/;
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const char = String.fromCharCode(byte);
    out +=
      keep.test(char) && char !== '#'
        ? char
        : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** The path with its n-th letter (modulo their count) percent-encoded: the same route. */
function withEncodedLetter(path: string, n: number): string {
  const letters = [...path.matchAll(/[a-z]/g)].map((m) => m.index);
  if (letters.length === 0) return path;
  const at = letters[n % letters.length]!;
  return `${path.slice(0, at)}%${path.charCodeAt(at).toString(16).toUpperCase()}${path.slice(at + 1)}`;
}

/** Header values as an HTTP parser lets them through: visible ASCII, space and tab, obs-text. */
const headerString = fc
  .string({ unit: fc.integer({ min: 0x20, max: 0xff }).map((c) => String.fromCharCode(c)) })
  .filter((s) => !/[\x7f]/.test(s) && s.trim() === s);

const ACCEPTS = [
  ...Object.values(MEDIA_TYPES),
  '*/*',
  'text/*',
  'application/*',
  'text/html',
  'application/problem+json',
  'application/json;q=0',
  'application/json;q=0, text/csv;q=0.5',
  'text/csv;q=abc',
  'garbage',
  ';;;',
  ',,,',
  'application/xml;q=1.5, */*;q=-1',
  'image/png',
];

const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=utf-16',
  'application/json; charset=latin1',
  'application/problem+json',
  'application/vnd.api+json',
  'text/plain',
  'text/plain; charset=utf-8',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/octet-stream',
  'application/xml',
  'garbage',
  '',
  ';',
  'application/json; boundary',
];

const jsonish = fc.oneof(
  { weight: 3, arbitrary: hostileString },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
  { weight: 1, arbitrary: fc.array(hostileString, { maxLength: 5 }) },
  { weight: 1, arbitrary: fc.array(fc.constantFrom(...SCOPES, 'nope'), { maxLength: 12 }) },
  {
    weight: 1,
    arbitrary: fc.array(
      fc.constantFrom('10.0.0.0/8', '::1', '2001:db8::/32', '1.2.3.4', '300.1.1.1', '::/0', '/'),
      { maxLength: 5 },
    ),
  },
  {
    weight: 1,
    arbitrary: fc.array(
      fc.record({ field: hostileString, name: hostileString }, { requiredKeys: [] }),
      { maxLength: 4 },
    ),
  },
  { weight: 1, arbitrary: fc.constantFrom(null, true, 0, -1, 1e308, 2 ** 53 + 1, {}, []) },
);

type Body =
  | { kind: 'none' }
  | { kind: 'object'; fields: [string, unknown][] }
  | { kind: 'raw'; text: string };

const BODY_VALID: Record<string, fc.Arbitrary<unknown>> = {
  email: fc.oneof(
    fc.emailAddress(),
    fc.constantFrom('developer@example.com', 'a@b', 'x'.repeat(250) + '@e.eu', 'n\u0000l@e.eu'),
  ),
  password: fc.constantFrom('a long enough passphrase', 'short', 'p'.repeat(256), 'nul \u0000'),
  plan: fc.constantFrom(...PLAN_IDS),
  name: fc.constantFrom('ci', 'n'.repeat(100), 'tab\there', 'nul\u0000', '\ud800'),
  scopes: fc.subarray([...SCOPES], { minLength: 1 }),
  allowlist: fc.subarray(['10.0.0.0/8', '127.0.0.1', '::1', '2001:db8::/48', '0.0.0.0/0']),
  fields: fc.array(
    fc.record({
      field: fc.constantFrom('median', 'p10', 'country', 'job', 'year', 'nope'),
      name: fc.constantFrom('m', 'median', 'a b', ''),
    }),
    { minLength: 1, maxLength: 3 },
  ),
};

const bodyFor = (names: string[]): fc.Arbitrary<Body> =>
  fc.oneof(
    { weight: 2, arbitrary: fc.constant({ kind: 'none' } as const) },
    {
      weight: 6,
      arbitrary: fc
        .tuple(
          ...names.map((name) =>
            fc.option(
              fc.tuple(
                fc.constant(name),
                fc.oneof(
                  {
                    weight: 4,
                    arbitrary: Object.hasOwn(BODY_VALID, name) ? BODY_VALID[name]! : jsonish,
                  },
                  { weight: 1, arbitrary: jsonish },
                ),
              ),
              { freq: 4, nil: undefined },
            ),
          ),
        )
        .map(
          (fields) => ({ kind: 'object', fields: fields.filter((f) => f !== undefined) }) as const,
        ),
    },
    {
      weight: 2,
      arbitrary: fc
        .array(
          fc.tuple(
            fc.oneof(
              { weight: 5, arbitrary: fc.constantFrom(...names, 'email', 'password', 'plan') },
              { weight: 1, arbitrary: fc.constantFrom('__proto__', 'constructor', 'extra', '') },
            ),
            jsonish,
          ),
          { maxLength: 4 },
        )
        .map((fields) => ({ kind: 'object', fields }) as const),
    },
    {
      weight: 2,
      arbitrary: fc
        .oneof(
          fc.constantFrom(
            '{',
            '{"a":',
            'null',
            '[]',
            '"x"',
            '1',
            '{"__proto__":{"admin":true}}',
            '{"constructor":{"prototype":{"x":1}}}',
            '\u0000',
            '{"email":"a@b.c","password":"x","email":"y"}',
            `{"name":"${'n'.repeat(200_000)}"}`,
            `{"name":"${'n'.repeat(1_100_000)}"}`,
          ),
          // Deep nesting: arrays, objects and mixes, from just inside the depth limit to 200,000.
          fc
            .tuple(fc.integer({ min: 30, max: 200_000 }), fc.constantFrom('[', '{"a":', '[{"a":'))
            .map(([depth, open]) => {
              const close = open === '[' ? ']' : open === '{"a":' ? '}' : '}]';
              return `${open.repeat(depth)}1${close.repeat(depth)}`;
            }),
          fc.json({ maxDepth: 3 }),
          fc.string({ maxLength: 100 }),
        )
        .map((text) => ({ kind: 'raw', text }) as const),
    },
  );

type Credential =
  | { kind: 'none' }
  | { kind: 'garbage'; header: string }
  | { kind: 'key' | 'session' | 'scoped'; plan: PlanId }
  /** An Enterprise key holding this one scope. */
  | { kind: 'single'; scope: Scope };

const credential: fc.Arbitrary<Credential> = fc.oneof(
  { weight: 1, arbitrary: fc.constant({ kind: 'none' } as const) },
  {
    weight: 1,
    arbitrary: fc
      .oneof(
        fc.constantFrom(
          'Bearer',
          'Bearer ',
          'Bearer sk_live_' + 'A'.repeat(43),
          'Bearer sk_live_',
          'Bearer sess_x',
          'Basic dXNlcjpwYXNz',
          'bearer sk_live_x',
          'Bearer ' + 'a'.repeat(600),
          'Bearer a b',
          '',
          // DPoP (RFC 9449): the scheme with no token, an API key, a JWT-shaped token.
          'DPoP',
          'DPoP sk_live_' + 'A'.repeat(43),
          'DPoP eyJhbGciOiJFUzI1NiJ9.eyJ9.' + 'A'.repeat(86),
        ),
        headerString.map((s) => `Bearer ${s}`),
        headerString.map((s) => `DPoP ${s}`),
        headerString,
      )
      .map((header) => ({ kind: 'garbage', header }) as const),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constantFrom('key', 'session', 'scoped'),
      plan: fc.constantFrom(...PLAN_IDS),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('single'), scope: fc.constantFrom(...SCOPES) }),
  },
);

/** `arb` in one case out of `every`, otherwise undefined (the header or part is left out). */
const sometimes = <T>(arb: fc.Arbitrary<T>, every: number): fc.Arbitrary<T | undefined> =>
  fc.oneof({ weight: every - 1, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: arb });

const valueFor = (name: string) =>
  fc.oneof(
    {
      weight: 10,
      arbitrary: fc.constantFrom(
        ...(Object.hasOwn(VALID_BY_NAME, name) ? VALID_BY_NAME[name]! : VALID_VALUES),
      ),
    },
    { weight: 2, arbitrary: hostileString },
  );

const queryParam = (name: string | fc.Arbitrary<string>) =>
  (typeof name === 'string' ? fc.constant(name) : name).chain((n) =>
    fc.record({ name: fc.constant(n), value: valueFor(n), raw: fc.boolean() }),
  );

/** Operations with more inputs get more runs; static pages and unknown paths fewer. */
const operationArb = (ops: Operation[]) =>
  fc.oneof(
    ...ops.map((op) => ({
      weight: 1 + op.query.length + 3 * op.body.length,
      arbitrary: fc.constant(op),
    })),
  );

const requestArb = (ops: Operation[]) =>
  operationArb(ops).chain((op) =>
    fc.record({
      op: fc.constant(op),
      method: fc.oneof(
        { weight: 6, arbitrary: fc.constant(op.method) },
        { weight: 1, arbitrary: fc.constantFrom(...METHODS) },
      ),
      id: fc.oneof(
        { weight: 2, arbitrary: fc.constant(null) },
        { weight: 2, arbitrary: hostileString },
        { weight: 1, arbitrary: fc.constantFrom('key_', 'in_', 'key_x', 'in_x') },
      ),
      rawPath: fc.boolean(),
      /** Percent-encode the n-th letter of the path, which the router decodes (`/%61pi/…`). */
      encodeLetter: sometimes(fc.nat(), 4),
      query: fc
        .tuple(
          fc.tuple(
            ...op.query.map((p) =>
              p.required
                ? fc.oneof({ weight: 12, arbitrary: queryParam(p.name) }, fc.constant(undefined))
                : sometimes(queryParam(p.name), 2),
            ),
          ),
          sometimes(
            fc.array(
              fc.oneof(
                queryParam(fc.constantFrom(...op.query.map((p) => p.name), 'format', 'year')),
                queryParam(
                  fc.constantFrom('__proto__', 'constructor', 'a[b]', 'country[]', '', 'x'),
                ),
              ),
              { minLength: 1, maxLength: 2 },
            ),
            4,
          ),
        )
        .map(([known, extra]) => [...known.filter((p) => p !== undefined), ...(extra ?? [])]),
      trailing: fc.oneof(
        { weight: 8, arbitrary: fc.constant('') },
        { weight: 1, arbitrary: fc.constantFrom('?', '&', '&&', '?&=', '/', '#frag') },
      ),
      accept: sometimes(fc.oneof(fc.constantFrom(...ACCEPTS), headerString), 3),
      credential,
      contentType: sometimes(fc.oneof(fc.constantFrom(...CONTENT_TYPES), headerString), 5),
      idempotencyKey: sometimes(
        fc.oneof(
          { weight: 3, arbitrary: fc.constantFrom('abc', 'retry-1', 'x'.repeat(255)) },
          { weight: 1, arbitrary: fc.constantFrom('x'.repeat(256), ' ', 'é', '') },
          { weight: 1, arbitrary: headerString },
        ),
        3,
      ),
      forwardedFor: sometimes(fc.constantFrom('1.2.3.4', 'garbage', '::1, 10.0.0.1', ''), 4),
      dpop: sometimes(
        fc.oneof(fc.constantFrom('x.y.z', 'eyJ0eXAiOiJkcG9wK2p3dCJ9.e30.', ''), headerString),
        6,
      ),
      remote: fc.ipV4(),
      body:
        op.body.length > 0
          ? bodyFor(op.body)
          : sometimes(bodyFor([]), 5).map((b): Body => b ?? { kind: 'none' }),
    }),
  );

type FuzzRequest = ReturnType<typeof requestArb> extends fc.Arbitrary<infer R> ? R : never;

const SENSIBLE_2XX = [
  ...Object.values(MEDIA_TYPES),
  'text/markdown',
  'text/html',
  'text/css',
  'application/javascript',
  'image/png',
];

const OAUTH_ENDPOINTS = new Set(['/oauth/token', '/oauth/revoke', '/oauth/introspect']);

function checkResponse(
  res: { statusCode: number; headers: Record<string, unknown>; body: string },
  method: Method,
  path: string,
): void {
  const status = res.statusCode;
  const type = String((res.headers['content-type'] as string | undefined) ?? '');
  assert.ok(status < 500, `5xx: ${status} ${res.body.slice(0, 500)}`);
  assert.ok(status >= 200, `status ${status}`);
  // The OAuth endpoints answer their own errors as RFC 6749 §5.2 says.
  if (status >= 400 && OAUTH_ENDPOINTS.has(path) && !type.startsWith('application/problem+json')) {
    assert.match(type, /^application\/json/, `an OAuth error is JSON: ${type}`);
    assert.equal(res.headers['cache-control'], 'no-store');
    if (method === 'HEAD') return;
    const body = JSON.parse(res.body) as Record<string, unknown>;
    assert.match(String(body.error), /^[a-z_]+$/, 'an RFC 6749 error code');
    assert.equal(typeof body.error_description, 'string');
    return;
  }
  if (status >= 400) {
    assert.match(type, /^application\/problem\+json/, `a ${status} is problem+json: ${type}`);
    if (method === 'HEAD') return;
    const problem = JSON.parse(res.body) as Record<string, unknown>;
    assert.equal(
      problem.status,
      status,
      `problem status matches the HTTP status: ${method} ${path} ${res.body.slice(0, 300)}`,
    );
    assert.equal(typeof problem.type, 'string');
    assert.equal(typeof problem.title, 'string');
    assert.equal(typeof problem.detail, 'string');
    const code = problem.code as ErrorCode;
    assert.ok(code in ERROR_CODES, `known code ${String(code)}`);
    assert.equal(ERROR_CODES[code].status, status, `${code} has status ${status}`);
    assert.equal(ERROR_CODES[code].title, problem.title);
    assert.equal(
      problem.type,
      problemType(code, 'http://localhost:80'),
      'the type URI of the code',
    );
    return;
  }
  if (status >= 300) {
    assert.ok(res.headers.location !== undefined, `a ${status} names a location`);
    return;
  }
  if (status === 204) {
    assert.equal(res.body, '');
    return;
  }
  assert.ok(
    SENSIBLE_2XX.some((t) => type.startsWith(t)),
    `a ${status} has a sensible content type: ${type}`,
  );
  if (type.startsWith('application/json') && method !== 'HEAD') JSON.parse(res.body);
}

describe('fuzz: every endpoint, hostile input', () => {
  let t: TestApp;
  let ops: Operation[];
  /** Read-only callers for GET and HEAD; anything that may change state gets a fresh account. */
  type Caller = Awaited<ReturnType<typeof accountOnPlan>> & { scoped: string };
  const shared = new Map<PlanId, Caller>();
  /** One Enterprise account with a key per single scope (`single` credentials). */
  let singles: Awaited<ReturnType<typeof accountOnPlan>>;
  const singleKey = new Map<Scope, string>();

  async function caller(plan: PlanId): Promise<Caller> {
    const account = await accountOnPlan(t, plan);
    let scoped = account.session;
    if (plan === 'enterprise') {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/keys',
        headers: { authorization: `Bearer ${account.session}` },
        payload: { name: 'scoped', scopes: ['salary:read', 'usage:read'] },
      });
      scoped = res.json<{ key: string }>().key;
    }
    return { ...account, scoped };
  }

  before(async () => {
    t = await buildTestApp();
    ops = operationsOf(t.app.swagger() as Parameters<typeof operationsOf>[0]);
    for (const plan of PLAN_IDS) shared.set(plan, await caller(plan));
    singles = await accountOnPlan(t, 'enterprise');
    for (const scope of SCOPES) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/keys',
        headers: { authorization: `Bearer ${singles.session}` },
        payload: { name: scope, scopes: [scope] },
      });
      singleKey.set(scope, res.json<{ key: string }>().key);
    }
  });
  after(() => t.close());

  /** Sends `r`; a valid credential is `account`'s, or a fresh account's for a change. */
  async function send(r: FuzzRequest, account?: Caller) {
    const c = r.credential;
    let authorization: string | undefined;
    let accountId: string | undefined;
    let session: string | undefined;
    if (c.kind === 'garbage') authorization = c.header;
    else if (c.kind === 'single') {
      authorization = `Bearer ${singleKey.get(c.scope)}`;
      accountId = singles.accountId;
      session = singles.session;
    } else if (c.kind !== 'none') {
      const mutating = r.method !== 'GET' && r.method !== 'HEAD';
      const who = account ?? (mutating ? await caller(c.plan) : shared.get(c.plan)!);
      const token = c.kind === 'key' ? who.apiKey : c.kind === 'scoped' ? who.scoped : who.session;
      authorization = `Bearer ${token ?? who.session}`;
      accountId = who.accountId;
      session = who.session;
    }
    let id = r.id === null ? 'x' : encoded(r.id, r.rawPath);
    if (r.id === null && accountId !== undefined && session !== undefined) {
      // The caller's own key or invoice, so handlers past validation run too.
      const list = r.op.path.includes('invoices') ? 'invoices' : 'keys';
      const res = await t.app.inject({
        url: `/api/v1/${list}`,
        headers: { authorization: `Bearer ${session}` },
      });
      const first = res.json<{ data?: { id: string }[] }>().data?.[0];
      if (first !== undefined) id = first.id;
    }
    const filled = r.op.path.replaceAll('{id}', id);
    const path = r.encodeLetter === undefined ? filled : withEncodedLetter(filled, r.encodeLetter);
    const query = r.query
      .map((p) => `${encoded(p.name, p.raw)}=${encoded(p.value, p.raw)}`)
      .join('&');
    const url = `${path}${query === '' ? '' : `?${query}`}${r.trailing}`;
    const headers: Record<string, string> = {};
    if (authorization !== undefined) headers.authorization = authorization;
    if (r.accept !== undefined) headers.accept = r.accept;
    if (r.contentType !== undefined) headers['content-type'] = r.contentType;
    if (r.idempotencyKey !== undefined) headers['idempotency-key'] = r.idempotencyKey;
    if (r.forwardedFor !== undefined) headers['x-forwarded-for'] = r.forwardedFor;
    if (r.dpop !== undefined) headers.dpop = r.dpop;
    let payload: string | undefined;
    if (r.body.kind === 'raw') payload = r.body.text;
    if (r.body.kind === 'object') {
      const body: Record<string, unknown> = {};
      for (const [k, v] of r.body.fields)
        Object.defineProperty(body, k, {
          value: v,
          enumerable: true,
          configurable: true,
          writable: true,
        });
      payload = JSON.stringify(body);
    }
    if (payload !== undefined && headers['content-type'] === undefined) {
      headers['content-type'] = 'application/json';
    }
    return t.app.inject({ method: r.method, url, headers, payload, remoteAddress: r.remote });
  }

  it('never answers 5xx; every 4xx is problem+json matching its status; a 2xx says its type', async () => {
    await fc.assert(
      fc.asyncProperty(requestArb(ops), async (r) => {
        const res = await send(r);
        if (!EXPLORE) {
          checkResponse(res, r.method, r.op.path);
          return;
        }
        const problem = res.statusCode >= 400 && r.method !== 'HEAD';
        const code = problem ? res.json<{ code?: string }>().code : '';
        console.log('STAT', r.method, r.op.path, res.statusCode, code);
        try {
          checkResponse(res, r.method, r.op.path);
        } catch (error) {
          console.log(
            'FAIL',
            (error as Error).message.slice(0, 300),
            JSON.stringify(r).slice(0, 2000),
          );
        }
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: process.env.FUZZ_SHRINK === undefined },
    );
  });

  it('never answers 5xx to a sequence of requests on one account, nor to a POST retried with its Idempotency-Key', async () => {
    const api = ops.filter((o) => o.path.startsWith('/api/v1/'));
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...PLAN_IDS),
        fc.array(requestArb(api), { minLength: 2, maxLength: 6 }),
        async (plan, requests) => {
          const account = await caller(plan);
          for (const r of requests) {
            checkResponse(await send(r, account), r.method, r.op.path);
            if (r.method === 'POST' && r.idempotencyKey !== undefined) {
              checkResponse(await send(r, account), r.method, r.op.path);
            }
          }
        },
      ),
      { seed: SEED, numRuns: SEQUENCES, endOnFailure: process.env.FUZZ_SHRINK === undefined },
    );
  });

  it('every route × a key with each single scope, on its plain and percent-encoded path: never 5xx', async () => {
    for (const op of ops) {
      for (const scope of SCOPES) {
        for (const encodeLetter of [undefined, 0, 1, 5]) {
          const r = fc.sample(requestArb([op]), { numRuns: 1, seed: SEED })[0]!;
          const request = { ...r, method: op.method, credential: { kind: 'single', scope } };
          const res = await send({ ...request, encodeLetter } as FuzzRequest);
          checkResponse(res, op.method, op.path);
        }
      }
    }
  });

  it('takes the routes from the OpenAPI document, so a new route is fuzzed without a change here', () => {
    const paths = new Set(ops.map((o) => `${o.method} ${o.path}`));
    for (const route of ['GET /api/v1/salary', 'POST /api/v1/keys', 'PATCH /api/v1/keys/{id}']) {
      assert.ok(paths.has(route), route);
    }
    assert.ok(ops.length > 30, `${ops.length} operations`);
  });
});
