// /mcp as an outside attacker meets it, over real HTTP: DNS rebinding (Origin, Host), protocol
// messages without bound, JSON-RPC batches with repeated ids, and the limit headers every
// limited answer carries.
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { accountOnPlan } from '../helpers/accounts.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { listenHttp } from '../helpers/http.js';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A POST to /mcp over real HTTP, with any headers (Host and Origin included). */
function post(base: string, body: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const text = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      new URL('/mcp', base),
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'content-length': Buffer.byteLength(text),
          ...headers,
        },
      },
      (res) => {
        let data = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (data += chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: data }),
        );
      },
    );
    req.on('error', reject);
    req.end(text);
  });
}

const listTools = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/list', params: {} });
const lookup = (id: number) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'salary_lookup', arguments: { country: 'DE', job: 'nurse' } },
});

describe('/mcp against DNS rebinding, floods and repeated ids', () => {
  let t: TestApp;
  let base: string;

  before(async () => {
    t = await buildTestApp();
    ({ base } = await listenHttp(t));
  });
  after(() => t.close());

  it('refuses an Origin that is not the server’s own, and a foreign Host on loopback', async () => {
    const own = new URL(base);
    const ok = await post(base, listTools(1), { origin: base });
    assert.equal(ok.status, 200, ok.body);
    const foreign = await post(base, listTools(1), { origin: 'http://evil.example' });
    assert.equal(foreign.status, 403, foreign.body);
    assert.match(foreign.body, /Origin/);
    // DNS rebinding: evil.example resolved to 127.0.0.1, the browser sends its own name.
    const rebound = await post(base, listTools(1), {
      host: `evil.example:${own.port}`,
      origin: `http://evil.example:${own.port}`,
    });
    assert.equal(rebound.status, 403, rebound.body);
    assert.match(rebound.body, /Host/);
  });

  it('refuses a batch that repeats an id, and charges none of its calls', async () => {
    const { apiKey } = await accountOnPlan(t, 'developer');
    const auth = { authorization: `Bearer ${apiKey}` };
    const usage = async () => {
      await t.recorder.flush();
      const res = await t.app.inject({ url: '/api/v1/usage', headers: auth });
      return res.json<{ quota: { used: number } }>().quota.used;
    };
    const before = await usage();
    const res = await post(base, [lookup(7), lookup(7), lookup(7)], auth);
    assert.equal(res.status, 400, res.body);
    const error = JSON.parse(res.body) as { error: { code: number; message: string } };
    assert.equal(error.error.code, -32600);
    assert.match(error.error.message, /id/);
    assert.equal(await usage(), before, 'nothing spent');
  });

  it('answers an empty batch Invalid Request (-32600), as JSON-RPC 2.0 says', async () => {
    const res = await post(base, []);
    assert.equal(res.status, 400, res.body);
    const answer = JSON.parse(res.body) as { id: unknown; error: { code: number } };
    assert.equal(answer.error.code, -32600);
    assert.equal(answer.id, null);
  });

  it('carries RateLimit headers on a tool call’s answer', async () => {
    const { apiKey } = await accountOnPlan(t, 'developer');
    const res = await post(base, lookup(1), { authorization: `Bearer ${apiKey}` });
    assert.equal(res.status, 200, res.body);
    assert.match(String(res.headers.ratelimit), /;r=9999;/);
    assert.match(String(res.headers['ratelimit-policy']), /q=10000/);
    assert.equal(res.headers['x-ratelimit-remaining'], '9999');
  });
  // Last: it spends this address's budget.
  it('counts protocol messages toward a budget per address, and bounds a batch', async () => {
    const big = await post(
      base,
      Array.from({ length: 100 }, (_, i) => listTools(i + 1)),
    );
    assert.equal(big.status, 400, 'a batch of 100 messages');
    let refused: Answer | undefined;
    for (let round = 0; round < 60 && refused === undefined; round++) {
      const res = await post(
        base,
        Array.from({ length: 10 }, (_, i) => listTools(i + 1)),
      );
      if (res.status === 429) refused = res;
      else assert.equal(res.status, 200, res.body);
    }
    assert.ok(refused !== undefined, 'a flood of tools/list is refused in time');
    assert.ok(Number(refused.headers['retry-after']) >= 1);
    // The refusal names the budget it ran out of, like every limited answer: fewer messages
    // left than the batch of ten asked for.
    assert.match(String(refused.headers.ratelimit), /^"mcp-messages";r=\d;t=\d+$/);
    assert.match(String(refused.headers['ratelimit-policy']), /^"mcp-messages";q=300;w=60$/);
    assert.ok(Number(refused.headers['x-ratelimit-remaining']) < 10);
  });
});

describe('/mcp protocol answers carry the address budget’s RateLimit headers', () => {
  let t: TestApp;
  let base: string;
  before(async () => {
    t = await buildTestApp();
    ({ base } = await listenHttp(t));
  });
  after(() => t.close());

  it('counts down the budget on tools/list, by the messages of a batch', async () => {
    const one = await post(base, listTools(1));
    assert.equal(one.status, 200, one.body);
    assert.match(String(one.headers.ratelimit), /^"mcp-messages";r=299;t=\d+$/);
    const batch = await post(base, [listTools(1), listTools(2), listTools(3)]);
    assert.equal(batch.status, 200, batch.body);
    assert.equal(batch.headers['x-ratelimit-remaining'], '296');
  });
});

describe('/mcp with PUBLIC_BASE_URL behind a trusted proxy', () => {
  let t: TestApp;
  let base: string;
  before(async () => {
    t = await buildTestApp({
      env: { PUBLIC_BASE_URL: 'https://api.good.example', TRUST_PROXY: '127.0.0.1' },
    });
    ({ base } = await listenHttp(t));
  });
  after(() => t.close());

  it('answers PUBLIC_BASE_URL’s origin only, whatever the forwarded host says', async () => {
    const own = await post(base, listTools(1), {
      host: 'api.good.example',
      origin: 'https://api.good.example',
    });
    assert.equal(own.status, 200, own.body);
    // A page on evil.example, rebound to this server through the proxy, which forwards its name.
    const rebound = await post(base, listTools(1), {
      host: 'api.good.example',
      'x-forwarded-host': 'evil.example',
      'x-forwarded-proto': 'https',
      origin: 'https://evil.example',
    });
    assert.equal(rebound.status, 403, rebound.body);
    assert.match(rebound.body, /Origin/);
  });
});
