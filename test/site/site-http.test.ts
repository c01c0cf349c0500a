import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { ERROR_CODES, errorSlug, type ErrorCode } from '../../src/errors/index.js';
import { createLicenseService } from '../../src/licensing/index.js';
import { DEFAULT_PLANS } from '../../src/plans/index.js';
import { validationHtml } from '../../src/site/methodology.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { accountOnPlan } from '../helpers/accounts.js';

const VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  }
).version;
const OUR_NAME = 'European Salary Data API';
const FRAMEWORK = /fastify|swagger/i;
const BROKEN = /undefined|NaN|\[object Object\]/;

const ENTITIES: Record<string, string> = { quot: '"', amp: '&', lt: '<', gt: '>', '#39': "'" };

/** The text of an HTML page, tags and scripts removed. */
function textOf(html: string): string {
  return html
    .replace(/<(script|style)[\s\S]*?<\/\1>/g, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&(quot|amp|lt|gt|#39);/g, (_m, name: string) => ENTITIES[name]!)
    .replace(/\s+/g, ' ');
}

describe('public pages', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(() => t.close());

  const page = async (url: string, host?: string) => {
    const res = await t.app.inject({ url, headers: host === undefined ? {} : { host } });
    assert.equal(res.statusCode, 200, `${url}: ${res.body.slice(0, 300)}`);
    assert.match(String(res.headers['content-type']), /^text\/html/, url);
    const text = textOf(res.body);
    assert.doesNotMatch(text, BROKEN, url);
    assert.doesNotMatch(res.body, FRAMEWORK, url);
    return { html: res.body, text };
  };

  it('the front page shows the plans from the plan table and a live example answer', async () => {
    const { html, text } = await page('/');
    assert.match(text, new RegExp(OUR_NAME));
    for (const plan of Object.values(DEFAULT_PLANS)) assert.match(text, new RegExp(plan.name));
    for (const fact of [
      '€49 / month',
      '€199 / month',
      'By contract',
      '100 requests per hour',
      '10,000 requests per day',
      '100,000 requests per day',
      'Unlimited requests',
    ])
      assert.ok(text.includes(fact), fact);
    for (const href of [
      '/dashboard/sign-up',
      '/docs',
      '/docs/quick-start',
      '/status',
      '/methodology',
    ])
      assert.ok(html.includes(`href="${href}"`), href);
    const live = (
      await t.app.inject('/api/v1/salary?country=DE&job=software-engineer&level=mid')
    ).json<{ data: { median: number }[]; meta: { release: { version: string } } }>();
    assert.ok(text.includes(`"median": ${live.data[0]!.median}`), 'the live median');
    assert.ok(text.includes(live.meta.release.version), 'the release');
  });

  it('the front page follows the plan table when the operator changes it', async () => {
    const changed = await buildTestApp({
      env: { PLAN_OVERRIDES: JSON.stringify({ developer: { priceCents: 5900 } }) },
    });
    try {
      const res = await changed.app.inject('/');
      assert.ok(textOf(res.body).includes('€59 / month'));
      assert.ok(!textOf(res.body).includes('€49 / month'));
    } finally {
      await changed.close();
    }
  });

  it('the quick start, the changelog and the methodology are HTML pages with our name', async () => {
    const quick = await page('/docs/quick-start', 'api.example.org');
    assert.match(quick.text, /Quick start/);
    assert.ok(quick.text.includes('export BASE=http://api.example.org'), 'examples at this host');
    assert.match(quick.text, /webhook-signature/);
    assert.match(quick.text, /Retry-After/);
    const changelog = await page('/docs/changelog');
    assert.ok(changelog.text.includes(`current version is ${VERSION}`));
    assert.match(changelog.text, /deprecation policy/i);
    const methodology = await page('/methodology');
    assert.match(methodology.text, new RegExp(OUR_NAME));
    assert.equal(methodology.html.match(/<svg\s/g)?.length, 2, 'two charts');
    assert.match(methodology.html, /<title id="chart-country-title">Median gross annual pay/);
    assert.match(methodology.text, /Confidence: how far to rely/);
    assert.match(methodology.text, /Eurostat/);
    assert.match(methodology.html, /<a href="https:\/\/ec\.europa\.eu\/eurostat/);
    assert.doesNotMatch(methodology.text, /scripts\/|npx |sources\/|\.ts\b/);
    assert.match(methodology.text, /Validation of release 2026\.11\.8/);
    assert.match(
      methodology.html,
      /<table>[\s\S]*physician \/ nurse|physician \/ nurse[\s\S]*<table>/,
    );
    const markdown = await t.app.inject('/methodology.md');
    assert.match(String(markdown.headers['content-type']), /^text\/markdown/);
    assert.match(markdown.body, /^# Methodology/);
  });

  it('validation tables render as HTML tables under the page’s own heading', () => {
    const html = validationHtml(
      '# Validation\n\n| country | error |\n| --- | --- |\n| DE | 2.1 % |\n',
    )!;
    assert.match(html.value, /<h2>Validation<\/h2>/);
    assert.match(html.value, /<td>DE<\/td>/);
  });

  it('the API reference is served from the package, with our name and no framework', async () => {
    const res = await t.app.inject('/docs/');
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /<html lang="en">/);
    assert.match(res.body, new RegExp(`<title>API reference · ${OUR_NAME}</title>`));
    assert.doesNotMatch(res.body, /https?:\/\/(?!localhost)/, 'nothing from another host');
    assert.doesNotMatch(res.body, FRAMEWORK);
    const src = /<script src="([^"]+)"/.exec(res.body)?.[1];
    assert.ok(src !== undefined);
    const script = await t.app.inject(new URL(src, 'http://localhost/docs/').pathname);
    assert.equal(script.statusCode, 200);
    assert.match(String(script.headers['content-type']), /javascript/);
    assert.ok(script.body.length > 100_000, 'the renderer itself');
    assert.equal((await t.app.inject('/docs/json')).json<{ openapi: string }>().openapi, '3.1.0');
  });

  it('a licensee’s host name gets the licensee’s name on every page, never ours', async () => {
    const wl = await accountOnPlan(t, 'enterprise');
    const licenses = createLicenseService({ db: t.db, clock: t.clock, registry: t.licenses });
    await licenses.record(wl.accountId, {
      licensee: 'Acme Pay Insights',
      attribution: 'Data: Acme Pay Insights.',
      whiteLabel: true,
      permittedUse: null,
      termEnd: null,
    });
    await licenses.mapHost('data.acme-pay.example', wl.accountId, wl.accountId);
    try {
      for (const url of [
        '/',
        '/docs/quick-start',
        '/docs/changelog',
        '/methodology',
        '/errors',
        '/errors/rate-limited',
      ]) {
        const { html } = await page(url, 'data.acme-pay.example');
        assert.match(html, /Acme Pay Insights/, url);
        assert.doesNotMatch(html, /European Salary Data|salary-api/i, url);
      }
      const reference = await t.app.inject({
        url: '/docs/',
        headers: { host: 'data.acme-pay.example' },
      });
      assert.match(reference.body, /<title>API reference · Acme Pay Insights<\/title>/);
    } finally {
      await licenses.mapHost('data.acme-pay.example', null, wl.accountId);
      await licenses.remove(wl.accountId);
    }
  });
});

