import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { ERROR_CODES, errorSlug, problemType } from '../../src/errors/index.js';
import { unstorableText } from '../../src/http/text-guard.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { accountOnPlan } from '../helpers/accounts.js';

const doc = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');

describe('error registry', () => {
  it('docs/errors.md lists every code with its status and title, and a section per type', () => {
    for (const [code, { status, title }] of Object.entries(ERROR_CODES)) {
      const row = new RegExp(`^\\|\\s*${code}\\s*\\|\\s*${status}\\s*\\|\\s*${title}\\s*\\|$`, 'm');
      assert.match(doc, row, `table row for ${code}`);
      const anchor = errorSlug(code as keyof typeof ERROR_CODES);
      assert.ok(doc.includes(`\n## ${anchor}\n`), `section ## ${anchor}`);
    }
    const rows = doc.match(/^\|\s*[A-Z_]+\s*\|\s*\d{3}\s*\|/gm) ?? [];
    assert.equal(
      rows.length,
      Object.keys(ERROR_CODES).length,
      'no documented code missing from the registry',
    );
  });
});

describe('problem+json for framework errors', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(() => t.close());

  const cases: {
    name: string;
    method: 'GET' | 'POST' | 'DELETE';
    url: string;
    status: number;
    code: string;
    headers?: Record<string, string>;
    payload?: string;
  }[] = [
    { name: 'unknown path', method: 'GET', url: '/api/v1/nothing', status: 404, code: 'NOT_FOUND' },
    {
      name: 'unknown method on a path',
      method: 'DELETE',
      url: '/api/v1/salary',
      status: 405,
      code: 'METHOD_NOT_ALLOWED',
    },
    {
      name: 'malformed percent-encoding',
      method: 'GET',
      url: '/api/v1/salary?country=%E0%A4%A&job=nurse',
      status: 400,
      code: 'INVALID_PARAMETER',
    },
    {
      name: 'parameter on a catalogue endpoint',
      method: 'GET',
      url: '/api/v1/countries?page=2',
      status: 400,
      code: 'INVALID_PARAMETER',
    },
    {
      name: 'malformed JSON body',
      method: 'POST',
      url: '/api/v1/salary',
      status: 400,
      code: 'INVALID_BODY',
      headers: { 'content-type': 'application/json' },
      payload: '{',
    },
    {
      name: 'a text body where JSON is read',
      method: 'POST',
      url: '/api/v1/sessions',
      status: 415,
      code: 'UNSUPPORTED_MEDIA_TYPE',
      headers: { 'content-type': 'text/plain' },
      payload: 'country=DE',
    },
    {
      name: 'oversized body',
      method: 'POST',
      url: '/api/v1/salary',
      status: 413,
      code: 'PAYLOAD_TOO_LARGE',
      headers: { 'content-type': 'application/json' },
      payload: `"${'x'.repeat(1_100_000)}"`,
    },
  ];
  for (const c of cases) {
    it(`renders ${c.name} as problem+json ${c.status}`, async () => {
      const res = await t.app.inject({
        method: c.method,
        url: c.url,
        headers: c.headers,
        payload: c.payload,
      });
      assert.equal(res.statusCode, c.status, res.body);
      assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
      const body = res.json();
      assert.equal(body.code, c.code);
      assert.equal(
        body.type,
        problemType(c.code as keyof typeof ERROR_CODES, 'http://localhost:80'),
      );
      assert.equal(body.status, c.status);
      assert.equal(typeof body.detail, 'string');
      assert.equal(body.request_id, res.headers['x-request-id']);
    });
  }

  it('repeats at most a short excerpt of a long path, in the detail and the instance', async () => {
    // A path parameter past maxParamLength is a parse error quoting the path (it was echoed
    // whole, twice: a 5,000-character path gave a 10 KB answer).
    const long = `run_${'a'.repeat(5_000)}`;
    for (const url of [`/api/v1/exports/files/${long}?expires=1&signature=x`, `/api/v1/${long}`]) {
      const res = await t.app.inject({ method: 'GET', url });
      assert.ok(res.statusCode >= 400 && res.statusCode < 500, `${res.statusCode}`);
      assert.ok(res.body.length < 1_500, `${res.body.length} bytes: ${res.body.slice(0, 200)}`);
      const body = res.json<{ detail: string; instance: string }>();
      assert.ok(body.instance.endsWith('…') && body.instance.length <= 301, body.instance);
    }
  });

  it('gives every response a distinct request id', async () => {
    const a = await t.app.inject('/health');
    const b = await t.app.inject('/health');
    assert.match(String(a.headers['x-request-id']), /^req_[0-9a-f]{12}[0-9a-z]{6,}$/);
    assert.notEqual(a.headers['x-request-id'], b.headers['x-request-id']);
  });
});

