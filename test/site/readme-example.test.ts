// The README's first example is the answer the server gives today: the figures shown are the
// bundled active release's, for the query the example sends, without a key.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { listenHttp, type HttpCall } from '../helpers/http.js';

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

describe("the README's first example", () => {
  let t: TestApp;
  let call: HttpCall;
  before(async () => {
    t = await buildTestApp();
    ({ call } = await listenHttp(t));
  });
  after(() => t.close());

  it('shows the record the server answers for its query, field for field', async () => {
    const query = /curl "http:\/\/127\.0\.0\.1:3000(\/api\/v1\/salary\?[^"]+)"/.exec(README)?.[1];
    assert.ok(query !== undefined, 'the README has a curl example of the lookup');
    const shown = JSON.parse(/```json\n([\s\S]*?)\n```/.exec(README)![1]!) as {
      data: Record<string, unknown>[];
      meta: { release: { version: string } };
    };
    const res = await call('GET', query);
    assert.equal(res.status, 200, res.body);
    const served = res.json() as typeof shown;
    assert.deepEqual(shown.data, served.data);
    assert.equal(shown.meta.release.version, served.meta.release.version);
  });
});
