import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ERROR_CODES, type ErrorCode } from '../../src/errors/index.js';
import { accountOnPlan } from '../helpers/accounts.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';

interface Content {
  schema?: { $ref?: string; examples?: unknown[] };
  example?: Record<string, unknown>;
}
type Operation = { responses: Record<string, { content?: Record<string, Content> }> };
interface Doc {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, { examples?: unknown[] }> };
}

describe('examples in the API reference', () => {
  let t: TestApp;
  let doc: Doc;
  let key: string;
  const get = async (url: string, credential = key) => {
    const res = await t.app.inject({ url, headers: { authorization: `Bearer ${credential}` } });
    assert.equal(res.statusCode, 200, res.body.slice(0, 300));
    return res.json<unknown>();
  };
  const exampleOf = (path: string, status = '200'): unknown => {
    const content = doc.paths[path]!.get!.responses[status]!.content!['application/json']!;
    if (content.example !== undefined) return content.example;
    const named = content.schema?.$ref?.split('/').pop();
    return (named === undefined ? content.schema : doc.components.schemas[named])?.examples?.[0];
  };

  before(async () => {
    t = await buildTestApp();
    key = (await accountOnPlan(t, 'developer')).apiKey!;
    doc = (await t.app.inject('/api/v1/openapi.json')).json();
  });
  after(() => t.close());

  it('shows the lookup as the server answers it (DE, software engineer, senior)', async () => {
    const served = await get('/api/v1/salary?country=DE&job=software-engineer&level=senior');
    assert.deepEqual(exampleOf('/api/v1/salary'), served);
  });

  it('shows the pay position as the server answers it (72,000 EUR)', async () => {
    const served = await get(
      '/api/v1/salary/position?country=DE&job=software-engineer&level=senior&salary=72000',
    );
    assert.deepEqual(exampleOf('/api/v1/salary/position'), served);
  });

  it('shows the history as the server answers it (Developer: the current year and the one before)', async () => {
    const served = await get(
      '/api/v1/salary/history?country=DE&job=software-engineer&level=senior',
    );
    assert.deepEqual(exampleOf('/api/v1/salary/history'), served);
  });

  it('shows countries and jobs taken from the served catalogues', async () => {
    const countries = (await get('/api/v1/countries')) as { data: unknown[] };
    for (const country of (exampleOf('/api/v1/countries') as { data: unknown[] }).data)
      assert.ok(
        countries.data.some((c) => JSON.stringify(c) === JSON.stringify(country)),
        JSON.stringify(country),
      );
    const jobs = (await get('/api/v1/jobs')) as { data: unknown[]; levels: unknown[] };
    const example = exampleOf('/api/v1/jobs') as { data: unknown[]; levels: unknown[] };
    for (const job of example.data)
      assert.ok(jobs.data.some((j) => JSON.stringify(j) === JSON.stringify(job)));
    for (const level of example.levels)
      assert.ok(jobs.levels.some((l) => JSON.stringify(l) === JSON.stringify(level)));
  });

  it('shows the releases and their changes as the server answers them', async () => {
    // When this server loaded a release is its own; the example shows the first sources only.
    type Release = { loaded_at: string; sources: unknown[] } & Record<string, unknown>;
    const same = (example: Release, served: Release, where: string) => {
      const { sources } = example;
      assert.deepEqual(
        { ...example, loaded_at: '', sources: [] },
        { ...served, loaded_at: '', sources: [] },
        where,
      );
      assert.deepEqual(sources, served.sources.slice(0, sources.length), where);
    };
    const list = (await get('/api/v1/releases')) as { data: Release[] };
    const example = exampleOf('/api/v1/releases') as { data: Release[] };
    assert.equal(example.data.length, list.data.length);
    example.data.forEach((r, i) => same(r, list.data[i]!, `release ${i}`));
    const active = list.data[0]!;
    same(
      exampleOf('/api/v1/releases/{version}') as Release,
      (await get(`/api/v1/releases/${String(active.version)}`)) as Release,
      'the active release',
    );
    const changes = await get(
      `/api/v1/releases/${String(active.version)}/changes?from=${String(active.previous_release)}&country=DE&job=software-engineer&level=senior&year=2026`,
    );
    assert.deepEqual(exampleOf('/api/v1/releases/{version}/changes'), changes);
  });

  it('gives keys and webhooks examples with ids and secrets of the served form', () => {
    const schemas = doc.components.schemas;
    const key = schemas['NewApiKey']!.examples![0] as { id: string; key: string; prefix: string };
    assert.match(key.id, /^key_[\w-]{16}$/);
    assert.match(key.key, /^sk_live_[\w-]{43}$/);
    assert.ok(key.key.startsWith(key.prefix));
    assert.match((schemas['ApiKey']!.examples![0] as { id: string }).id, /^key_/);
    const hook = schemas['NewWebhook']!.examples![0] as { id: string; secret: string };
    assert.match(hook.id, /^wh_[\w-]{16}$/);
    assert.match(hook.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
  });

  it('has samples that answer 200 once the placeholder key is replaced by a key of the plan', async () => {
    const business = (await accountOnPlan(t, 'business')).apiKey!;
    for (const [path, planKey] of [
      ['/api/v1/salary/position', key],
      ['/api/v1/bulk/countries', business],
      ['/api/v1/salary', key],
    ] as const) {
      const samples = (
        doc.paths[path]!.get as unknown as { 'x-codeSamples': { lang: string; source: string }[] }
      )['x-codeSamples'];
      const curl = samples.find((s) => s.lang === 'Shell')!.source;
      const url = new URL(/curl "([^"]+)"/.exec(curl)![1]!);
      const header = /-H "Authorization: Bearer (\S+)"/.exec(curl)?.[1];
      assert.equal(header, path === '/api/v1/salary' ? undefined : 'sk_live_YOUR_API_KEY', path);
      const res = await t.app.inject({
        url: url.pathname + url.search,
        headers: header === undefined ? {} : { authorization: `Bearer ${planKey}` },
      });
      assert.equal(res.statusCode, 200, `${path}: ${res.body.slice(0, 200)}`);
    }
  });

  it('gives every problem+json response an example of a code of its own status', () => {
    let problems = 0;
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        for (const [status, response] of Object.entries(operation.responses ?? {})) {
          const example = response.content?.['application/problem+json']?.example;
          if (response.content?.['application/problem+json'] === undefined) continue;
          problems += 1;
          const where = `${method} ${path} ${status}`;
          assert.ok(example !== undefined, where);
          const code = example.code as ErrorCode;
          assert.equal(ERROR_CODES[code].status, Number(status), where);
          assert.equal(example.status, Number(status), where);
          assert.equal(example.title, ERROR_CODES[code].title, where);
          assert.equal(example.instance, path, where);
          assert.match(String(example.type), /\/errors\/[a-z-]+$/, where);
        }
      }
    }
    assert.ok(problems > 100, `${problems} problem responses`);
  });
});
