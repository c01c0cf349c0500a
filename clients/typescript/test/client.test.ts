import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { accountOnPlan } from '../../../test/helpers/accounts.js';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import { listenHttp } from '../../../test/helpers/http.js';
import { createClient as createOAuthClient } from '../../../test/helpers/oauth.js';
import { startReceiver } from '../../../test/helpers/receiver.js';
import { recordEvent, registerWebhook } from '../../../test/helpers/webhooks.js';
import { GENERATED_TYPES, typesOf } from '../scripts/types.js';
import {
  createSalaryClient,
  SalaryApiError,
  verifyWebhook,
  WebhookSignatureError,
  type Download,
} from '../src/index.js';

async function bytesOf(download: Download): Promise<Buffer> {
  const parts: Uint8Array[] = [];
  for await (const part of download.stream) parts.push(part);
  return Buffer.concat(parts);
}

const LOOKUP = { country: 'DE', job: 'software-engineer', level: 'senior' } as const;

describe('TypeScript client against a live server', () => {
  let t: TestApp;
  let baseUrl: string;
  let business: { apiKey: string | null; session: string };
  let enterprise: { apiKey: string | null; session: string };

  before(async () => {
    // The real time: webhook signatures are checked against it (5 minutes' tolerance).
    t = await buildTestApp({
      now: new Date().toISOString(),
      env: { OUTBOUND_ALLOW_PRIVATE_TARGETS: 'true' },
    });
    ({ base: baseUrl } = await listenHttp(t));
    business = await accountOnPlan(t, 'business');
    enterprise = await accountOnPlan(t, 'enterprise');
  });
  after(() => t.close());

  it('has generated types equal to those of the served OpenAPI document', async () => {
    const served = (await (await fetch(`${baseUrl}/api/v1/openapi.json`)).json()) as object;
    const committed = await readFile(GENERATED_TYPES, 'utf8');
    assert.ok(
      committed === (await typesOf(served)),
      'src/generated/openapi.ts differs from the served document: run `npm run generate -w clients/typescript`',
    );
  });

  it('verifies a webhook delivery with its secret, and refuses a tampered one', async () => {
    const receiver = await startReceiver();
    try {
      const { secret } = await registerWebhook(t, business.apiKey!, receiver.url);
      await recordEvent(t, { release: 'client-test' });
      await t.worker.runOnce();
      await receiver.waitFor(1);
      const delivery = receiver.received[0]!;
      const event = verifyWebhook(secret, delivery.body, delivery.headers);
      assert.equal(event.type, 'data.updated');
      assert.deepEqual(event.data, { release: 'client-test' });
      assert.throws(
        () =>
          verifyWebhook(secret, delivery.body.replace('client-test', 'forged'), delivery.headers),
        WebhookSignatureError,
      );
      assert.throws(
        () =>
          verifyWebhook(
            `whsec_${Buffer.alloc(24).toString('base64')}`,
            delivery.body,
            delivery.headers,
          ),
        WebhookSignatureError,
      );
    } finally {
      await receiver.close();
    }
  });

  it('makes typed calls', async () => {
    const client = createSalaryClient({ baseUrl, apiKey: business.apiKey! });
    const { data } = await client.api.GET('/api/v1/salary', { params: { query: LOOKUP } });
    assert.equal(data?.data[0]?.country, 'DE');
    assert.equal(data?.meta.job?.slug, 'software-engineer');
    const position = await client.api.GET('/api/v1/salary/position', {
      params: { query: { ...LOOKUP, salary: data.data[0].median } },
    });
    assert.equal(position.data?.data.percentile, 50);
  });

  it('throws problem answers as SalaryApiError carrying code and required_plan', async () => {
    const free = createSalaryClient({ baseUrl });
    const refused = await free.api
      .GET('/api/v1/salary/position', { params: { query: { ...LOOKUP, salary: 50000 } } })
      .then(
        () => assert.fail('a Free caller was answered'),
        (error: unknown) => error,
      );
    assert.ok(refused instanceof SalaryApiError);
    assert.equal(refused.status, 403);
    assert.equal(refused.code, 'FEATURE_NOT_IN_PLAN');
    assert.equal(refused.requiredPlan, 'developer');
    const invalid = await createSalaryClient({ baseUrl, apiKey: 'sk_live_nobody' })
      .api.GET('/api/v1/countries')
      .catch((error: unknown) => error);
    assert.ok(invalid instanceof SalaryApiError);
    assert.equal(invalid.code, 'UNAUTHENTICATED');
  });

  it('retries a 429 after its Retry-After when asked to, and only then', async () => {
    const waits: number[] = [];
    const sleep = async (ms: number) => {
      waits.push(ms);
      t.clock.set(t.clock.now() + ms);
    };
    const plain = createSalaryClient({ baseUrl });
    const retrying = createSalaryClient({
      baseUrl,
      retry: { retries: 1, maxDelayMs: 2 * 3600_000, sleep },
    });
    let refused: unknown;
    for (let i = 0; i < 101 && refused === undefined; i++)
      refused = await plain.api.GET('/api/v1/countries').then(
        () => undefined,
        (error: unknown) => error,
      );
    assert.ok(refused instanceof SalaryApiError);
    assert.equal(refused.code, 'RATE_LIMITED');
    const { data } = await retrying.api.GET('/api/v1/countries');
    assert.equal(data?.data.length, 27);
    assert.equal(waits.length, 1);
    assert.equal(waits[0], refused.retryAfter! * 1000);
    // Not retried: a wait longer than maxDelayMs is thrown at once.
    for (let i = 0; i < 99; i++) await plain.api.GET('/api/v1/countries');
    const impatient = createSalaryClient({ baseUrl, retry: { maxDelayMs: 1000, sleep } });
    const error = await impatient.api.GET('/api/v1/countries').catch((e: unknown) => e);
    assert.ok(error instanceof SalaryApiError && error.status === 429);
    assert.equal(waits.length, 1);
  });

  it('streams CSV, Excel and Parquet downloads', async () => {
    const client = createSalaryClient({ baseUrl, apiKey: business.apiKey! });
    const csv = await client.download('/api/v1/salary', LOOKUP, 'csv');
    assert.match(csv.contentType, /^text\/csv/);
    assert.match(csv.filename ?? '', /\.csv$/);
    assert.match((await bytesOf(csv)).toString('utf8'), /^country,country_name,job/);
    const xlsx = await client.download('/api/v1/bulk/countries', { job: 'nurse' }, 'xlsx');
    assert.equal((await bytesOf(xlsx)).subarray(0, 2).toString('latin1'), 'PK');
    const denied = await client
      .download('/api/v1/salary', LOOKUP, 'parquet')
      .catch((e: unknown) => e);
    assert.ok(denied instanceof SalaryApiError);
    assert.equal(denied.requiredPlan, 'enterprise');
    const ent = createSalaryClient({ baseUrl, apiKey: enterprise.apiKey! });
    const parquet = await ent.download('/api/v1/salary', LOOKUP, 'parquet');
    assert.equal((await bytesOf(parquet)).subarray(0, 4).toString('latin1'), 'PAR1');
  });

  it('fetches an OAuth token with client credentials, keeps it, and renews it when it expires', async () => {
    const oauthClient = await createOAuthClient(t, enterprise.session, {
      name: 'client-test',
      scopes: ['salary:read'],
    });
    let tokenRequests = 0;
    const counting: typeof fetch = async (input, init) => {
      if (new Request(input, init).url.endsWith('/oauth/token')) tokenRequests++;
      return fetch(input, init);
    };
    const client = createSalaryClient({
      baseUrl,
      fetch: counting,
      oauth: {
        clientId: oauthClient.client_id,
        clientSecret: oauthClient.client_secret,
        now: () => t.clock.now(),
      },
    });
    await client.api.GET('/api/v1/salary', { params: { query: LOOKUP } });
    await client.api.GET('/api/v1/jobs');
    assert.equal(tokenRequests, 1);
    t.clock.set(t.clock.now() + 24 * 3600_000);
    const { data } = await client.api.GET('/api/v1/countries');
    assert.equal(data?.data.length, 27);
    assert.equal(tokenRequests, 2);
  });
});
