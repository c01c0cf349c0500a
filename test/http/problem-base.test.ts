// A refusal reused as one error object (the unknown-credential 401) is serialized once per path
// and problem-type base: the same refusal on two host names names each its own base.
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { listenHttp } from '../helpers/http.js';

/** GET `path` with the Host header `host`; the status and parsed body. */
function get(base: string, path: string, host: string, token: string) {
  return new Promise<{ status: number; body: Record<string, unknown> }>((resolve, reject) => {
    const req = request(`${base}${path}`, {
      headers: { host, authorization: `Bearer ${token}` },
    });
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as Record<string, unknown> }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

describe('problem documents of reused refusals', () => {
  let t: TestApp;
  let base: string;
  before(async () => {
    t = await buildTestApp();
    ({ base } = await listenHttp(t));
  });
  after(() => t.close());

  it('name the base of the host each was asked on, not the one serialized first', async () => {
    const unknown = `sk_live_${'x'.repeat(43)}`;
    const path = '/api/v1/countries';
    for (const host of ['data.licensee.example', 'api.example.eu', 'data.licensee.example']) {
      const res = await get(base, path, host, unknown);
      assert.equal(res.status, 401);
      assert.equal(res.body.type, `http://${host}/errors/unauthenticated`, host);
    }
  });
});
