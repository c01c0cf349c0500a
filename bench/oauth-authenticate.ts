/**
 * CPU time of deciding who calls, per request: the `authenticate` function the auth hook
 * calls, with an Enterprise API key and with a cached OAuth access token
 * (bearer). No HTTP and no load generator: a shared machine disturbs CPU time per call far
 * less than throughput.
 *
 *   npx tsx bench/oauth-authenticate.ts [--calls 200000] [--rounds 5]
 *
 * Builds the API in process (PGlite copy, as the tests do), makes an Enterprise account, its
 * key and an OAuth client with a token, then times `--calls` calls per credential, alternating
 * key and token `--rounds` times, and prints the median ns per call of each and the difference.
 */
import { authenticator } from '../src/http/auth-hook.js';
import { DPOP_INVALID_TOKEN } from '../src/oauth/index.js';
import { buildTestApp } from '../test/helpers/app.js';
import { accountOnPlan } from '../test/helpers/accounts.js';
import { clientAndToken } from '../test/helpers/oauth.js';

function option(name: string, fallback: number): number {
  const i = process.argv.indexOf(name);
  return i < 0 ? fallback : Number(process.argv[i + 1]);
}

const calls = option('--calls', 200_000);
const rounds = option('--rounds', 5);
const t = await buildTestApp();
try {
  const { session, apiKey } = await accountOnPlan(t, 'enterprise');
  const { accessToken: token } = await clientAndToken(t, session, {
    name: 'bench',
    scopes: ['salary:read'],
  });
  const authenticate = authenticator(t.oauth, t.services.plans.free, DPOP_INVALID_TOKEN);
  const route = { access: 'data', scope: 'salary:read' } as const;
  const request = { method: 'GET', url: '/api/v1/salary', headers: {} };

  /**
   * CPU ns per call. Every call gets its own copy of the header (as node's parser makes one per
   * request), so nothing V8 caches on a string (its hash) carries over between calls.
   */
  async function time(header: string): Promise<number> {
    const headers = Array.from({ length: 1000 }, () => Buffer.from(header).toString());
    await authenticate(header, '127.0.0.1', route, request); // a token's first sight verifies it
    for (const h of headers) {
      const p = authenticate(h, '127.0.0.1', route, request);
      if (p instanceof Promise) throw new Error('not decided from memory');
    }
    let ns = 0;
    for (let done = 0; done < calls; done += headers.length) {
      const fresh = headers.map((h) => Buffer.from(h).toString());
      const start = process.cpuUsage();
      for (const h of fresh) void authenticate(h, '127.0.0.1', route, request);
      const used = process.cpuUsage(start);
      ns += (used.user + used.system) * 1000;
    }
    return ns / calls;
  }

  const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)]!;
  const key: number[] = [];
  const oauth: number[] = [];
  for (let r = 0; r < rounds; r++) {
    key.push(await time(`Bearer ${apiKey}`));
    oauth.push(await time(`Bearer ${token}`));
  }
  const fmt = (v: number[]) => v.map((n) => n.toFixed(0)).join(' ');
  console.log(`API key:            ${median(key).toFixed(0)} ns/call (rounds: ${fmt(key)})`);
  console.log(`OAuth access token: ${median(oauth).toFixed(0)} ns/call (rounds: ${fmt(oauth)})`);
  console.log(`difference:         ${(median(oauth) - median(key)).toFixed(0)} ns/call`);
  console.log(`token length: ${token.length} characters; key length: ${apiKey!.length}`);
} finally {
  await t.close();
}
