import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { ERROR_CODES, problemType } from '../../src/errors/index.js';
import { nulPath } from '../../src/http/nul-guard.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { accountOnPlan } from '../helpers/accounts.js';

const doc = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');

describe('error registry', () => {
  it('docs/errors.md lists every code with its status and title, and a section per type', () => {
    for (const [code, { status, title }] of Object.entries(ERROR_CODES)) {
      const row = new RegExp(`^\\|\\s*${code}\\s*\\|\\s*${status}\\s*\\|\\s*${title}\\s*\\|$`, 'm');
      assert.match(doc, row, `table row for ${code}`);
      const anchor = problemType(code as keyof typeof ERROR_CODES).split('#')[1];
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
      assert.equal(body.type, problemType(c.code as keyof typeof ERROR_CODES));
      assert.equal(body.status, c.status);
      assert.equal(typeof body.detail, 'string');
      assert.equal(body.request_id, res.headers['x-request-id']);
    });
  }

  it('gives every response a distinct request id', async () => {
    const a = await t.app.inject('/health');
    const b = await t.app.inject('/health');
    assert.match(String(a.headers['x-request-id']), /^req_[0-9a-f]{12}[0-9a-z]{6,}$/);
    assert.notEqual(a.headers['x-request-id'], b.headers['x-request-id']);
  });
});

describe('U+0000 (NUL) in a request body', () => {
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

  // Found by test/fuzz: PostgreSQL text cannot hold NUL, so these were database errors (500).
  const cases: {
    method: 'POST' | 'PATCH';
    url: () => string;
    auth: boolean;
    payload: object;
    name: string;
    label?: string;
  }[] = [
    {
      method: 'POST',
      url: () => '/api/v1/keys',
      auth: true,
      payload: { name: 'a\u0000b' },
      name: 'name',
    },
    {
      method: 'PATCH',
      url: () => `/api/v1/keys/${keyId}`,
      label: '/api/v1/keys/:id',
      auth: true,
      payload: { name: 'nul\u0000' },
      name: 'name',
    },
    {
      method: 'POST',
      url: () => '/api/v1/accounts',
      auth: false,
      payload: { email: 'n\u0000l@example.com', password: 'a long enough passphrase' },
      name: 'email',
    },
    {
      method: 'POST',
      url: () => '/api/v1/sessions',
      auth: false,
      payload: { email: 'n\u0000l@example.com', password: 'a long enough passphrase' },
      name: 'email',
    },
  ];
  for (const c of cases) {
    it(`${c.method} ${c.label ?? c.url()} with NUL in ${c.name} is 400 INVALID_BODY naming the field`, async () => {
      const res = await t.app.inject({
        method: c.method,
        url: c.url(),
        headers: c.auth ? { authorization: `Bearer ${ent.session}` } : {},
        payload: c.payload,
      });
      assert.equal(res.statusCode, 400, res.body);
      assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
      const body = res.json();
      assert.equal(body.code, 'INVALID_BODY');
      assert.deepEqual(body.invalid_params, [
        { name: c.name, reason: 'must not contain U+0000 (NUL)' },
      ]);
    });
  }

  it('finds NUL in nested values and in keys', () => {
    assert.equal(nulPath({ fields: [{ field: 'median', name: 'x\u0000' }] }), 'fields/0/name');
    assert.equal(nulPath({ 'a\u0000': 1 }), 'a\u0000');
    assert.equal(nulPath('\u0000'), '(body)');
    assert.equal(nulPath({ name: 'tab\there', list: [1, null, true] }), undefined);
  });
});
