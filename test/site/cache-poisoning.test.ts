// Pages that write the server's address into their examples must not let a request choose it
// for the next reader: a shared cache would keep the poisoned copy. Real HTTP, headers set as
// an attacker would (Host, X-Forwarded-Host, X-Forwarded-Proto).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { listenHttp } from '../helpers/http.js';

const PAGES = ['/', '/docs/quick-start'];

/** A GET over real HTTP with any headers, Host included (fetch would not send a Host of ours). */
function get(
  base: string,
  path: string,
  headers: Record<string, string>,
): Promise<{
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, base), { headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

const ATTACK = {
  host: 'evil.example',
  'x-forwarded-host': 'evil.example',
  'x-forwarded-proto': 'javascript',
};

describe('page examples with PUBLIC_BASE_URL set', () => {
  let t: TestApp;
  let base: string;
  before(async () => {
    t = await buildTestApp({
      env: { PUBLIC_BASE_URL: 'https://api.example.com', TRUST_PROXY: '127.0.0.1' },
    });
    ({ base } = await listenHttp(t));
  });
  after(() => t.close());

  for (const path of PAGES) {
    it(`${path} names PUBLIC_BASE_URL whatever Host and X-Forwarded-* say`, async () => {
      const res = await get(base, path, ATTACK);
      assert.equal(res.status, 200);
      assert.doesNotMatch(res.body, /evil\.example|javascript:/);
      assert.match(res.body, /(curl (&quot;|")|export BASE=)https:\/\/api\.example\.com/);
    });
  }
});

describe('page examples without PUBLIC_BASE_URL', () => {
  let t: TestApp;
  let base: string;
  before(async () => {
    t = await buildTestApp({ env: { TRUST_PROXY: '127.0.0.1' } });
    ({ base } = await listenHttp(t));
  });
  after(() => t.close());

  for (const path of PAGES) {
    it(`${path} varies on the headers it reads, and copies no scheme but http or https`, async () => {
      const res = await get(base, path, ATTACK);
      assert.equal(res.status, 200);
      const vary = String(res.headers.vary ?? '').toLowerCase();
      for (const name of ['host', 'x-forwarded-host', 'x-forwarded-proto'])
        assert.ok(vary.split(/\s*,\s*/).includes(name), `Vary names ${name}: "${vary}"`);
      assert.doesNotMatch(res.body, /javascript:/);
      // A trusted proxy's forwarded host that is not a host name is never copied either.
      const odd = await get(base, path, { host: 'ok.example', 'x-forwarded-host': 'a.example/x' });
      assert.doesNotMatch(odd.body, /a\.example\/x/);
    });
  }
});

describe('the nginx example in docs/cli.md', () => {
  it('sets X-Forwarded-Host and X-Forwarded-Proto itself, so no client’s value passes through', () => {
    const nginx = /```nginx\n([\s\S]*?)```/.exec(
      readFileSync(new URL('../../docs/cli.md', import.meta.url), 'utf8'),
    )?.[1];
    assert.ok(nginx !== undefined);
    assert.match(nginx, /proxy_set_header X-Forwarded-Host \$host;/);
    assert.match(nginx, /proxy_set_header X-Forwarded-Proto \$scheme;/);
  });
});
