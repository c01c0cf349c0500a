import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SCOPES, type Scope } from '../../src/auth/index.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { accountOnPlan } from '../helpers/accounts.js';

/**
 * What each operation of the OpenAPI document needs, written out here rather than read from
 * the routes, so a route that declares a wrong scope (or a new route nobody classified) fails.
 * `public`: anyone, with or without credentials; `data`: anonymous callers too; `account`:
 * a session or key.
 */
type Need = 'public' | ['data' | 'account', Scope];
const NEEDS: Record<string, Need> = {
  'GET /health': 'public',
  'GET /ready': 'public',
  'GET /methodology': 'public',
  'GET /methodology.md': 'public',
  'GET /api/v1/countries': ['data', 'salary:read'],
  'GET /api/v1/jobs': ['data', 'salary:read'],
  'GET /api/v1/releases': ['data', 'salary:read'],
  'GET /api/v1/releases/{version}': ['data', 'salary:read'],
  'GET /api/v1/releases/{version}/changes': ['data', 'salary:read'],
  'GET /api/v1/salary': ['data', 'salary:read'],
  'GET /api/v1/salary/history': ['data', 'salary:read'],
  'GET /api/v1/salary/position': ['data', 'salary:read'],
  'GET /api/v1/bulk/countries': ['data', 'bulk:read'],
  'GET /api/v1/bulk/jobs': ['data', 'bulk:read'],
  'GET /api/v1/bulk/archive': ['data', 'bulk:read'],
  'POST /api/v1/accounts': 'public',
  'POST /api/v1/sessions': 'public',
  'POST /api/v1/sessions/totp': 'public',
  'POST /api/v1/password-reset': 'public',
  'POST /api/v1/password-reset/confirm': 'public',
  'POST /api/v1/email-verification': 'public',
  'POST /api/v1/account/email-verification': ['account', 'account:write'],
  'DELETE /api/v1/sessions/current': ['account', 'account:write'],
  'GET /api/v1/account': ['account', 'account:read'],
  'PUT /api/v1/account/allowlist': ['account', 'account:write'],
  'GET /api/v1/account/schema': ['account', 'account:read'],
  'PUT /api/v1/account/schema': ['account', 'account:write'],
  'DELETE /api/v1/account/schema': ['account', 'account:write'],
  'GET /api/v1/account/audit-log': ['account', 'account:read'],
  'GET /api/v1/account/export': ['account', 'account:read'],
  'POST /api/v1/account/deletion': ['account', 'account:write'],
  'POST /api/v1/keys': ['account', 'keys:write'],
  'GET /api/v1/keys': ['account', 'keys:read'],
  'GET /api/v1/keys/{id}': ['account', 'keys:read'],
  'PATCH /api/v1/keys/{id}': ['account', 'keys:write'],
  'DELETE /api/v1/keys/{id}': ['account', 'keys:write'],
  'POST /api/v1/keys/{id}/rotate': ['account', 'keys:write'],
  'GET /api/v1/subscription': ['account', 'billing:read'],
  'POST /api/v1/subscription': ['account', 'billing:write'],
  'DELETE /api/v1/subscription': ['account', 'billing:write'],
  'GET /api/v1/invoices': ['account', 'billing:read'],
  'GET /api/v1/invoices/{id}': ['account', 'billing:read'],
  'GET /api/v1/balance': ['account', 'billing:read'],
  'GET /api/v1/account/billing-details': ['account', 'billing:read'],
  'PUT /api/v1/account/billing-details': ['account', 'billing:write'],
  'GET /api/v1/billing/mandate': ['account', 'billing:read'],
  'PUT /api/v1/billing/mandate': ['account', 'billing:write'],
  'DELETE /api/v1/billing/mandate': ['account', 'billing:write'],
  'GET /api/v1/usage': ['account', 'usage:read'],
  'POST /api/v1/support/requests': ['account', 'account:write'],
  'GET /api/v1/account/contacts': ['account', 'account:read'],
  'PATCH /api/v1/account/contacts': ['account', 'account:write'],
  'POST /api/v1/account/password': ['account', 'account:write'],
  'POST /api/v1/oauth/clients': ['account', 'oauth:write'],
  'GET /api/v1/oauth/clients': ['account', 'oauth:read'],
  'GET /api/v1/oauth/clients/{id}': ['account', 'oauth:read'],
  'PATCH /api/v1/oauth/clients/{id}': ['account', 'oauth:write'],
  'DELETE /api/v1/oauth/clients/{id}': ['account', 'oauth:write'],
  'POST /api/v1/oauth/clients/{id}/rotate-secret': ['account', 'oauth:write'],
  'POST /api/v1/webhooks': ['account', 'webhooks:write'],
  'GET /api/v1/webhooks': ['account', 'webhooks:read'],
  'GET /api/v1/webhooks/{id}': ['account', 'webhooks:read'],
  'PATCH /api/v1/webhooks/{id}': ['account', 'webhooks:write'],
  'DELETE /api/v1/webhooks/{id}': ['account', 'webhooks:write'],
  'POST /api/v1/webhooks/{id}/rotate-secret': ['account', 'webhooks:write'],
  'POST /api/v1/webhooks/{id}/test': ['account', 'webhooks:write'],
  'GET /api/v1/webhooks/{id}/deliveries': ['account', 'webhooks:read'],
  'POST /api/v1/webhooks/{id}/deliveries/{delivery_id}/redeliver': ['account', 'webhooks:write'],
  'POST /api/v1/exports': ['account', 'exports:write'],
  'GET /api/v1/exports': ['account', 'exports:read'],
  'POST /api/v1/exports/test-destination': ['account', 'exports:write'],
  'GET /api/v1/exports/runs/{run_id}': ['account', 'exports:read'],
  'GET /api/v1/exports/{id}': ['account', 'exports:read'],
  'PATCH /api/v1/exports/{id}': ['account', 'exports:write'],
  'DELETE /api/v1/exports/{id}': ['account', 'exports:write'],
  'POST /api/v1/exports/{id}/run': ['account', 'exports:write'],
  'GET /api/v1/exports/{id}/runs': ['account', 'exports:read'],
  // Compliance.
  'GET /api/v1/compliance/documents': ['account', 'compliance:read'],
  'GET /api/v1/compliance/documents/{id}': ['account', 'compliance:read'],
  'GET /api/v1/compliance/access-review': ['account', 'compliance:read'],
  'GET /api/v1/custom-endpoints': ['account', 'account:read'],
  'POST /api/v1/custom-endpoints': ['account', 'account:write'],
  'GET /api/v1/custom-endpoints/{id}': ['account', 'account:read'],
  'PUT /api/v1/custom-endpoints/{id}': ['account', 'account:write'],
  'DELETE /api/v1/custom-endpoints/{id}': ['account', 'account:write'],
  'GET /api/v1/custom/openapi.json': ['account', 'account:read'],
  'GET /api/v1/custom/{slug}': ['data', 'salary:read'],
  'GET /api/v1/account/license': ['account', 'account:read'],
  'GET /api/v1/exports/files/{run_id}': 'public',
  // Uptime SLA: the account's measurement reads like usage; the status is public.
  'GET /api/v1/sla': ['account', 'usage:read'],
  'GET /api/v1/sla/intervals': ['account', 'usage:read'],
  'GET /api/v1/status': 'public',
};

