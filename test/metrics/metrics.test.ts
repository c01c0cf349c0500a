import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { accountOnPlan } from '../helpers/accounts.js';
import { freePort } from '../helpers/redis.js';

const TOKEN = 'metrics-token-0123456789';
const LOOKUP = '/api/v1/salary?country=DE&job=software-engineer&level=senior';

/** The value of one sample line (`name{labels} value`), or undefined when absent. */
function sample(
  text: string,
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`)))
      return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

describe('GET /metrics', () => {
  let t: TestApp;
  let base: string;
  let apiKey: string;

  before(async () => {
    t = await buildTestApp({ env: { METRICS_TOKEN: TOKEN } });
    apiKey = (await accountOnPlan(t, 'developer')).apiKey!;
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  });
  after(() => t.close());

  const scrape = async () => {
    const res = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    return res.text();
  };

  it('takes the scheme in any case, followed by one or more spaces', async () => {
    for (const authorization of [`bearer ${TOKEN}`, `BEARER   ${TOKEN}`]) {
      const res = await fetch(`${base}/metrics`, { headers: { authorization } });
      assert.equal(res.status, 200, authorization);
    }
  });

  it('refuses a missing or wrong token with 401 and no figures', async () => {
    for (const authorization of [
      undefined,
      'Bearer wrong',
      `Bearer ${TOKEN}x`,
      `Bearer\t${TOKEN}`,
      TOKEN,
    ]) {
      const res = await fetch(`${base}/metrics`, {
        headers: authorization === undefined ? {} : { authorization },
      });
      assert.equal(res.status, 401, String(authorization));
      assert.doesNotMatch(await res.text(), /salary_api_/);
    }
  });

  it('counts requests by route template and status class', async () => {
    const before = await scrape();
    const route = { route: '/api/v1/salary', method: 'GET' };
    const ok0 =
      sample(before, 'salary_api_http_requests_total', { ...route, status_class: '2xx' }) ?? 0;
    const bad0 =
      sample(before, 'salary_api_http_requests_total', { ...route, status_class: '4xx' }) ?? 0;
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${base}${LOOKUP}`, {
        headers: { authorization: `Bearer ${apiKey}` },
      });
      assert.equal(res.status, 200);
      await res.text();
    }
    const bad = await fetch(`${base}/api/v1/salary?country=XX&job=nurse`, {
      headers: { authorization: `Bearer ${apiKey}` },
    });
    assert.equal(bad.status, 400);
    await fetch(`${base}/no/such/page/12345`).then((r) => r.text());

    const text = await scrape();
    assert.equal(
      sample(text, 'salary_api_http_requests_total', { ...route, status_class: '2xx' }),
      ok0 + 3,
    );
    assert.equal(
      sample(text, 'salary_api_http_requests_total', { ...route, status_class: '4xx' }),
      bad0 + 1,
    );
    assert.equal(
      sample(text, 'salary_api_http_request_duration_seconds_count', {
        ...route,
        status_class: '2xx',
      }),
      ok0 + 3,
    );
    assert.ok(
      (sample(text, 'salary_api_limiter_decisions_total', {
        plan: 'developer',
        decision: 'admitted',
      }) ?? 0) >= 3,
    );
    // Raw URLs never become labels: the unmatched path is one series.
    assert.doesNotMatch(text, /no\/such\/page/);
    assert.ok(
      sample(text, 'salary_api_http_requests_total', {
        route: '(unmatched)',
        status_class: '4xx',
      })! >= 1,
    );
    assert.doesNotMatch(text, /country=|acc_|sk_/);
  });

  it('measures durations in seconds, as the histogram declares: never more than the client waited', async () => {
    const series = { route: '/api/v1/countries', method: 'GET', status_class: '2xx' };
    const sum = (text: string) =>
      sample(text, 'salary_api_http_request_duration_seconds_sum', series) ?? 0;
    const count = (text: string) =>
      sample(text, 'salary_api_http_request_duration_seconds_count', series) ?? 0;
    const before = await scrape();
    const started = performance.now();
    for (let i = 0; i < 5; i++) {
      const res = await fetch(`${base}/api/v1/countries`);
      assert.equal(res.status, 200);
      await res.text();
    }
    const waitedSeconds = (performance.now() - started) / 1000;
    const after = await scrape();
    assert.equal(count(after), count(before) + 5);
    const measured = sum(after) - sum(before);
    assert.ok(measured > 0 && measured <= waitedSeconds, `${measured} s of ${waitedSeconds} s`);
  });

  it('reports release, credential cache, outbox, usage lag, round trips and Node defaults', async () => {
    const text = await scrape();
    assert.match(text, /salary_api_release_info\{version="[^"]+"\} 1/);
    assert.ok(sample(text, 'salary_api_credential_cache_entries')! >= 1);
    assert.equal(sample(text, 'salary_api_webhook_outbox_depth'), 0);
    assert.notEqual(sample(text, 'salary_api_usage_flush_lag_seconds'), undefined);
    assert.ok(
      sample(text, 'salary_api_dependency_round_trip_seconds_count', { target: 'database' })! >= 1,
    );
    assert.notEqual(sample(text, 'salary_api_nodejs_eventloop_lag_seconds'), undefined);
    assert.notEqual(sample(text, 'salary_api_process_resident_memory_bytes'), undefined);
  });
});

describe('metrics off', () => {
  it('has no /metrics without METRICS_TOKEN', async () => {
    const t = await buildTestApp();
    try {
      const res = await t.app.inject({ url: '/metrics' });
      assert.equal(res.statusCode, 404);
    } finally {
      await t.close();
    }
  });
});

describe('METRICS_PORT: the metrics on their own loopback port', () => {
  it('answers GET /metrics there through Fastify, with the token when one is set, and nothing else', async () => {
    const port = await freePort();
    const t = await buildTestApp({
      env: { METRICS_TOKEN: TOKEN, METRICS_PORT: String(port), PORT: '0', HOST: '127.0.0.1' },
    });
    try {
      await t.listen();
      const metrics = `http://127.0.0.1:${port}/metrics`;
      const scraped = await fetch(metrics, { headers: { authorization: `Bearer ${TOKEN}` } });
      assert.equal(scraped.status, 200);
      assert.match(await scraped.text(), /salary_api_process_resident_memory_bytes/);
      const refused = await fetch(metrics);
      assert.equal(refused.status, 401);
      assert.doesNotMatch(await refused.text(), /salary_api_/);
      const other = await fetch(`http://127.0.0.1:${port}/api/v1/salary?country=DE&job=nurse`);
      assert.equal(other.status, 404);
      await other.arrayBuffer();
    } finally {
      await t.close();
    }
  });
});
