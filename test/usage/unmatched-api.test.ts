// A request under /api/v1 that no route matches is still an API request: counted in usage (and,
// by the same observer, in the SLA counts), over real HTTP. No route means no authentication,
// so it is counted as anonymous, under the endpoint "GET (unmatched)".
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { accountOnPlan } from '../helpers/accounts.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { listenHttp, type HttpCall } from '../helpers/http.js';
import { until } from '../helpers/wait.js';

describe('unmatched /api/v1 requests', () => {
  let t: TestApp;
  let call: HttpCall;
  before(async () => {
    t = await buildTestApp();
    ({ call } = await listenHttp(t));
  });
  after(() => t.close());

  it('count in usage as unmatched API requests', async () => {
    const { apiKey } = await accountOnPlan(t, 'business');
    const counted = () =>
      t.recorder
        .pending('')
        .filter((r) => r.status === 404 && r.endpoint === 'GET (unmatched)')
        .reduce((n, r) => n + r.count, 0);
    const before = counted();
    for (const path of ['/api/v1/no-such-endpoint', '/api/v1/salary/x/y/z']) {
      const res = await call('GET', path, { token: apiKey! });
      assert.equal(res.status, 404, path);
    }
    // Counted once the answer is sent (onResponse), a moment after the client has read it.
    await until(() => counted() >= before + 2);
    assert.equal(counted(), before + 2);
  });
});