/** Ending the caller's own subscription and session come last, so the others run first. */
const LAST = ['DELETE /api/v1/subscription', 'DELETE /api/v1/sessions/current'];

describe('scopes: every route of the OpenAPI document × a key holding each single scope', () => {
  let t: TestApp;
  let session: string;
  const keyWith = new Map<Scope, string>();
  let operations: string[];

  before(async () => {
    t = await buildTestApp();
    const ent = await accountOnPlan(t, 'enterprise');
    session = ent.session;
    for (const scope of SCOPES) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/keys',
        headers: { authorization: `Bearer ${session}` },
        payload: { name: scope, scopes: [scope] },
      });
      assert.equal(res.statusCode, 201, res.body);
      keyWith.set(scope, res.json<{ key: string }>().key);
    }
    const doc = t.app.swagger() as { paths: Record<string, Record<string, unknown>> };
    operations = Object.entries(doc.paths)
      .flatMap(([path, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${path}`))
      .sort((a, b) => LAST.indexOf(a) - LAST.indexOf(b));
  });
  after(() => t.close());

  const call = (operation: string, token?: string) => {
    const [method, path] = operation.split(' ') as [string, string];
    return t.app.inject({
      method: method as 'GET',
      url: path.replace(/\{[a-z_]+\}/g, 'x'),
      headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
    });
  };

  it('bulk in every format needs bulk:read: a salary:read key gets no Parquet or CSV archive', async () => {
    for (const format of ['parquet', 'csv', 'json']) {
      const url = `/api/v1/bulk/archive?format=${format}`;
      const refused = await call(`GET ${url}`, keyWith.get('salary:read'));
      assert.equal(refused.statusCode, 403, refused.body);
      assert.equal(refused.json<{ required_scope: string }>().required_scope, 'bulk:read');
      assert.equal((await call(`GET ${url}`, keyWith.get('bulk:read'))).statusCode, 200);
    }
  });

  it('classifies every operation of the OpenAPI document, and nothing else', () => {
    assert.deepEqual([...operations].sort(), Object.keys(NEEDS).sort());
  });

  it('a key passes exactly where its scope is the route’s; public routes are open; sessions pass all', async () => {
    const wrong: string[] = [];
    for (const operation of operations) {
      const need = NEEDS[operation]!;
      const callers: [string, string | undefined, boolean][] = [
        ...SCOPES.map((s): [string, string, boolean] => [
          s,
          keyWith.get(s)!,
          need === 'public' || need[1] === s,
        ]),
        ['no credential', undefined, need === 'public' || need[0] === 'data'],
        ['session', session, true],
      ];
      for (const [who, token, allowed] of callers) {
        const res = await call(operation, token);
        const code = res.statusCode >= 400 ? res.json<{ code?: string }>().code : undefined;
        const refused = res.statusCode === 401 || code === 'SCOPE_MISSING';
        if (res.statusCode >= 500 || refused === allowed)
          wrong.push(`${operation} as ${who}: ${res.statusCode} ${code ?? ''}`);
        const required = code === 'SCOPE_MISSING' && res.json<{ required_scope: string }>();
        if (required && need !== 'public' && required.required_scope !== need[1])
          wrong.push(`${operation} as ${who}: names ${required.required_scope}`);
      }
    }
    assert.deepEqual(wrong, []);
  });
});