describe('OpenAPI document', () => {
  let t: TestApp;
  let doc: {
    info: { version: string; title: string };
    paths: Record<
      string,
      Record<string, { security?: object[]; 'x-codeSamples'?: { lang: string; source: string }[] }>
    >;
    components: { schemas: { Problem: { properties: { type: { examples: string[] } } } } };
  };
  before(async () => {
    t = await buildTestApp();
    doc = (await t.app.inject('/api/v1/openapi.json')).json();
  });
  after(() => t.close());

  it('has the package version, and shows operations that need no credential as such', () => {
    assert.equal(doc.info.version, VERSION);
    const security = (path: string, method: string) => doc.paths[path]![method]!.security;
    assert.deepEqual(security('/api/v1/salary', 'get'), [{}, { apiKey: [] }, { oauth2: [] }]);
    assert.deepEqual(security('/api/v1/accounts', 'post'), [{}]);
    assert.deepEqual(security('/health', 'get'), [{}]);
    assert.equal(security('/api/v1/keys', 'post'), undefined, 'the document’s default');
    assert.equal(
      JSON.stringify((doc as unknown as { security: object }).security),
      JSON.stringify([{ apiKey: [] }, { oauth2: [] }]),
    );
  });

  it('has curl, JavaScript and Python samples for every operation', () => {
    let operations = 0;
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        operations += 1;
        const samples = operation['x-codeSamples'] ?? [];
        assert.deepEqual(
          samples.map((s) => s.lang),
          ['Shell', 'JavaScript', 'Python'],
          `${method} ${path}`,
        );
        const keyed = !(operation.security ?? [{ apiKey: [] }]).some(
          (a) => Object.keys(a).length === 0,
        );
        for (const sample of samples) {
          assert.equal(
            /Bearer sk_live_YOUR_API_KEY["'`]/.test(sample.source),
            keyed,
            `${method} ${path} ${sample.lang}`,
          );
          assert.equal(/Authorization/.test(sample.source), keyed, `${method} ${path}`);
          assert.doesNotMatch(sample.source, /undefined|\[object Object\]/);
        }
      }
    }
    assert.ok(operations > 50, `${operations} operations`);
    // Data routes a Free caller cannot use show a key; the lookup does not.
    for (const path of [
      '/api/v1/bulk/countries',
      '/api/v1/bulk/archive',
      '/api/v1/salary/position',
    ])
      assert.deepEqual(doc.paths[path]!.get!.security, [{ apiKey: [] }, { oauth2: [] }], path);
    const salary = doc.paths['/api/v1/salary']!.get!['x-codeSamples']!;
    assert.match(
      salary[0]!.source,
      /^curl ".*\/api\/v1\/salary\?country=DE&job=software-engineer"$/,
    );
    const webhook = doc.paths['/api/v1/webhooks']!.post!['x-codeSamples']!;
    assert.match(
      webhook[2]!.source,
      /requests\.post\(.*json=\{"url": ?"https:\/\/example\.com\/hooks\/salary"/,
    );
  });

  it('every problem type in the document answers 200 with its error page', async () => {
    const types = doc.components.schemas.Problem.properties.type.examples;
    assert.equal(types.length, Object.keys(ERROR_CODES).length);
    for (const type of types) {
      const res = await t.app.inject(new URL(type).pathname);
      assert.equal(res.statusCode, 200, type);
      assert.match(String(res.headers['content-type']), /^text\/html/);
    }
  });
});

describe('problem types', () => {
  it('each error page says what the error means and what to do', async () => {
    const t = await buildTestApp();
    try {
      for (const code of Object.keys(ERROR_CODES) as ErrorCode[]) {
        const res = await t.app.inject(`/errors/${errorSlug(code)}`);
        assert.equal(res.statusCode, 200, code);
        const text = textOf(res.body);
        assert.ok(text.includes(ERROR_CODES[code].title), code);
        assert.ok(text.includes(ERROR_CODES[code].action), `${code} action`);
        assert.match(text, /What it means .{20,} What to do/, code);
      }
      const unknown = await t.app.inject('/errors/no-such-error');
      assert.equal(unknown.statusCode, 404);
      assert.equal(unknown.json().code, 'NOT_FOUND');
    } finally {
      await t.close();
    }
  });

  it('a type is at the request’s own origin, or PUBLIC_BASE_URL, and that page answers', async () => {
    const t = await buildTestApp();
    const configured = await buildTestApp({ env: { PUBLIC_BASE_URL: 'https://api.example.eu/' } });
    try {
      const res = await t.app.inject({
        url: '/api/v1/salary?country=XX&job=nurse',
        headers: { host: 'api.example.org:8443' },
      });
      const problem = res.json<{ type: string; doc_url: string }>();
      assert.equal(problem.type, 'http://api.example.org:8443/errors/invalid-parameter');
      assert.equal(problem.doc_url, problem.type);
      assert.equal((await t.app.inject(new URL(problem.type).pathname)).statusCode, 200);
      const other = await configured.app.inject({
        url: '/api/v1/nothing',
        headers: { host: 'internal:3000' },
      });
      assert.equal(other.json<{ type: string }>().type, 'https://api.example.eu/errors/not-found');
    } finally {
      await t.close();
      await configured.close();
    }
  });

  it('a white-label account gets its licensee’s host, or no link', async () => {
    const t = await buildTestApp();
    try {
      const wl = await accountOnPlan(t, 'enterprise');
      const licenses = createLicenseService({ db: t.db, clock: t.clock, registry: t.licenses });
      await licenses.record(wl.accountId, {
        licensee: 'Acme Pay Insights',
        attribution: 'Data: Acme Pay Insights.',
        whiteLabel: true,
        permittedUse: null,
        termEnd: null,
      });
      const refused = async () =>
        (
          await t.app.inject({
            url: '/api/v1/salary?country=XX&job=nurse',
            headers: { authorization: `Bearer ${wl.apiKey!}` },
          })
        ).json<{ type: string; doc_url?: string; code: string }>();
      const unlinked = await refused();
      assert.equal(unlinked.type, 'about:blank');
      assert.equal(unlinked.doc_url, undefined);
      assert.equal(unlinked.code, 'INVALID_PARAMETER');
      await licenses.mapHost('data.acme-pay.example', wl.accountId, wl.accountId);
      const linked = await refused();
      assert.equal(linked.type, 'https://data.acme-pay.example/errors/invalid-parameter');
      const ordinary = await accountOnPlan(t, 'enterprise');
      const ours = await t.app.inject({
        url: '/api/v1/salary?country=XX&job=nurse',
        headers: { authorization: `Bearer ${ordinary.apiKey!}` },
      });
      assert.equal(
        ours.json<{ type: string }>().type,
        'http://localhost:80/errors/invalid-parameter',
      );
    } finally {
      await t.close();
    }
  });
});