describe('text the database cannot store in a request body', () => {
  let t: TestApp;
  let ent: Awaited<ReturnType<typeof accountOnPlan>>;
  let keyId: string;
  before(async () => {
    t = await buildTestApp();
    ent = await accountOnPlan(t, 'enterprise');
    const keys = await t.app.inject({
      url: '/api/v1/keys',
      headers: { authorization: `Bearer ${ent.session}` },
    });
    keyId = keys.json<{ data: { id: string }[] }>().data[0]!.id;
  });
  after(() => t.close());

  const NUL = 'must not contain U+0000 (NUL)';
  const SURROGATE = 'must be well-formed Unicode (it holds a lone surrogate)';
  const credentials = '"password":"a long enough passphrase"';
  // Found by test/fuzz: PostgreSQL text cannot hold NUL and jsonb refuses a lone surrogate, so
  // these were database errors (500).
  const cases: {
    method: 'POST' | 'PATCH';
    path: string;
    auth: boolean;
    payload: string;
    name: string;
    reason: string;
  }[] = [
    {
      method: 'POST',
      path: '/api/v1/keys',
      auth: true,
      payload: '{"name":"a\\u0000b"}',
      name: 'name',
      reason: NUL,
    },
    {
      method: 'PATCH',
      path: '/api/v1/keys/:id',
      auth: true,
      payload: '{"name":"nul\\u0000"}',
      name: 'name',
      reason: NUL,
    },
    {
      method: 'PATCH',
      path: '/api/v1/keys/:id',
      auth: true,
      payload: '{"name":"\\ud800"}',
      name: 'name',
      reason: SURROGATE,
    },
    {
      method: 'POST',
      path: '/api/v1/accounts',
      auth: false,
      payload: `{"email":"n\\u0000l@example.com",${credentials}}`,
      name: 'email',
      reason: NUL,
    },
    {
      method: 'POST',
      path: '/api/v1/sessions',
      auth: false,
      payload: `{"email":"n\\u0000l@example.com",${credentials}}`,
      name: 'email',
      reason: NUL,
    },
  ];
  for (const c of cases) {
    it(`${c.method} ${c.path} with ${c.payload} is 400 INVALID_BODY naming the field`, async () => {
      const res = await t.app.inject({
        method: c.method,
        url: c.path.replace(':id', keyId),
        headers: {
          'content-type': 'application/json',
          ...(c.auth ? { authorization: `Bearer ${ent.session}` } : {}),
        },
        payload: c.payload,
      });
      assert.equal(res.statusCode, 400, res.body);
      assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
      const body = res.json();
      assert.equal(body.code, 'INVALID_BODY');
      assert.deepEqual(body.invalid_params, [{ name: c.name, reason: c.reason }]);
    });
  }

  it('finds such text in nested values and in keys, and lets surrogate pairs through', () => {
    assert.deepEqual(unstorableText({ fields: [{ field: 'median', name: 'x\u0000' }] }), {
      name: 'fields/0/name',
      reason: NUL,
    });
    assert.deepEqual(unstorableText({ ['a\udc00']: 1 }), { name: 'a\udc00', reason: SURROGATE });
    assert.deepEqual(unstorableText('\u0000'), { name: '(body)', reason: NUL });
    assert.equal(unstorableText({ name: 'tab\there 💸 ẞ', list: [1, null, true] }), undefined);
  });
});
